import type { ShippingRefundPolicy } from '../entities/settings.js';

/** `amount × part / whole`, rounded half up to the minor unit, in exact integers. */
export function share(amount: number, part: number, whole: number): number {
  if (whole <= 0 || amount <= 0 || part <= 0) return 0;
  const num = BigInt(amount) * BigInt(Math.min(part, whole));
  return Number((2n * num + BigInt(whole)) / (2n * BigInt(whole)));
}

/**
 * What `units` more of `whole` give back of `amount` when `before` were given back already: the
 * difference of the shares before and after, so that giving back every unit, in any number of
 * returns, gives back exactly `amount`.
 */
export function nextShare(amount: number, whole: number, before: number, units: number): number {
  return share(amount, before + units, whole) - share(amount, before, whole);
}

/** An order line as far as its money goes (the orders plugin's snapshot). */
export interface LineMoney {
  id: string;
  quantity: number;
  totalAmount: number;
  discountAmount: number;
  taxAmount: number;
}

/** What was paid for a line after its share of the order's discounts, tax included where the prices include it. */
const netOf = (l: LineMoney) => Math.max(0, l.totalAmount - l.discountAmount);

/**
 * What `units` of a line give back, `before` of its units having been given back by earlier
 * returns: their part of what was paid for the line after discounts, and their part of its tax
 * (added when prices exclude tax; inside the amount when they include it).
 */
export function lineRefund(line: LineMoney, pricesIncludeTax: boolean, before: number, units: number): { amount: number; tax: number } {
  const goods = nextShare(netOf(line), line.quantity, before, units);
  const tax = nextShare(line.taxAmount, line.quantity, before, units);
  return { amount: pricesIncludeTax ? goods : goods + tax, tax };
}

/** The order's shipping as far as a refund of it goes. */
export interface ShippingMoney {
  shippingTotal: number;
  shippingTax: number;
  pricesIncludeTax: boolean;
  lines: LineMoney[];
}

/**
 * The order's shipping a return gives back, as the store's policy says: `none`; `proportional`,
 * the shipping's share of the value of the goods returned so far (cumulative, so every share adds
 * up to the whole shipping once everything came back); `full_return`, all of it with the return
 * after which every unit of the order was returned. `before` and `now`: units per order line.
 */
export function shippingRefund(policy: ShippingRefundPolicy, order: ShippingMoney, before: Map<string, number>, now: Map<string, number>): { amount: number; tax: number } {
  const whole = order.shippingTotal + (order.pricesIncludeTax ? 0 : order.shippingTax);
  const nothing = { amount: 0, tax: 0 };
  if (policy === 'none' || whole <= 0) return nothing;
  const after = new Map(order.lines.map((l) => [l.id, (before.get(l.id) ?? 0) + (now.get(l.id) ?? 0)]));
  if (policy === 'full_return') {
    const all = (units: Map<string, number>) => order.lines.every((l) => (units.get(l.id) ?? 0) >= l.quantity);
    return all(after) && !all(before) ? { amount: whole, tax: order.shippingTax } : nothing;
  }
  const value = order.lines.reduce((s, l) => s + netOf(l), 0);
  const worth = (units: Map<string, number>) => order.lines.reduce((s, l) => s + share(netOf(l), units.get(l.id) ?? 0, l.quantity), 0);
  const [was, is] = [worth(before), worth(after)];
  return { amount: share(whole, is, value) - share(whole, was, value), tax: share(order.shippingTax, is, value) - share(order.shippingTax, was, value) };
}
