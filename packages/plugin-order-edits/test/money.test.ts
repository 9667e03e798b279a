import type { TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editApp, ok, order, outbox, pay, preview, product, shop, type Shop } from './helpers.js';

// The difference, once an order was paid: less is refunded through the order's own payments (a
// job on the confirmation), more is asked for (the order awaits the difference and is paid again
// when it comes in). The order's money adds up to its total to the cent either way.
let t: TestApp;
let s: Shop;
beforeAll(async () => {
  t = await editApp({ workers: true });
  s = await shop(t, false);
});
afterAll(async () => t?.close());

async function paidOrder() {
  const a = await product(s, 2000);
  const b = await product(s, 4550);
  const c = await product(s, 1000);
  const o = await order(s, {
    line_items: [{ variant_id: a.variantId, quantity: 3 }, { variant_id: b.variantId, quantity: 2 }, { title: 'Engraving', unit_price: 500, quantity: 1, tax_class: 'reduced', requires_shipping: false }],
    shipping: { carrier: 'olva', service: 'standard' },
  });
  const payment = await pay(s, o.id, o.total);
  await t.settle();
  const paid = await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200);
  expect(paid).toMatchObject({ status: 'paid', amount_paid: o.total, amount_due: 0 });
  return { o: paid, payment, c };
}

describe('an edit of a paid order', () => {
  it('that costs less refunds the difference through its payment', async () => {
    const { o, payment } = await paidOrder();
    const [lineA, , engraving] = o.line_items;
    const edit = await preview(s, o.id, { changes: [{ action: 'update', line_item_id: lineA.id, quantity: 1 }, { action: 'remove', line_item_id: engraving.id }] });
    const refund = o.total - edit.after.total;
    expect(edit).toMatchObject({ amount_paid: o.total, amount_due: 0, refund_amount: refund, difference: -refund });
    await ok(await s.admin('POST', `/api/v1/order-edits/${edit.id}/confirm`, {}), 200);
    await t.settle();
    const after = await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200);
    expect(after).toMatchObject({ status: 'paid', total: edit.after.total, amount_paid: o.total, amount_refunded: refund, amount_due: 0 });
    expect(after.amount_paid - after.amount_refunded).toBe(after.total);
    const paid = await ok(await s.admin('GET', `/api/v1/payments/${payment}`), 200);
    expect(paid).toMatchObject({ status: 'partially_refunded', refunded_amount: refund });
    expect(paid.refunds).toEqual([expect.objectContaining({ amount: refund, status: 'refunded', reason: 'other' })]);
  });

  it('that costs more awaits the difference, asked for with a link, and is paid again once it comes in', async () => {
    const { o, c } = await paidOrder();
    const edit = await preview(s, o.id, { changes: [{ action: 'add', variant_id: c.variantId, quantity: 5 }], shipping: { carrier: 'olva', service: 'standard' } });
    const due = edit.after.total - o.total;
    expect(edit).toMatchObject({ amount_due: due, refund_amount: 0, difference: due });
    const confirmed = await ok(await s.admin('POST', `/api/v1/order-edits/${edit.id}/confirm`, { notify: false }), 200);
    const waiting = await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200);
    expect(waiting).toMatchObject({ status: 'pending', total: edit.after.total, amount_due: due });
    expect((await outbox(t, 'orders.order.payment_due', o.id))[0].data).toMatchObject({ status: 'pending', previous_status: 'paid' });
    const page = (await t.request({ method: 'GET', url: `/api/v1/order-edits/payment?token=${encodeURIComponent(new URL(confirmed.payment_url).searchParams.get('token')!)}` })).json().data;
    expect(page).toMatchObject({ amount_due: due, order_status: 'pending' });

    await pay(s, o.id, due);
    await t.settle();
    const settled = await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200);
    expect(settled).toMatchObject({ status: 'paid', amount_paid: o.total + due, amount_refunded: 0, amount_due: 0, total: edit.after.total });
  });
});

describe('what an edit asks for or gives back', () => {
  // The edit's amount_due is, in each case, what the order shows due once it is confirmed.
  it('of an order paid in part (a deposit): the rest, the order still awaiting payment', async () => {
    const a = await product(s, 2000);
    const o = await order(s, { line_items: [{ variant_id: a.variantId, quantity: 2 }], shipping: { carrier: 'olva', service: 'standard' } });
    await pay(s, o.id, 3000);
    await t.settle();
    const edit = await preview(s, o.id, { changes: [{ action: 'update', line_item_id: o.line_items[0].id, quantity: 3 }] });
    expect(edit).toMatchObject({ amount_paid: 3000, amount_due: edit.after.total - 3000, refund_amount: 0 });
    const confirmed = await ok(await s.admin('POST', `/api/v1/order-edits/${edit.id}/confirm`, { notify: false }), 200);
    expect(confirmed.payment_url).toEqual(expect.any(String));
    expect(await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200)).toMatchObject({ status: 'pending', total: edit.after.total, amount_paid: 3000, amount_due: edit.amount_due });
  });

  it('of a paid order part of whose money went back: nothing asked, the order stays paid (left to the staff)', async () => {
    const { o, payment, c } = await paidOrder();
    await ok(await s.admin('POST', `/api/v1/payments/${payment}/refund`, { amount: 1000, reason: 'other' }), 201);
    await t.settle();
    expect(await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200)).toMatchObject({ status: 'paid', amount_refunded: 1000, amount_due: 0 });
    const edit = await preview(s, o.id, { changes: [{ action: 'add', variant_id: c.variantId, quantity: 1 }] });
    expect(edit).toMatchObject({ amount_paid: o.total - 1000, amount_due: 0, refund_amount: 0 });
    const confirmed = await ok(await s.admin('POST', `/api/v1/order-edits/${edit.id}/confirm`, {}), 200);
    expect(confirmed.payment_url).toBeNull();
    expect(await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200)).toMatchObject({ status: 'paid', total: edit.after.total, amount_due: 0 });
  });

  it('of a paid order that loses a unit and with it its coupon: less is refunded, the coupon’s share kept back', async () => {
    const a = await product(s, 6000);
    const res = await s.admin('POST', '/api/v1/discounts/coupons', { code: `M${Math.random().toString(36).slice(2, 8)}`.toUpperCase(), type: 'percentage', value: 1000, min_order_amount: 10000 });
    expect(res.statusCode, res.body).toBe(201);
    const o = await order(s, { line_items: [{ variant_id: a.variantId, quantity: 2 }], shipping: { carrier: 'olva', service: 'standard' }, discount: { code: res.json().code } });
    expect(o.discount_total).toBe(1200);
    await pay(s, o.id, o.total);
    await t.settle();
    const edit = await preview(s, o.id, { changes: [{ action: 'update', line_item_id: o.line_items[0].id, quantity: 1 }] });
    // 60.00 is below the coupon's 100.00: one unit at full price, taxed 18 %, and the same shipping.
    expect(edit.after).toMatchObject({ subtotal: 6000, discount_total: 0, total: 6000 + 1080 + 1500 + 270, coupon: { applies: false } });
    expect(edit).toMatchObject({ refund_amount: o.total - edit.after.total, amount_due: 0 });
    await ok(await s.admin('POST', `/api/v1/order-edits/${edit.id}/confirm`, {}), 200);
    await t.settle();
    const after = await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200);
    expect(after).toMatchObject({ status: 'paid', total: edit.after.total, amount_refunded: o.total - edit.after.total, amount_due: 0 });
    expect(after.amount_paid - after.amount_refunded).toBe(after.total);
  });
});
