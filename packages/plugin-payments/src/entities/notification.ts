import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A provider's notification, once verified: its event id makes a replay or a duplicate harmless. */
export const Notification = defineEntity({
  name: 'PaymentNotification',
  tableName: 'payments_notification',
  properties: {
    tenantId: p.uuid().primary(),
    gateway: p.string().primary(),
    eventId: p.string().primary(),
    paymentId: p.uuid().nullable(),
    receivedAt: p.datetime(),
  },
});
export type Notification = InferEntity<typeof Notification>;
