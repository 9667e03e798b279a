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

  it('of a paid order part of whose money went back outside an edit that now costs more: exactly the increase, the refund kept as given (amount_waived), asked for by the link, and it is paid again once that comes in', async () => {
    const { o, payment, c } = await paidOrder();
    await ok(await s.admin('POST', `/api/v1/payments/${payment}/refund`, { amount: 1000, reason: 'other' }), 201);
    await t.settle();
    expect(await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200)).toMatchObject({ status: 'paid', amount_refunded: 1000, amount_waived: 0, amount_due: 0 });
    const edit = await preview(s, o.id, { changes: [{ action: 'add', variant_id: c.variantId, quantity: 1 }] });
    const increase = edit.after.total - o.total;
    expect(increase).toBeGreaterThan(0);
    expect(edit).toMatchObject({ amount_paid: o.total - 1000, amount_due: increase, refund_amount: 0, difference: increase });
    const confirmed = await ok(await s.admin('POST', `/api/v1/order-edits/${edit.id}/confirm`, { notify: false }), 200);
    const waiting = await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200);
    expect(waiting).toMatchObject({ status: 'pending', total: edit.after.total, amount_paid: o.total, amount_refunded: 1000, amount_waived: 1000, amount_due: increase });
    // The list reads the order as the order's own answer does.
    const listed = (await ok(await s.admin('GET', '/api/v1/orders?limit=100'), 200)).find((x: { id: string }) => x.id === o.id);
    expect(listed).toMatchObject({ amount_waived: 1000, amount_due: increase });
    expect((await outbox(t, 'orders.order.payment_due', o.id)).at(-1)!.data).toMatchObject({ status: 'pending', previous_status: 'paid' });
    const page = (await t.request({ method: 'GET', url: `/api/v1/order-edits/payment?token=${encodeURIComponent(new URL(confirmed.payment_url).searchParams.get('token')!)}` })).json().data;
    expect(page).toMatchObject({ amount_due: increase, total: edit.after.total, order_status: 'pending' });

    // Nothing beyond the increase is taken: the payments plugin's balance is the order's amount due.
    const over = await s.admin('POST', '/api/v1/payments', { order_id: o.id, gateway: 'offline', amount: increase + 1, currency: 'PEN', method_id: s.method });
    expect(over.statusCode, over.body).toBe(422);
    expect(over.json().error).toMatchObject({ code: 'PAYMENT_EXCEEDS_BALANCE', details: [{ amount_due: increase }] });
    // Twelve payments of the increase at once: one is taken, the others find nothing left to pay.
    const tries = await Promise.all(
      Array.from({ length: 12 }, () => s.admin('POST', '/api/v1/payments', { order_id: o.id, gateway: 'offline', amount: increase, currency: 'PEN', method_id: s.method })),
    );
    const taken = tries.filter((r) => r.statusCode === 201);
    expect(taken).toHaveLength(1);
    for (const r of tries.filter((x) => x.statusCode !== 201)) expect(r.json().error.code, r.body).toBe('PAYMENT_EXCEEDS_BALANCE');
    await ok(await s.admin('POST', '/api/v1/payments/offline/receipts', { payment_id: taken[0].json().data.id, amount: increase }), 201);
    await t.settle();
    const settled = await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200);
    expect(settled).toMatchObject({ status: 'paid', amount_due: 0, total: edit.after.total, amount_paid: o.total + increase, amount_refunded: 1000, amount_waived: 1000 });
    expect(settled.amount_paid - settled.amount_refunded).toBe(settled.total - settled.amount_waived);
    // Paid again, nothing goes back: the customer keeps the earlier refund and paid exactly the increase.
    expect((await ok(await s.admin('GET', `/api/v1/payments/${payment}`), 200)).refunded_amount).toBe(1000);
  });

  it('of a paid order refunded in part by an earlier edit that now costs more: it owes exactly the increase', async () => {
    const { o, c } = await paidOrder();
    const cheaper = await preview(s, o.id, { changes: [{ action: 'update', line_item_id: o.line_items[0].id, quantity: 1 }] });
    await ok(await s.admin('POST', `/api/v1/order-edits/${cheaper.id}/confirm`, {}), 200);
    await t.settle();
    const refunded = await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200);
    expect(refunded).toMatchObject({ status: 'paid', total: cheaper.after.total, amount_refunded: o.total - cheaper.after.total });
    const dearer = await preview(s, o.id, { changes: [{ action: 'add', variant_id: c.variantId, quantity: 3 }] });
    const increase = dearer.after.total - cheaper.after.total;
    expect(dearer).toMatchObject({ amount_due: increase, difference: increase, refund_amount: 0 });
    await ok(await s.admin('POST', `/api/v1/order-edits/${dearer.id}/confirm`, { notify: false }), 200);
    expect(await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200)).toMatchObject({ status: 'pending', amount_due: increase });
    await pay(s, o.id, increase);
    await t.settle();
    const settled = await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200);
    expect(settled).toMatchObject({ status: 'paid', amount_due: 0, total: dearer.after.total, amount_paid: o.total + increase, amount_refunded: o.total - cheaper.after.total });
    expect(settled.amount_paid - settled.amount_refunded).toBe(settled.total);
  });

  it('of a paid order part of whose money went back outside an edit that now costs less: exactly the decrease goes back through its payment, the earlier refund kept as given', async () => {
    const { o, payment } = await paidOrder();
    await ok(await s.admin('POST', `/api/v1/payments/${payment}/refund`, { amount: 1000, reason: 'other' }), 201);
    await t.settle();
    const edit = await preview(s, o.id, { changes: [{ action: 'update', line_item_id: o.line_items[0].id, quantity: 1 }] });
    const decrease = o.total - edit.after.total;
    expect(decrease).toBeGreaterThan(1000);
    expect(edit).toMatchObject({ amount_paid: o.total - 1000, amount_due: 0, refund_amount: decrease, difference: -decrease });
    await ok(await s.admin('POST', `/api/v1/order-edits/${edit.id}/confirm`, {}), 200);
    await t.settle();
    const after = await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200);
    expect(after).toMatchObject({ status: 'paid', total: edit.after.total, amount_refunded: 1000 + decrease, amount_waived: 1000, amount_due: 0 });
    expect(after.amount_paid - after.amount_refunded).toBe(after.total - after.amount_waived);
    const paid = await ok(await s.admin('GET', `/api/v1/payments/${payment}`), 200);
    expect(paid.refunds.map((r: { amount: number }) => r.amount).sort((x: number, y: number) => x - y)).toEqual([1000, decrease].sort((x, y) => x - y));
  });

  it('of a paid order given 5.00 back outside an edit that then loses 3.00: exactly 3.00 more goes back, once, and it stays paid, partly refunded', async () => {
    // Prices include the tax here, so a unit of 3.00 takes exactly 3.00 off the total.
    const inc = await shop(t, true);
    const a = await product(inc, 300);
    const b = await product(inc, 2000);
    const o = await order(inc, { line_items: [{ variant_id: a.variantId, quantity: 2 }, { variant_id: b.variantId, quantity: 1 }], shipping: { carrier: 'olva', service: 'standard' } });
    expect(o.total).toBe(600 + 2000 + 1500);
    const payment = await pay(inc, o.id, o.total);
    await t.settle();
    await ok(await inc.admin('POST', `/api/v1/payments/${payment}/refund`, { amount: 500, reason: 'other' }), 201);
    await t.settle();
    expect(await ok(await inc.admin('GET', `/api/v1/orders/${o.id}`), 200)).toMatchObject({ status: 'paid', amount_paid: 4100, amount_refunded: 500, amount_waived: 0, amount_due: 0 });

    const edit = await preview(inc, o.id, { changes: [{ action: 'update', line_item_id: o.line_items[0].id, quantity: 1 }] });
    expect(edit).toMatchObject({ amount_paid: 3600, amount_due: 0, refund_amount: 300, difference: -300 });
    expect(edit.after.total).toBe(3800);
    await ok(await inc.admin('POST', `/api/v1/order-edits/${edit.id}/confirm`, {}), 200);
    await t.settle();
    await t.settle();
    const after = await ok(await inc.admin('GET', `/api/v1/orders/${o.id}`), 200);
    // The 5.00 stays given (3800 − 500 = 3300 is what the order now costs the customer); 4100 − 800 = 3300 is what its payment kept.
    expect(after).toMatchObject({ status: 'paid', total: 3800, amount_paid: 4100, amount_refunded: 800, amount_waived: 500, amount_due: 0 });
    const paid = await ok(await inc.admin('GET', `/api/v1/payments/${payment}`), 200);
    expect(paid).toMatchObject({ status: 'partially_refunded', refunded_amount: 800 });
    expect(paid.refunds.map((r: { amount: number }) => r.amount).sort((x: number, y: number) => x - y)).toEqual([300, 500]);
    // The sales figures count what was kept, 33.00 less its tax: the edit's 3.00 came off the total and went back, once.
    const day = new Date().toISOString().slice(0, 10);
    const sales = await t.request({
      method: 'POST',
      url: '/graphql',
      headers: inc.tenant.headers(),
      payload: { query: `{ analytics(range: { start: "${day}", end: "${day}" }) { totalRevenue totalOrders } }` },
    });
    expect(sales.json().data.analytics).toEqual({ totalRevenue: 3300 - Math.round((after.tax_total * 3300) / 3800), totalOrders: 1 });

    // A later edit that costs more again asks for exactly what it adds.
    const dearer = await preview(inc, o.id, { changes: [{ action: 'update', line_item_id: o.line_items[0].id, quantity: 2 }] });
    expect(dearer).toMatchObject({ amount_paid: 3300, amount_due: 300, refund_amount: 0, difference: 300 });
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
