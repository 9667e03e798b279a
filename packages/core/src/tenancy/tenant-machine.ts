import type { Tenant } from '../db/entities.js';
import { TENANT_STATUSES, type TenantStatus } from '../db/entities.js';
import { defineMachine } from '../machines/machine.js';

/** A store's life: trial and expired come from billing; the platform suspends and activates. */
export const tenantMachine = defineMachine<Tenant, TenantStatus>({
  name: 'tenant',
  field: 'status',
  states: TENANT_STATUSES,
  transitions: {
    suspend: { from: ['active', 'trial', 'expired'], to: 'suspended', event: 'tenants.tenant.suspended' },
    activate: { from: ['suspended', 'trial', 'expired'], to: 'active', event: 'tenants.tenant.activated' },
    expire: { from: ['trial'], to: 'expired', event: 'tenants.tenant.expired' },
  },
});
