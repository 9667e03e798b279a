import type { TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, fulfilledOrder, ok, product, requestReturn, returnedAndRefunded, returnsApp, shop, type Order, type Shop } from './helpers.js';

// Decision 0074: each returned unit gives back its part of what was paid for its line after the
// order's discounts (volume tiers, coupon), its part of the line's tax, and the shipping as the
// store's policy says; in several returns the parts add up to the order's total to the cent, and
// the money goes back through the order's payments (several, each partly).
let t: TestApp;
beforeAll(async () => {
  t = await returnsApp();
});
afterAll(async () => t?.close());

async function coupon(s: Shop, body: Record<string, unknown>): Promise<string> {
  const res = await s.admin('POST', '/api/v1/discounts/coupons', { code: `C${Math.random().toString(36).slice(2, 8)}`.toUpperCase(), ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().code;
}

/** A scarf at 20.00 (10 % off from 3), a poncho at 45.50, a 10 % coupon: 3 scarves and 2 ponchos with shipping, paid in two payments. */
async function sold(includeTax: boolean, policy: string) {
  const s = await shop(t, includeTax);
  await ok(await s.admin('PUT', '/api/v1/returns/settings', { shipping_refund: policy }), 200);
  const scarf = await product(s, 2000);
  const poncho = await product(s, 4550);
  await ok(await s.admin('POST', '/api/v1/discounts/volume', { product_id: scarf.productId, min_quantity: 3, value: 1000 }), 201);
  const code = await coupon(s, { type: 'percentage', value: 1000, min_order_amount: 10000 });
  const o = await fulfilledOrder(t, s, { line_items: [{ variant_id: scarf.variantId, quantity: 3 }, { variant_id: poncho.variantId, quantity: 2 }], shipping: { carrier: 'olva', service: 'standard' }, discount: { code } }, 2);
  expect(o.discount_total).toBeGreaterThan(600);
  expect(o.shipping_total).toBe(1500);
  return { s, o };
}

const net = (l: Record<string, number>) => l.total_amount - l.discount_amount;
/** What `units` of a line give back after `before` units, as the decision says (half up, cumulative). */
const part = (amount: number, before: number, units: number, of: number) => Math.floor((2 * amount * (before + units) + of) / (2 * of)) - Math.floor((2 * amount * before + of) / (2 * of));

for (const includeTax of [false, true]) {
  describe(`prices ${includeTax ? 'with' : 'without'} tax`, () => {
    it('three returns of every unit give back the order’s total to the cent, the shipping in proportion, through both payments', async () => {
      const { s, o } = await sold(includeTax, 'proportional');
      const [scarf, poncho] = o.line_items;
      const r1 = await requestReturn(s.admin, { order_id: o.id, lines: [{ line_item_id: scarf.id, quantity: 1 }, { line_item_id: poncho.id, quantity: 1 }] });
      const first = await returnedAndRefunded(s, r1);
      const goods = (l: Record<string, number>, b: number, u: number) => part(net(l), b, u, l.quantity) + (includeTax ? 0 : part(l.tax_amount, b, u, l.quantity));
      expect(first.lines.map((l: any) => l.refund_amount)).toEqual([goods(scarf, 0, 1), goods(poncho, 0, 1)]);
      expect(first.lines.map((l: any) => l.tax_amount)).toEqual([part(scarf.tax_amount, 0, 1, 3), part(poncho.tax_amount, 0, 1, 2)]);
      const shippingWhole = o.shipping_total + (includeTax ? 0 : o.shipping_tax);
      const value = net(scarf) + net(poncho);
      const worth1 = part(net(scarf), 0, 1, 3) + part(net(poncho), 0, 1, 2);
      expect(first.shipping_amount).toBe(Math.floor((2 * shippingWhole * worth1 + value) / (2 * value)));
      expect(first.refund_amount).toBe(first.items_amount + first.shipping_amount);

      const second = await returnedAndRefunded(s, await requestReturn(s.admin, { order_id: o.id, lines: [{ line_item_id: scarf.id, quantity: 2 }] }));
      expect(second.lines[0].refund_amount).toBe(goods(scarf, 1, 2));
      const third = await returnedAndRefunded(s, await requestReturn(s.admin, { order_id: o.id, lines: [{ line_item_id: poncho.id, quantity: 1 }] }));
      await t.settle();

      const total = first.refund_amount + second.refund_amount + third.refund_amount;
      expect(total).toBe(o.total);
      expect(first.shipping_amount + second.shipping_amount + third.shipping_amount).toBe(shippingWhole);
      const after = await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200);
      expect(after).toMatchObject({ status: 'refunded', amount_paid: o.total, amount_refunded: o.total });
      // Each refund went back through the payments, newest first, and both are refunded in full.
      const payments = (await ok(await s.admin('GET', `/api/v1/payments?filter[order_id]=${o.id}`), 200)) as Array<Record<string, any>>;
      expect(payments.map((p) => [p.status, p.refunded_amount === p.amount])).toEqual([['refunded', true], ['refunded', true]]);
      const refunds = await Promise.all([first, second, third].map(async (r) => (await ok(await s.admin('GET', `/api/v1/returns/${r.id}`), 200)).refunds));
      expect(refunds.flat().every((r: any) => r.status === 'refunded')).toBe(true);
      expect(refunds.flat().reduce((sum: number, r: any) => sum + r.amount, 0)).toBe(o.total);
      // Nothing is left to return.
      expectError(await s.admin('POST', '/api/v1/returns', { order_id: o.id, reason_code: 'wrong_size', lines: [{ line_item_id: scarf.id, quantity: 1 }] }), 422, 'RETURN_QUANTITY_EXCEEDED');
    });

    it('gives the shipping back with the return that brings the last unit back (full_return), and less when staff say so', async () => {
      const { s, o } = await sold(includeTax, 'full_return');
      const [scarf, poncho] = o.line_items;
      const first = await returnedAndRefunded(s, await requestReturn(s.admin, { order_id: o.id, lines: [{ line_item_id: scarf.id, quantity: 3 }] }));
      expect(first.shipping_amount).toBe(0);
      const r2 = await requestReturn(s.admin, { order_id: o.id, lines: [{ line_item_id: poncho.id, quantity: 2 }] });
      await ok(await s.admin('POST', `/api/v1/returns/${r2.id}/approve`), 200);
      await ok(await s.admin('POST', `/api/v1/returns/${r2.id}/receive`, { lines: [{ line_id: r2.lines[0].id, quantity: 2 }] }), 200);
      const worth = o.total - first.refund_amount;
      expectError(await s.admin('POST', `/api/v1/returns/${r2.id}/refund`, { amount: worth + 1 }), 422, 'REFUND_AMOUNT_TOO_HIGH');
      const kept = await ok(await s.admin('POST', `/api/v1/returns/${r2.id}/refund`, { amount: worth - 500, note: 'restocking fee' }), 200);
      expect(kept).toMatchObject({ shipping_amount: o.shipping_total + (includeTax ? 0 : o.shipping_tax), items_amount: worth - kept.shipping_amount, refund_amount: worth - 500 });
      await t.settle();
      const after: Order = await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200);
      // 5.00 kept: the order is not refunded in full, and shows what was.
      expect(after).toMatchObject({ status: 'fulfilled', amount_refunded: o.total - 500 });
    });
  });
}

