import type { Tx } from '@qhatu/core';
import type { Order } from '@qhatu/plugin-orders';
import type { Return, ReturnLine } from '../entities/return.js';
import { lineRefund, shippingRefund } from './amounts.js';
import { linesOfOrder } from './common.js';
import type { ReturnSettingsView } from './settings.js';

/** What a return is worth back (decision 0074): each of its lines, their tax, and the shipping the store's policy gives back. */
export interface Valuation {
  lines: Map<string, { amount: number; tax: number }>;
  items: number;
  tax: number;
  shipping: { amount: number; tax: number };
}

/** The units of a return line that count: what came back (a claim: what it claims; before a receipt: what was asked). */
export const unitsOf = (ret: Return, l: ReturnLine) => (ret.kind === 'claim' || ret.status === 'requested' || ret.status === 'approved' ? l.quantity : l.receivedQuantity);

/**
 * Worth of `ret`'s returned lines after the units of each order line other returns were valued
 * at (those with `refunded_at`), so that the shares of one line over many returns add up to what
 * was paid for it; read under the order's lock.
 */
export async function valueReturn(tx: Tx, settings: ReturnSettingsView, order: Order, ret: Return, lines: ReturnLine[]): Promise<Valuation> {
  const orderLines = await linesOfOrder(tx, order.id);
  const rows = await tx.query<{ line_item_id: string; units: string }>(
    `select l.line_item_id, sum(l.quantity) as units from returns_line l
       join returns_return r on r.tenant_id = l.tenant_id and r.id = l.return_id
      where l.tenant_id = ? and l.order_id = ? and l.kind = 'returned' and r.refunded_at is not null and r.id <> ?
      group by l.line_item_id`,
    [tx.tenantId, order.id, ret.id],
  );
  const before = new Map(rows.map((r) => [r.line_item_id, Number(r.units)]));
  const running = new Map(before);
  const now = new Map<string, number>();
  const out: Valuation = { lines: new Map(), items: 0, tax: 0, shipping: { amount: 0, tax: 0 } };
  for (const l of lines.filter((x) => x.kind === 'returned')) {
    const orderLine = orderLines.find((o) => o.id === l.lineItemId);
    const units = unitsOf(ret, l);
    if (!orderLine || units === 0) {
      out.lines.set(l.id, { amount: 0, tax: 0 });
      continue;
    }
    const done = running.get(orderLine.id) ?? 0;
    const value = lineRefund(orderLine, order.pricesIncludeTax, done, units);
    running.set(orderLine.id, done + units);
    now.set(orderLine.id, (now.get(orderLine.id) ?? 0) + units);
    out.lines.set(l.id, value);
    out.items += value.amount;
    out.tax += value.tax;
  }
  out.shipping = shippingRefund(settings.shippingRefund, { shippingTotal: order.shippingTotal, shippingTax: order.shippingTax, pricesIncludeTax: order.pricesIncludeTax, lines: orderLines }, before, now);
  return out;
}

/**
 * An exchange's money: what came back (items and shipping) against the new items. `due` is what
 * the customer still has to pay (beyond what they paid for the exchange already), `refund` what
 * goes back to them.
 */
export async function exchangeDifference(tx: Tx, settings: ReturnSettingsView, order: Order, ret: Return, lines: ReturnLine[]) {
  const valuation = await valueReturn(tx, settings, order, ret, lines);
  const worth = valuation.items + valuation.shipping.amount;
  const owed = ret.newItemsAmount - worth;
  return { valuation, due: Math.max(0, owed - ret.amountPaid), refund: Math.max(0, -owed) + Math.max(0, ret.amountPaid - Math.max(0, owed)) };
}
