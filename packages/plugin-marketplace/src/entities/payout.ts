import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const PAYOUT_STATUSES = ['pending', 'processing', 'paid', 'failed'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/**
 * What the store owes a vendor in one currency: `pending` gathers the vendor's ledger entries as
 * orders are paid and refunded (one pending payout per vendor and currency); the store then moves
 * it to `processing`, `paid` (with its transfer reference) or `failed`.
 */
export const Payout = defineEntity({
  name: 'MarketplacePayout',
  tableName: 'marketplace_payout',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    vendorId: p.uuid(),
    status: p.string().$type<PayoutStatus>(),
    currency: p.string(),
    /** Minor units: the sum of its entries' payout amounts (refunds negative). */
    amount: p.bigint('number'),
    entryCount: p.integer(),
    reference: p.string().nullable(),
    failureReason: p.string().nullable(),
    processingAt: p.datetime().nullable(),
    paidAt: p.datetime().nullable(),
    failedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Payout = InferEntity<typeof Payout>;
