import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** What changes a balance: credit given (`grant`), taken back by staff (`deduct`), paid with (`spend`), given back by a refund (`restore`). */
export const ENTRY_KINDS = ['grant', 'deduct', 'spend', 'restore'] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

/** One change of a customer's balance, signed (minor units), with the balance it left. Never changed once written. */
export const StoreCreditEntry = defineEntity({
  name: 'StoreCreditEntry',
  tableName: 'store_credit_entry',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    customerId: p.uuid(),
    currency: p.string(),
    kind: p.string().$type<EntryKind>(),
    amount: p.bigint('number'),
    balanceAfter: p.bigint('number'),
    reason: p.text(),
    /** What gave or took the credit: `return`, `staff`, `refund`, `payment`, `payment_refund`, or a plugin's own. */
    sourceType: p.string(),
    sourceId: p.string().nullable(),
    paymentId: p.uuid().nullable(),
    orderId: p.uuid().nullable(),
    /** Who made it (the staff member or API key), null when a process did. */
    createdBy: p.uuid().nullable(),
    createdAt: p.datetime(),
  },
});
export type StoreCreditEntry = InferEntity<typeof StoreCreditEntry>;
