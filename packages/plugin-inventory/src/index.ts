import { definePlugin } from '@qhatu/core';
import { STOCK_KEEPER, type StockKeeper } from '@qhatu/plugin-catalog';
import { StockAdjustment } from './entities/stock-adjustment.js';
import { StockLevel } from './entities/stock-level.js';
import { StockReservation } from './entities/stock-reservation.js';
import { Warehouse } from './entities/warehouse.js';
import { inventoryMigration } from './migrations/0001_inventory.js';
import { warehouseSearchMigration } from './migrations/0002_search.js';
import { variantSettingsMigration } from './migrations/0003_variant_settings.js';
import { VariantSetting } from './entities/variant-setting.js';
import { variantSettingRoutes } from './routes/variant-settings.js';
import { VariantSettings } from './services/variant-settings.js';
import { reservationRoutes } from './routes/reservations.js';
import { stockRoutes } from './routes/stock.js';
import { warehouseRoutes } from './routes/warehouses.js';
import { Reservations } from './services/reservations.js';
import { Stock } from './services/stock.js';
import { STOCK_EVENTS, StockLedger } from './services/stock-ledger.js';
import { WAREHOUSE_EVENTS, Warehouses } from './services/warehouses.js';

export { Warehouse, LOCATION_TYPES, WEEKDAYS, type LocationType, type OperatingHours, type WarehouseAddress } from './entities/warehouse.js';
export { StockLevel } from './entities/stock-level.js';
export { StockAdjustment, ADJUSTMENT_REASONS, type AdjustmentReason } from './entities/stock-adjustment.js';
export { StockReservation } from './entities/stock-reservation.js';
export { Reservations, type HeldLine, type HoldInput, type ReservationChange, type ReservationLine, type ReserveInput, type Shortfall } from './services/reservations.js';
export { VariantSetting } from './entities/variant-setting.js';
export { VariantSettings, stockTermsFrom, stockTermsSql, type StockTerms } from './services/variant-settings.js';
export { Stock, type RestockInput } from './services/stock.js';
export { Warehouses } from './services/warehouses.js';

/** Inventory: warehouses, stock per variant and warehouse, audited adjustments and order reservations. */
export default definePlugin({
  name: 'inventory',
  permissions: [
    { name: 'inventory.read', description: 'See warehouses, stock, adjustments and reservations' },
    { name: 'inventory.write', description: 'Create, change and delete warehouses and adjust stock' },
  ],
  dependsOn: ['catalog'],
  entities: [Warehouse, StockLevel, StockAdjustment, StockReservation, VariantSetting],
  migrations: [inventoryMigration, warehouseSearchMigration, variantSettingsMigration],
  events: [...STOCK_EVENTS, ...WAREHOUSE_EVENTS],
  register(container) {
    // Stock is the warehouses' from now on: the catalog refuses inventory_quantity writes.
    container.register(STOCK_KEEPER, { useValue: { adjustWith: 'adjust it with POST /api/v1/inventory/warehouses/:id/stock/adjust' } satisfies StockKeeper });
    container.registerSingleton(StockLedger);
    container.registerSingleton(Warehouses);
    container.registerSingleton(Stock);
    container.registerSingleton(VariantSettings);
    container.registerSingleton(Reservations);
  },
  routes: async (app, { container }) => {
    await warehouseRoutes(app, container);
    await stockRoutes(app, container);
    await reservationRoutes(app, container);
    await variantSettingRoutes(app, container);
  },
});
