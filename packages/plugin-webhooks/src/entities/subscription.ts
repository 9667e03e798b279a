import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const Subscription = defineEntity({
  name: 'WebhookSubscription',
  tableName: 'webhooks_subscription',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    url: p.string(),
    events: p.json<string[]>(),
    description: p.string().nullable(),
    enabled: p.boolean(),
    /** Sealed with core's Secrets; never returned after creation. */
    secretSealed: p.string(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Subscription = InferEntity<typeof Subscription>;
