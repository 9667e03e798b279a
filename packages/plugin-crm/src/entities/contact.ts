import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A person the store deals with; made by hand or by converting a lead (`lead_id`). */
export const Contact = defineEntity({
  name: 'CrmContact',
  tableName: 'crm_contact',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    accountId: p.uuid().nullable(),
    ownerId: p.uuid().nullable(),
    leadId: p.uuid().nullable(),
    email: p.string().nullable(),
    firstName: p.string().nullable(),
    lastName: p.string(),
    phone: p.string().nullable(),
    jobTitle: p.string().nullable(),
    tags: p.json<string[]>(),
    metadata: p.json<Record<string, unknown>>(),
    lastActivityAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Contact = InferEntity<typeof Contact>;
