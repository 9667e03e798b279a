import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const ENTRY_KINDS = ['sale', 'refund'] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

/**
 * One split of an order's money: the store's part (`vendorId` null: its own lines, shipping) or a
 * vendor line's commission and payout. A sale when the order is paid; a refund (negative amounts)
 * for each part of the money given back. For a paid order, its entries add up to what it was paid,
 * net of refunds, to the cent.
 */
export const LedgerEntry = defineEntity({
  name: 'MarketplaceLedgerEntry',
  tableName: 'marketplace_ledger_entry',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    orderId: p.uuid(),
    lineItemId: p.uuid().nullable(),
    vendorId: p.uuid().nullable(),
    offerId: p.uuid().nullable(),
    payoutId: p.uuid().nullable(),
    kind: p.string().$type<EntryKind>(),
    currency: p.string(),
    storeAmount: p.bigint('number'),
    commission: p.bigint('number'),
    payout: p.bigint('number'),
    commissionBps: p.integer().nullable(),
    createdAt: p.datetime(),
  },
});
export type LedgerEntry = InferEntity<typeof LedgerEntry>;
