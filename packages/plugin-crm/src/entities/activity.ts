import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const ACTIVITY_TYPES = ['call', 'email', 'meeting', 'note'] as const;
export type ActivityType = (typeof ACTIVITY_TYPES)[number];

/** A call, e-mail, meeting or note about a lead, or about the contact it became. */
export const Activity = defineEntity({
  name: 'CrmActivity',
  tableName: 'crm_activity',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    entityKind: p.string().$type<'lead' | 'contact'>(),
    entityId: p.uuid(),
    type: p.string().$type<ActivityType>(),
    subject: p.string(),
    body: p.string().nullable(),
    occurredAt: p.datetime(),
    recordedBy: p.uuid().nullable(),
    createdAt: p.datetime(),
  },
});
export type Activity = InferEntity<typeof Activity>;
