import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** Money the store received for an offline payment, as its staff recorded it; voided, it no longer counts. */
export const OfflineReceipt = defineEntity({
  name: 'OfflineReceipt',
  tableName: 'offline_receipt',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    paymentId: p.uuid(),
    orderId: p.uuid(),
    methodId: p.uuid(),
    amount: p.bigint('number'),
    currency: p.string(),
    /** The bank's or wallet's operation number, the courier's slip: unique per method while it counts. */
    reference: p.string().nullable(),
    note: p.text().nullable(),
    receivedAt: p.datetime(),
    /** Who recorded it (the staff member or the API key). */
    recordedBy: p.uuid().nullable(),
    voidedAt: p.datetime().nullable(),
    voidReason: p.text().nullable(),
    voidedBy: p.uuid().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type OfflineReceipt = InferEntity<typeof OfflineReceipt>;
