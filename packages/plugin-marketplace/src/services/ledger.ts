import { randomUUID } from 'node:crypto';
import { AppError, Database, type Tx } from '@qhatu/core';
import { allocate, LineItem, Order } from '@qhatu/plugin-orders';
import { inject, injectable } from 'tsyringe';
import { LedgerEntry } from '../entities/ledger-entry.js';
import type { OfferHold } from '../entities/offer-hold.js';
import { publish } from './events.js';
import { commissionOf } from './money.js';
import { Payouts } from './payouts.js';

/** Entries that split the order's total: its sale, and what edits of it changed. */
const splits = (e: LedgerEntry) => e.kind === 'sale' || e.kind === 'revision';

/** The three parts an entry splits money into. */
const PARTS = ['storeAmount', 'commission', 'payout'] as const;

/**
 * What the returns of an order gave back (the returns plugin registers it under `RETURNED_LINES`):
 * per order line, the worth of its units that came back, cumulative; `total` adds the shipping
 * given back with them. Counted once the return's refund is worked out, whichever way the money
 * goes (the order's payments, store credit).
 */
export interface ReturnedLines {
  ofOrder(tx: Tx, orderId: string): Promise<{ byLine: Map<string, number>; total: number }>;
}

export const RETURNED_LINES = Symbol.for('qhatu.marketplace.returned-lines');

/** An order's money as the marketplace split it. */
export interface Settlement {
  order: Order;
  entries: LedgerEntry[];
}

/**
 * The marketplace's ledger. When an order with vendors' lines is paid, its total is split: each
 * vendor line's amount (what the customer paid for it after its discounts, tax included) gives the
 * commission at the rate agreed when the order was placed (rounded half up to the minor unit) and
 * the vendor's payout (the rest); the store keeps the remainder of the total (its own lines and
 * the shipping). Money given back is taken off every part in proportion to what is left of it
 * (`allocate`: largest remainders), so the parts always add up to what the customer paid, net of
 * refunds, to the cent. Runs inside the orders' transactions, the order locked.
 */
