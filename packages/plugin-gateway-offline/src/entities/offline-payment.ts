import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { MethodKind } from './method.js';

/**
 * A payment made with an offline method: the method as it was when the shopper chose it (a method
 * changed or deleted later does not change what the shopper was told), and, once the store gives
 * the payment up, when it did.
 */
export const OfflinePayment = defineEntity({
  name: 'OfflinePayment',
  tableName: 'offline_payment',
  properties: {
    paymentId: p.uuid().primary(),
    tenantId: p.uuid(),
    methodId: p.uuid(),
    methodName: p.string(),
    methodKind: p.string().$type<MethodKind>(),
    instructions: p.text(),
    /** What the shopper said of the payment (an operation number, the payer's name), if anything. */
    payerReference: p.string().nullable(),
    /** Set when the payment is cancelled with nothing received: no receipt is taken for it after that. */
    cancelledAt: p.datetime().nullable(),
    createdAt: p.datetime(),
  },
});
export type OfflinePayment = InferEntity<typeof OfflinePayment>;