describe('where the money goes', () => {
  it('as store credit without the store-credit plugin is 422 STORE_CREDIT_UNAVAILABLE, asked or at the refund (to an account without the B2B plugin, ACCOUNT_CREDIT_UNAVAILABLE)', async () => {
    const s = await shop(t, false);
    const a = await product(s, 1000);
    const o = await fulfilledOrder(t, s, { line_items: [{ variant_id: a.variantId, quantity: 2 }] });
    expectError(await s.admin('POST', '/api/v1/returns', { order_id: o.id, reason_code: 'wrong_size', refund_method: 'store_credit', lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }] }), 422, 'STORE_CREDIT_UNAVAILABLE');
    const r = await requestReturn(s.admin, { order_id: o.id, lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }] });
    await ok(await s.admin('POST', `/api/v1/returns/${r.id}/approve`), 200);
    await ok(await s.admin('POST', `/api/v1/returns/${r.id}/receive`, { lines: [{ line_id: r.lines[0].id, quantity: 1 }] }), 200);
    expectError(await s.admin('POST', `/api/v1/returns/${r.id}/refund`, { method: 'store_credit' }), 422, 'STORE_CREDIT_UNAVAILABLE');
    // No company accounts without the B2B plugin either.
    expectError(await s.admin('POST', `/api/v1/returns/${r.id}/refund`, { method: 'account' }), 422, 'ACCOUNT_CREDIT_UNAVAILABLE');
    // Nothing changed: the refund through the payment still works.
    expect((await ok(await s.admin('POST', `/api/v1/returns/${r.id}/refund`, {}), 200)).refund_amount).toBe(1180);
  });

  it('never more than the order’s payments can take back: 409 REFUND_EXCEEDS_PAYMENTS', async () => {
    const s = await shop(t, false);
    const a = await product(s, 1000);
    const o = await fulfilledOrder(t, s, { line_items: [{ variant_id: a.variantId, quantity: 2 }] });
    const payment = ((await ok(await s.admin('GET', `/api/v1/payments?filter[order_id]=${o.id}`), 200)) as Array<{ id: string }>)[0].id;
    // Staff refunded most of it by hand.
    await ok(await s.admin('POST', `/api/v1/payments/${payment}/refund`, { amount: o.total - 100 }), 201);
    const r = await requestReturn(s.admin, { order_id: o.id, lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }] });
    await ok(await s.admin('POST', `/api/v1/returns/${r.id}/approve`), 200);
    await ok(await s.admin('POST', `/api/v1/returns/${r.id}/receive`, { lines: [{ line_id: r.lines[0].id, quantity: 1 }] }), 200);
    const error = expectError(await s.admin('POST', `/api/v1/returns/${r.id}/refund`, {}), 409, 'REFUND_EXCEEDS_PAYMENTS');
    expect(error.details[0]).toMatchObject({ refundable: 100, amount: 1180 });
    expect((await ok(await s.admin('POST', `/api/v1/returns/${r.id}/refund`, { amount: 100 }), 200)).refund_amount).toBe(100);
  });
});
