import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'dead'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One event for one subscription: the signed request, made once and sent as often as needed. */
export const Delivery = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhooks_delivery',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    subscriptionId: p.uuid(),
    eventId: p.uuid(),
    eventType: p.string(),
    /** The exact body sent, and the headers signed with it. */
    body: p.text(),
    signedAt: p.integer(),
    signature: p.string(),
    status: p.string().$type<DeliveryStatus>(),
    attempts: p.integer(),
    responseStatus: p.integer().nullable(),
    lastError: p.string().nullable(),
    nextAttemptAt: p.datetime().nullable(),
    lockedUntil: p.datetime().nullable(),
    deliveredAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Delivery = InferEntity<typeof Delivery>;

export const Attempt = defineEntity({
  name: 'WebhookAttempt',
  tableName: 'webhooks_attempt',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    deliveryId: p.uuid(),
    number: p.integer(),
    trigger: p.string().$type<'automatic' | 'manual'>(),
    startedAt: p.datetime(),
    durationMs: p.integer(),
    responseStatus: p.integer().nullable(),
    error: p.string().nullable(),
  },
});
export type Attempt = InferEntity<typeof Attempt>;
