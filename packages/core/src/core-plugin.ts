import { coreMigrations } from './db/core-migrations.js';
import { coreEntities } from './db/entities.js';
import { definePlugin } from './plugin.js';
import { tenantMachine } from './tenancy/tenant-machine.js';

/** What core itself brings as a plugin: tenants, access tokens, the outbox and idempotency keys. */
export const corePlugin = definePlugin({
  name: 'core',
  entities: coreEntities,
  migrations: coreMigrations,
  machines: [tenantMachine],
  events: ['tenants.tenant.suspended', 'tenants.tenant.activated', 'tenants.tenant.expired'],
});
