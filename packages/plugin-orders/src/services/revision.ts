import { randomUUID } from 'node:crypto';
import { AppError, type ErrorDetail, type Tx } from '@qhatu/core';
import { LineItem } from '../entities/line-item.js';
import type { Order, OrderStatus } from '../entities/order.js';
import { isCovered, waivedBy } from './ledger.js';
import { addHistoryNote, linesOf, lockOrder, move } from './lifecycle.js';
import type { LineOffersStrategy } from './offers.js';
import { NOTHING_TO_PAY, type Settlement } from './settlement.js';
import type { Shipping } from './shipping.js';

/** Orders whose lines and shipping may still change: nothing has left with a courier but what is fulfilled. */
export const REVISABLE: readonly OrderStatus[] = ['pending', 'confirmed', 'paid', 'ready_to_ship', 'partially_fulfilled'];

/** A line of an order after an edit, with its price, discount and tax as the edit worked them out. */
export interface RevisedLine {
  /** An existing line of the order; absent: a new line (then `variantId` and the catalog facts below). */
  lineId?: string;
  variantId?: string | null;
  productId?: string | null;
  title?: string;
  variantTitle?: string;
  sku?: string | null;
  requiresShipping?: boolean;
  quantity: number;
  /** A new line's unit price; an existing line keeps its snapshot's. */
  unitPrice?: number;
  /** A new line bought on a seller's offer (`LineOffers`); an existing line keeps its own. */
  offerId?: string | null;
  discount: number;
  tax: { taxClass: string; rate: number; amount: number };
}

/**
 * What an edit (the order-edits plugin) makes of an order: every line it keeps (an existing line
 * not named is removed), the new ones, the shipping. `basedOn` is the order's `updatedAt` when the
 * edit was previewed: any change since (a fulfilment, a payment, another edit) is 409 ORDER_CHANGED.
 */
export interface OrderRevision {
  basedOn: Date;
  lines: RevisedLine[];
  shipping: { total: number; tax: number };
  note: string;
}

/**
 * Applies a revision inside the caller's transaction, the order row locked: lines changed, added
 * and removed (a line keeps at least what was fulfilled of it), the stock the order holds moved to
 * what its lines now need (inventory's 409 INSUFFICIENT_STOCK when short; a seller's offer's stock
 * through `LineOffers`), the totals added up from the lines. What refunds outside an edit left a
 * paid order short of is first given up for good (`amountWaived`, `waivedBy`), so the edit moves
 * the money by its difference only. An order its payments covered that now costs more awaits
 * payment again (`reopen_payment`): it owes `total − amount_waived − (amount_paid −
 * amount_refunded)`. One awaiting payment that its payments now cover moves on as a payment would
 * move it.
 */
export async function reviseOrder(
  tx: Tx,
  deps: { shipping: Shipping; settlement: Settlement; offers: LineOffersStrategy },
  orderId: string,
  revision: OrderRevision,
): Promise<{ order: Order; lines: LineItem[] }> {
  const order = await lockOrder(tx, orderId);
  if (!REVISABLE.includes(order.status)) {
    throw new AppError(409, 'INVALID_STATE_TRANSITION', `Cannot edit an order that is ${order.status}`, [{ message: `allowed from: ${REVISABLE.join(', ')}`, from: order.status, action: 'edit' }]);
  }
  if (order.updatedAt.getTime() !== revision.basedOn.getTime()) {
    throw AppError.conflict('The order changed since this edit was previewed (a fulfilment, a payment or another edit); preview it again', 'ORDER_CHANGED', [
      { message: 'changed since the preview', order_updated_at: order.updatedAt.toISOString() },
    ]);
  }
  const current = await linesOf(tx, order.id);
  // A refund outside an edit (goodwill, a return's) stays given: the edit asks for, or sends back, its difference only.
  const waived = waivedBy(order);
  if (waived > 0) order.amountWaived += waived;
  const wasCovered = isCovered(order);
  const lines = applyLines(tx, order, current, revision.lines);
  await moveStock(tx, deps.shipping, order, lines);
  const subtotal = lines.reduce((s, l) => s + l.totalAmount, 0);
  const discountTotal = lines.reduce((s, l) => s + l.discountAmount, 0);
  const taxTotal = lines.reduce((s, l) => s + l.taxAmount, 0) + revision.shipping.tax;
  Object.assign(order, {
    subtotal, discountTotal, taxTotal, shippingTotal: revision.shipping.total, shippingTax: revision.shipping.tax,
    total: subtotal - discountTotal + revision.shipping.total + (order.pricesIncludeTax ? 0 : taxTotal),
  });
  // Never more given up than the order now costs: what was given beyond it is what its payments send back.
  order.amountWaived = Math.min(order.amountWaived, order.total);
  addHistoryNote(tx, order, revision.note);
  if ([...current, ...lines].some((l) => l.offerId)) await deps.offers.orderRevised(tx, order, lines);
  // Covered by its payments before (confirmed, paid, or further on), not after: it awaits what it owes.
  if (order.status !== 'pending' && wasCovered && !isCovered(order)) await move(tx, order, 'reopen_payment', revision.note);
  // Now covered (it costs less): it moves on as the payment that covers it would have moved it.
  else if (isCovered(order)) await deps.settlement.payIfCovered(tx, order, await lastPayment(tx, order.id), lines);
  return { order, lines };
}

