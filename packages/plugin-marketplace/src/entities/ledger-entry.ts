import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const ENTRY_KINDS = ['sale', 'refund', 'return', 'revision'] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

/**
 * One split of an order's money: the store's part (`vendorId` null: its own lines, shipping) or a
 * vendor line's commission and payout. A sale when the order is paid; a refund (negative amounts)
 * for each part of the money given back; a return of a vendor's items (the returns plugin) moves that
 * line's worth from the vendor's commission and payout to the store, which gives it back (or keeps it
 * as store credit owed); a revision (an edit of the order) moves each part to the order's new
 * amounts. For a paid order, its entries add up to what it was paid, net of refunds, to the cent
 * (while an edit's difference is awaited: its total, net of refunds).
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
