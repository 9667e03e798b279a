import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const DEFAULT_SQL_THRESHOLD = 60;

/** A store's CRM settings; a store without a row has the defaults. */
export const CrmSettings = defineEntity({
  name: 'CrmSettings',
  tableName: 'crm_settings',
  properties: {
    tenantId: p.uuid().primary(),
    sqlThreshold: p.integer(),
    updatedAt: p.datetime(),
  },
});
export type CrmSettings = InferEntity<typeof CrmSettings>;
