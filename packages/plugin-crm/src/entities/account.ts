import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A company the store sells to; contacts and deals belong to it. */
export const Account = defineEntity({
  name: 'CrmAccount',
  tableName: 'crm_account',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    ownerId: p.uuid().nullable(),
    name: p.string(),
    domain: p.string().nullable(),
    industry: p.string().nullable(),
    phone: p.string().nullable(),
    website: p.string().nullable(),
    tags: p.json<string[]>(),
    metadata: p.json<Record<string, unknown>>(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Account = InferEntity<typeof Account>;