@injectable()
export class Ledger {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Payouts) private readonly payouts: Payouts,
    /** The returns plugin's account of returned lines, when it is installed. */
    private readonly returned: ReturnedLines | null = null,
  ) {}

  /**
   * Brings the order's entries in line with its money: the sale once paid, an edit's new amounts
   * (`revised`: the order's lines after it), each returned vendor line's worth moved to the store,
   * then any refund since: first out of what returns left with the store, the rest from every part
   * in proportion. Safe to repeat.
   */
  async follow(tx: Tx, order: Order, holds: OfferHold[], revised?: LineItem[]): Promise<void> {
    const entries = await tx.em.find(LedgerEntry, { orderId: order.id }, { orderBy: { createdAt: 'asc', id: 'asc' } });
    if (!entries.some((e) => e.kind === 'sale')) entries.push(...(await this.recordSale(tx, order, holds, revised)));
    else if (revised) entries.push(...(await this.recordRevision(tx, order, entries, holds, revised)));
    const returned = this.returned ? await this.returned.ofOrder(tx, order.id) : { byLine: new Map<string, number>(), total: 0 };
    if (returned.byLine.size > 0) entries.push(...(await this.recordReturns(tx, order, entries, returned.byLine)));
    const net = entries.reduce((sum, e) => sum + e.storeAmount + e.commission + e.payout, 0);
    // What refunds took from the order's total: first out of any payment above it (not the
    // marketplace's); what an edit left due is owed, not given back.
    const target = Math.min(order.total, Math.max(0, order.amountRefunded - Math.max(0, order.amountPaid - order.total)));
    let amount = target - (order.total - net);
    // A return's money comes out of what its lines left with the store, never again from the vendors.
    const consumed = -entries.filter((e) => e.kind === 'return' && !e.lineItemId).reduce((sum, e) => sum + e.storeAmount, 0);
    const held = Math.max(0, returned.total - consumed);
    if (amount > 0 && held > 0) {
      const take = Math.min(amount, held);
      entries.push(this.entry(tx, order, 'return', { storeAmount: -take }, tx.now()));
      amount -= take;
    }
    if (amount !== 0) await this.recordRefund(tx, order, entries, amount);
  }

  /** Each returned vendor line's worth not moved yet goes from its commission and payout (in proportion to what is left of them) to the store. */
  private async recordReturns(tx: Tx, order: Order, entries: LedgerEntry[], byLine: Map<string, number>): Promise<LedgerEntry[]> {
    const at = tx.now();
    const added: LedgerEntry[] = [];
    for (const [lineItemId, worth] of byLine) {
      const group = entries.filter((e) => e.lineItemId === lineItemId);
      const sale = group.find(splits);
      if (!sale?.vendorId) continue;
      const moved = group.filter((e) => e.kind === 'return').reduce((sum, e) => sum + e.storeAmount, 0);
      const left = { commission: group.reduce((sum, e) => sum + e.commission, 0), payout: group.reduce((sum, e) => sum + e.payout, 0) };
      const move = Math.min(worth - moved, left.commission + left.payout);
      if (move <= 0) continue;
      const [commission, payout] = allocate(move, [left.commission, left.payout]);
      const entry = this.entry(tx, order, 'return', { lineItemId, vendorId: sale.vendorId, offerId: sale.offerId, commissionBps: sale.commissionBps, storeAmount: move, commission: -commission, payout: -payout }, at);
      entry.payoutId = await this.payouts.gather(tx, sale.vendorId, order.currency, -payout);
      added.push(entry);
    }
    if (added.length > 0) publish(tx, 'marketplace.commission.reversed', { ...moneyData(order, added), amount: 0, reason: 'return' });
    return added;
  }

  /**
   * After an edit: each vendor line's worth as the order's lines now say (a removed line's: none)
   * at the commission agreed when it was held, the store's the rest of the new total; entries of
   * kind `revision` for the differences, so that the sale and its revisions add up to the total.
   */
  private async recordRevision(tx: Tx, order: Order, entries: LedgerEntry[], holds: OfferHold[], lines: LineItem[]): Promise<LedgerEntry[]> {
    const now = new Map(lines.map((l) => [l.id, l]));
    const split = entries.filter(splits);
    const at = tx.now();
    const added: LedgerEntry[] = [];
    let vendors = 0;
    for (const hold of holds) {
      const line = now.get(hold.lineItemId);
      const amount = line ? lineAmount(order, line) : 0;
      vendors += amount;
      const commission = commissionOf(amount, hold.commissionBps);
      const before = split.filter((e) => e.lineItemId === hold.lineItemId);
      const parts = { commission: commission - before.reduce((s, e) => s + e.commission, 0), payout: amount - commission - before.reduce((s, e) => s + e.payout, 0) };
      if (parts.commission === 0 && parts.payout === 0) continue;
      added.push(this.entry(tx, order, 'revision', { lineItemId: hold.lineItemId, vendorId: hold.vendorId, offerId: hold.offerId, commissionBps: hold.commissionBps, ...parts }, at));
    }
    const store = order.total - vendors - split.reduce((s, e) => s + e.storeAmount, 0);
    if (store !== 0) added.unshift(this.entry(tx, order, 'revision', { storeAmount: store }, at));
    for (const e of added) if (e.vendorId) e.payoutId = await this.payouts.gather(tx, e.vendorId, order.currency, e.payout);
    if (added.length > 0) publish(tx, 'marketplace.commission.revised', moneyData(order, added));
    return added;
  }

  private async recordSale(tx: Tx, order: Order, holds: OfferHold[], known?: LineItem[]): Promise<LedgerEntry[]> {
    const lines = known ?? (await tx.em.find(LineItem, { orderId: order.id }, { orderBy: { position: 'asc' } }));
    const byLine = new Map(holds.map((h) => [h.lineItemId, h]));
    const at = tx.now();
    const entries: LedgerEntry[] = [];
    let vendors = 0;
    for (const line of lines) {
      const hold = byLine.get(line.id);
      if (!hold) continue;
      const amount = lineAmount(order, line);
      const commission = commissionOf(amount, hold.commissionBps);
      vendors += amount;
      entries.push(this.entry(tx, order, 'sale', { lineItemId: line.id, vendorId: hold.vendorId, offerId: hold.offerId, commissionBps: hold.commissionBps, commission, payout: amount - commission }, at));
    }
    entries.unshift(this.entry(tx, order, 'sale', { storeAmount: order.total - vendors }, at));
    for (const e of entries) if (e.vendorId) e.payoutId = await this.payouts.gather(tx, e.vendorId, order.currency, e.payout);
    publish(tx, 'marketplace.commission.recorded', moneyData(order, entries));
    return entries;
  }

  /** `amount` more given back (negative: taken again), spread over what is left of each part. */
  private async recordRefund(tx: Tx, order: Order, entries: LedgerEntry[], amount: number): Promise<void> {
    const groups = new Map<string, LedgerEntry[]>();
    for (const e of entries) groups.set(e.lineItemId ?? '', [...(groups.get(e.lineItemId ?? '') ?? []), e]);
    const keys = [...groups.keys()];
    const parts = keys.flatMap((key) => {
      const group = groups.get(key)!;
      return PARTS.map((part) => {
        const left = group.reduce((sum, e) => sum + e[part], 0);
        const sold = group.filter(splits).reduce((sum, e) => sum + e[part], 0);
        // A returned line's worth moved to the store is never negative weight.
        return Math.max(0, amount > 0 ? left : sold - left);
      });
    });
    const shares = allocate(Math.abs(amount), parts);
    const sign = amount > 0 ? -1 : 1;
    const at = tx.now();
    const added: LedgerEntry[] = [];
    keys.forEach((key, g) => {
      const [storeAmount, commission, payout] = shares.slice(g * 3, g * 3 + 3).map((s) => sign * s);
      if (storeAmount === 0 && commission === 0 && payout === 0) return;
      const sale = groups.get(key)!.find(splits)!;
      added.push(this.entry(tx, order, 'refund', { lineItemId: sale.lineItemId, vendorId: sale.vendorId, offerId: sale.offerId, commissionBps: sale.commissionBps, storeAmount, commission, payout }, at));
    });
    for (const e of added) if (e.vendorId) e.payoutId = await this.payouts.gather(tx, e.vendorId, order.currency, e.payout);
    publish(tx, 'marketplace.commission.reversed', { ...moneyData(order, added), amount: -sign * Math.abs(amount) });
  }

  private entry(tx: Tx, order: Order, kind: LedgerEntry['kind'], parts: Partial<LedgerEntry>, at: Date): LedgerEntry {
    return tx.em.create(LedgerEntry, {
      id: randomUUID(),
      tenantId: tx.tenantId,
      orderId: order.id,
      lineItemId: null,
      vendorId: null,
      offerId: null,
      payoutId: null,
      commissionBps: null,
      storeAmount: 0,
      commission: 0,
      payout: 0,
      ...parts,
      kind,
      currency: order.currency,
      createdAt: at,
    });
  }

  /** The order's split (404 SETTLEMENT_NOT_FOUND while it has none: not paid, or no vendor's line). */
  async settlement(orderId: string): Promise<Settlement> {
    return this.db.tenant(async ({ em }) => {
      const entries = await em.find(LedgerEntry, { orderId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
      const order = entries.length ? await em.findOne(Order, { id: orderId }) : null;
      if (!order) throw AppError.notFound('Settlement', 'SETTLEMENT_NOT_FOUND');
      return { order, entries };
    });
  }
}

/** What the customer pays for a line: after its discounts, with its tax. */
const lineAmount = (order: Order, line: LineItem) => line.totalAmount - line.discountAmount + (order.pricesIncludeTax ? 0 : line.taxAmount);

/** Sums of entries: the store's, each vendor's. */
export function sums(entries: LedgerEntry[]) {
  const vendors = new Map<string, { commission: number; payout: number }>();
  let store = 0;
  for (const e of entries) {
    store += e.storeAmount;
    if (!e.vendorId) continue;
    const v = vendors.get(e.vendorId) ?? { commission: 0, payout: 0 };
    v.commission += e.commission;
    v.payout += e.payout;
    vendors.set(e.vendorId, v);
  }
  return { store, vendors };
}

function moneyData(order: Order, entries: LedgerEntry[]): Record<string, unknown> {
  const { store, vendors } = sums(entries);
  return {
    order_id: order.id,
    currency: order.currency,
    store_amount: store,
    vendors: [...vendors].map(([vendor_id, v]) => ({ vendor_id, commission: v.commission, payout: v.payout })),
  };
}
