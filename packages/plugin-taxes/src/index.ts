import { definePlugin } from '@qhatu/core';
import { TAX_CALCULATOR } from '@qhatu/plugin-orders';
import { TaxAssignment } from './entities/assignment.js';
import { TaxRegion } from './entities/region.js';
import { TaxSetting } from './entities/setting.js';
import { taxesMigration } from './migrations/0001_taxes.js';
import { taxFactsMigration } from './migrations/0002_fact_versions.js';
import { taxRoutes } from './routes/taxes.js';
import { TaxClasses } from './services/assignments.js';
import { TaxRateTable } from './services/rate-table.js';
import { TaxRegions } from './services/regions.js';
import { TaxSettings } from './services/settings.js';

export { TaxSetting } from './entities/setting.js';
export { TaxRegion } from './entities/region.js';
export { TaxAssignment } from './entities/assignment.js';
export { TaxSettings, includesTaxByDefault, type TaxSettingsView } from './services/settings.js';
export { TaxRegions } from './services/regions.js';
export { TaxClasses } from './services/assignments.js';
export { TaxRateTable } from './services/rate-table.js';
// The rounding of every tax amount (decision 0039), kept by the orders plugin so that every quote's mode shares it.
export { taxOf } from '@qhatu/plugin-orders';

/**
 * Taxes: regions with rates per class, inclusive or exclusive prices, tax on shipping. Its rate
 * table is the default `TAX_CALCULATOR` that checkout and orders resolve; a plugin that depends on
 * this one and registers another calculator replaces it.
 */
export default definePlugin({
  name: 'taxes',
  dependsOn: ['catalog', 'orders'],
  entities: [TaxSetting, TaxRegion, TaxAssignment],
  migrations: [taxesMigration, taxFactsMigration],
  permissions: [
    { name: 'taxes.read', description: 'Read the tax settings, regions, rates and class assignments' },
    { name: 'taxes.write', description: 'Change the tax settings, regions, rates and class assignments' },
  ],
  register(container) {
    container.registerSingleton(TaxSettings);
    container.registerSingleton(TaxRegions);
    container.registerSingleton(TaxClasses);
    container.registerSingleton(TaxRateTable);
    container.register(TAX_CALCULATOR, { useFactory: (c) => c.resolve(TaxRateTable) });
  },
  routes: async (app, { container }) => taxRoutes(app, container),
});
