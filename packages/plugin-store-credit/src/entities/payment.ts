import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** What the ledger answered a store-credit payment: the debit that paid it, or why there is none. */
export const StoreCreditPayment = defineEntity({
  name: 'StoreCreditPayment',
  tableName: 'store_credit_payment',
  properties: {
    paymentId: p.uuid().primary(),
    tenantId: p.uuid(),
    entryId: p.uuid().nullable(),
    failureReason: p.text().nullable(),
    createdAt: p.datetime(),
  },
});
export type StoreCreditPayment = InferEntity<typeof StoreCreditPayment>;
