import type { Tx } from '@qhatu/core';
import { CollectionProduct } from '@qhatu/plugin-catalog';
import { Coupon, couponTermsIn, Redemption, type OrderLine, type Refusal } from '@qhatu/plugin-discounts';
import { allocate } from '@qhatu/plugin-orders';
import type { EditCoupon, EditLine } from '../entities/order-edit.js';

/** The coupon an order was sold with (its use not given back), or null. */
export async function couponOf(tx: Tx, orderId: string): Promise<Coupon | null> {
  const [use] = await tx.em.find(Redemption, { orderId, releasedAt: null }, { orderBy: { createdAt: 'asc', id: 'asc' }, limit: 1 });
  return use ? tx.em.findOne(Coupon, { id: use.couponId }) : null;
}

/** What the coupon took off the order before this edit: as the last confirmed edit left it, else as it was used. */
export async function couponBefore(tx: Tx, orderId: string, coupon: Coupon, lastEdit: EditCoupon | null | undefined): Promise<EditCoupon> {
  if (lastEdit?.code === coupon.code) return lastEdit;
  const [use] = await tx.em.find(Redemption, { orderId, couponId: coupon.id, releasedAt: null }, { limit: 1 });
  return { code: coupon.code, applies: true, refusal: null, amount: use?.amount ?? 0 };
}

/**
 * The order's coupon judged again on the edited lines, as the checkout judges a cart's (decision
 * 0070): each catalog line at what it costs after its volume tier now, the coupon's minimum on what
 * they come to, a product or collection coupon on its lines, a percentage of the new amount or the
 * fixed amount at most; then spread over the lines in proportion (a product coupon over its
 * products' lines), adding up exactly. The coupon was used when the order was placed: when it was
 * used, how often and by whom are not judged again. Each live line's discount becomes its volume
 * discount plus its share; returns the coupon as it now stands.
 */
export async function rediscount(tx: Tx, coupon: Coupon, lines: EditLine[], volume: (line: EditLine) => number, currency: string): Promise<EditCoupon> {
  const live = lines.filter((l) => l.quantity > 0);
  const weights = live.map((l) => l.unit_price * l.quantity - volume(l));
  const orderAmount = weights.reduce((s, w) => s + w, 0);
  const items: OrderLine[] = live.flatMap((l, n) => (l.product_id ? [{ productId: l.product_id, quantity: 1, unitPrice: weights[n] }] : []));
  const verdict = await judge(tx, coupon, orderAmount, items, currency);
  const eligible = coupon.applicableTo === 'products' ? weights.map((w, n) => (live[n].product_id && coupon.applicableIds.includes(live[n].product_id!) ? w : 0)) : weights;
  const shares = allocate(verdict.amount, eligible.some((w) => w > 0) ? eligible : weights);
  live.forEach((l, n) => {
    l.discount_amount = volume(l) + shares[n];
    l.total = l.unit_price * l.quantity - l.discount_amount;
  });
  return { code: coupon.code, applies: verdict.refusal === null, refusal: verdict.refusal, amount: verdict.amount };
}

/** The discounts plugin's rules that depend on the order's lines: the minimum, the products, the amount (integer minor units). */
async function judge(tx: Tx, coupon: Coupon, orderAmount: number, items: OrderLine[], currency: string): Promise<{ amount: number; refusal: Refusal | null }> {
  // The coupon's value and minimum in the order's currency (decision 0097); none there: it no longer applies.
  const terms = await couponTermsIn(tx, coupon, currency);
  if (!terms) return { amount: 0, refusal: 'currency_mismatch' };
  if (orderAmount < terms.minOrderAmount) return { amount: 0, refusal: 'min_order_amount_not_met' };
  let base = orderAmount;
  if (coupon.applicableTo !== 'all') {
    const products = [...new Set(items.map((i) => i.productId))];
    const eligible =
      coupon.applicableTo === 'products'
        ? new Set(products.filter((id) => coupon.applicableIds.includes(id)))
        : new Set((await tx.em.find(CollectionProduct, { collectionId: { $in: coupon.applicableIds }, productId: { $in: products } }, { fields: ['productId'] })).map((r) => r.productId));
    if (eligible.size === 0) return { amount: 0, refusal: 'not_applicable' };
    base = Math.min(orderAmount, items.filter((i) => eligible.has(i.productId)).reduce((s, i) => s + i.quantity * i.unitPrice, 0));
  }
  const amount = coupon.type === 'percentage' ? Number((BigInt(base) * BigInt(Math.min(terms.value, 10_000))) / 10_000n) : Math.min(terms.value, base);
  return { amount, refusal: null };
}