/** The order's lines as the revision says: changed in place, new ones after the last, the rest removed (nothing fulfilled of them). */
function applyLines(tx: Tx, order: Order, current: LineItem[], revised: RevisedLine[]): LineItem[] {
  const byId = new Map(current.map((l) => [l.id, l]));
  const problems: ErrorDetail[] = [];
  const kept = new Set(revised.flatMap((r) => (r.lineId ? [r.lineId] : [])));
  revised.forEach((r, n) => {
    const line = r.lineId ? byId.get(r.lineId) : undefined;
    if (r.lineId && !line) problems.push({ path: `lines.${n}`, message: 'is not a line of this order', code: 'LINE_ITEM_NOT_FOUND', line_item_id: r.lineId });
    else if (line && r.quantity < line.fulfilledQuantity) problems.push({ path: `lines.${n}`, message: `${line.fulfilledQuantity} of it fulfilled already`, code: 'LINE_ITEM_FULFILLED', line_item_id: line.id });
  });
  for (const line of current.filter((l) => !kept.has(l.id) && l.fulfilledQuantity > 0)) {
    problems.push({ path: 'lines', message: `${line.fulfilledQuantity} of it fulfilled already: it cannot be removed`, code: 'LINE_ITEM_FULFILLED', line_item_id: line.id });
  }
  if (problems.length > 0) throw AppError.unprocessable(String(problems[0].code), 'The edit does not fit the order’s lines', problems);
  for (const line of current.filter((l) => !kept.has(l.id))) tx.em.remove(line);
  let position = current.reduce((max, l) => Math.max(max, l.position), -1);
  return revised.map((r) => {
    const tax = { taxClass: r.tax.taxClass, taxRate: r.tax.rate, taxAmount: r.tax.amount };
    if (r.lineId) {
      const line = byId.get(r.lineId)!;
      return Object.assign(line, { quantity: r.quantity, totalAmount: line.unitPriceAmount * r.quantity, discountAmount: r.discount, ...tax });
    }
    const unit = r.unitPrice ?? 0;
    return tx.em.create(LineItem, {
      id: randomUUID(), tenantId: tx.tenantId, orderId: order.id, position: ++position, variantId: r.variantId ?? null, productId: r.productId ?? null,
      title: r.title ?? '', variantTitle: r.variantTitle ?? '', sku: r.sku ?? null, quantity: r.quantity, fulfilledQuantity: 0, backorderedQuantity: 0,
      unitPriceAmount: unit, totalAmount: unit * r.quantity, requiresShipping: r.requiresShipping ?? true, discountAmount: r.discount, offerId: r.offerId ?? null, ...tax,
    });
  });
}

/** Gives back what the removed or reduced lines held, then holds what the lines now need (backordered where the variant allows). */
async function moveStock(tx: Tx, shipping: Shipping, order: Order, lines: LineItem[]): Promise<void> {
  const need = new Map<string, number>();
  for (const l of lines) if (l.variantId && l.requiresShipping && !l.offerId) need.set(l.variantId, (need.get(l.variantId) ?? 0) + l.quantity - l.fulfilledQuantity);
  const held = await shipping.held(tx, order.id);
  const surplus = [...held].map(([variantId, n]) => ({ variantId, quantity: n - (need.get(variantId) ?? 0) })).filter((l) => l.quantity > 0);
  if (surplus.length > 0) await shipping.release(tx, order.id, surplus);
  await shipping.reserveRest(tx, order, lines);
}

/** The last payment recorded for the order (what paid it, in its history), or none. */
async function lastPayment(tx: Tx, orderId: string): Promise<string> {
  const [row] = await tx.query<{ payment_id: string }>(
    'select payment_id from orders_payment where tenant_id = ? and order_id = ? order by recorded_at desc, payment_id desc limit 1',
    [tx.tenantId, orderId],
  );
  return row?.payment_id ?? NOTHING_TO_PAY;
}
