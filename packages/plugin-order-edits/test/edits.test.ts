import type { TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, editApp, expectError, levelOf, mailsOf, MISSING, ok, order, outbox, preview, product, shop, type Shop } from './helpers.js';

// An edit is previewed (nothing of the order changes), then confirmed: the order takes exactly the
// previewed lines and totals, its stock moves, the edit is its next version, and what the customer
// owes is asked for with a payment link.
let t: TestApp;
let s: Shop;
let other: Shop;
beforeAll(async () => {
  t = await editApp();
  s = await shop(t, false);
  other = await shop(t, false);
});
afterAll(async () => t?.close());

async function coupon(x: Shop): Promise<string> {
  const res = await x.admin('POST', '/api/v1/discounts/coupons', { code: `E${Math.random().toString(36).slice(2, 8)}`.toUpperCase(), type: 'percentage', value: 1000 });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().code;
}

/** 3 × 20.00 and 2 × 45.50, a custom line (5.00, reduced), 10 % off, Olva 15.00: 183.01 with tax. */
async function placed(x: Shop) {
  const a = await product(x, 2000);
  const b = await product(x, 4550);
  const c = await product(x, 1000);
  const o = await order(x, {
    line_items: [{ variant_id: a.variantId, quantity: 3 }, { variant_id: b.variantId, quantity: 2 }, { title: 'Engraving', unit_price: 500, quantity: 1, tax_class: 'reduced', requires_shipping: false }],
    shipping: { carrier: 'olva', service: 'standard' },
    discount: { code: await coupon(x) },
  });
  expect(o).toMatchObject({ status: 'pending', subtotal: 15600, discount_total: 1560, shipping_total: 1500, tax_total: 2761, total: 18301 });
  return { o, a, b, c };
}

describe('an edit of an order awaiting payment', () => {
  it('previews the new lines, totals and tax to the cent, and the order does not change', async () => {
    const { o, c } = await placed(s);
    const [lineA, , engraving] = o.line_items;
    const edit = await preview(s, o.id, { changes: [{ action: 'update', line_item_id: lineA.id, quantity: 1 }, { action: 'remove', line_item_id: engraving.id }, { action: 'add', variant_id: c.variantId, quantity: 2 }] });
    expect(edit).toMatchObject({ status: 'open', version: null, difference: 15682 - 18301, amount_paid: 0, amount_due: 15682, refund_amount: 0 });
    expect(edit.before).toMatchObject({ subtotal: 15600, discount_total: 1560, tax_total: 2761, total: 18301, coupon: { applies: true, amount: 1560 } });
    // The coupon, 10 % of what the lines now come to (131.00), spread over them: the new line takes its share.
    expect(edit.after).toMatchObject({ subtotal: 13100, discount_total: 1310, shipping_total: 1500, shipping_tax: 270, tax_total: 2392, total: 15682, coupon: { applies: true, refusal: null, amount: 1310 } });
    expect(edit.after.lines.map((l: Record<string, unknown>) => [l.change, l.quantity, l.unit_price, l.discount_amount, l.total, l.tax_amount])).toEqual([
      ['changed', 1, 2000, 200, 1800, 324],
      ['unchanged', 2, 4550, 910, 8190, 1474],
      ['removed', 0, 500, 0, 0, 0],
      ['added', 2, 1000, 200, 1800, 324],
    ]);
    expect(await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200)).toMatchObject({ total: 18301, updated_at: o.updated_at });
  });

  it('is confirmed into the order: lines, totals, stock, a version, a payment link e-mailed', async () => {
    const { o, a, c } = await placed(s);
    const [lineA, lineB, engraving] = o.line_items;
    expect(await levelOf(s, a.variantId)).toMatchObject({ reserved: 3 });
    const edit = await preview(s, o.id, { changes: [{ action: 'update', line_item_id: lineA.id, quantity: 1 }, { action: 'remove', line_item_id: engraving.id }, { action: 'add', variant_id: c.variantId, quantity: 2 }], note: 'Customer called' });
    const confirmed = await ok(await s.admin('POST', `/api/v1/order-edits/${edit.id}/confirm`, {}), 200);
    expect(confirmed).toMatchObject({ status: 'confirmed', version: 1, confirmed_at: expect.any(String), payment_url: expect.stringContaining('/api/v1/order-edits/payment?token=') });

    const after = await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200);
    expect(after).toMatchObject({ status: 'pending', subtotal: 13100, discount_total: 1310, shipping_total: 1500, shipping_tax: 270, tax_total: 2392, total: 15682, amount_due: 15682 });
    expect(after.line_items.map((l: Record<string, unknown>) => [l.id === lineA.id || l.id === lineB.id ? 'kept' : 'new', l.variant_id, l.quantity, l.unit_price_amount, l.discount_amount, l.tax_amount])).toEqual([
      ['kept', a.variantId, 1, 2000, 200, 324],
      ['kept', lineB.variant_id, 2, 4550, 910, 1474],
      ['new', c.variantId, 2, 1000, 200, 324],
    ]);
    expect(after.history.at(-1)).toMatchObject({ action: 'note', note: expect.stringContaining('edit 1:') });
    expect(after.history.at(-1).note).toContain('Customer called');
    expect(await levelOf(s, a.variantId)).toMatchObject({ reserved: 1 });
    expect(await levelOf(s, c.variantId)).toMatchObject({ reserved: 2 });

    const [mail] = (await mailsOf(t, s.tenant)).slice(-1);
    expect(mail.replace(/=\r?\n/g, '')).toContain('PEN 156.82');
    const token = new URL(confirmed.payment_url).searchParams.get('token')!;
    const page = await t.request({ method: 'GET', url: `/api/v1/order-edits/payment?token=${encodeURIComponent(token)}` });
    expect(page.statusCode, page.body).toBe(200);
    expect(page.json().data).toMatchObject({ tenant_id: s.tenant.id, order_id: o.id, total: 15682, amount_due: 15682, edit_id: edit.id });
    expectError(await t.request({ method: 'GET', url: '/api/v1/order-edits/payment?token=v1.x.y.z' }), 404, 'PAYMENT_LINK_NOT_FOUND');

    const versions = await ok(await s.admin('GET', `/api/v1/orders/${o.id}/edits`), 200);
    expect(versions.map((e: Record<string, unknown>) => [e.id, e.version, e.status])).toEqual([[edit.id, 1, 'confirmed']]);
    expect((await outbox(t, 'order-edits.edit.confirmed', edit.id))[0].data).toMatchObject({ version: 1, total_before: 18301, total_after: 15682, difference: -2619 });

    // The same edit once more: it is a version now.
    expectError(await s.admin('POST', `/api/v1/order-edits/${edit.id}/confirm`, {}), 409, 'INVALID_STATE_TRANSITION');
    expectError(await s.admin('POST', `/api/v1/order-edits/${edit.id}/cancel`), 409, 'INVALID_STATE_TRANSITION');
  });

  it('changes the shipping at the store’s rate for the new parcel, or at a price only override-price may set', async () => {
    const { o, c } = await placed(s);
    const edit = await preview(s, o.id, { changes: [{ action: 'add', variant_id: c.variantId, quantity: 5 }], shipping: { carrier: 'olva', service: 'standard' } });
    expect(edit).toMatchObject({ shipping_changed: true, shipping: { price: 3000, custom: false } });
    // 10 % of 206.00 off, 5.00 of it on the new line: 45.00 taxed 8.10.
    expect(edit.after).toMatchObject({ subtotal: 20600, discount_total: 2060, shipping_total: 3000, shipping_tax: 540, tax_total: 3841, total: 25381 });
    const role = await ok(await s.admin('POST', '/api/v1/roles', { name: 'Editor', permissions: ['order-edits.write'] }), 201);
    const credentials = { email: 'editor@example.com', password: 'correct horse battery staple' };
    await ok(await s.admin('POST', '/api/v1/staff', { ...credentials, first_name: 'Ed', last_name: 'Quispe', role_id: role.id }), 201);
    const login = await t.request({ method: 'POST', url: '/api/v1/auth/staff/login', headers: { 'x-tenant-id': s.tenant.id }, payload: credentials });
    const editor = caller(t, s.tenant, login.json().data.token);
    const refused = expectError(await editor('POST', `/api/v1/orders/${o.id}/edits`, { shipping: { carrier: 'moto', service: 'same-day', price: 0, reason: 'Apology' } }), 403, 'FORBIDDEN');
    expect(refused.details[0]).toMatchObject({ permission: 'order-edits.override-price' });
    expect(await ok(await s.admin('POST', `/api/v1/orders/${o.id}/edits`, { shipping: { carrier: 'moto', service: 'same-day', price: 0, reason: 'Apology' } }), 201)).toMatchObject({ after: { shipping_total: 0, shipping_tax: 0, total: 18301 - 1500 - 270 } });
  });

  it('in a store whose prices include tax: a new line at its volume tier, the tax taken out of it', async () => {
    const inclusive = await shop(t, true);
    const x = await product(inclusive, 3000);
    const p = await product(inclusive, 2500);
    await ok(await inclusive.admin('POST', '/api/v1/discounts/volume', { product_id: p.productId, min_quantity: 3, value: 1000 }), 201);
    const o = await order(inclusive, { line_items: [{ variant_id: x.variantId, quantity: 1 }], shipping: { carrier: 'olva', service: 'standard' } });
    expect(o).toMatchObject({ prices_include_tax: true, subtotal: 3000, shipping_total: 1500, tax_total: 458 + 229, total: 4500 });
    const edit = await preview(inclusive, o.id, { changes: [{ action: 'add', variant_id: p.variantId, quantity: 3 }] });
    expect(edit.after.lines[1]).toMatchObject({ change: 'added', unit_price: 2500, discount_amount: 750, total: 6750, tax_rate: 1800, tax_amount: 1030 });
    expect(edit.after).toMatchObject({ subtotal: 10500, discount_total: 750, shipping_total: 1500, shipping_tax: 229, tax_total: 458 + 1030 + 229, total: 11250 });
    await ok(await inclusive.admin('POST', `/api/v1/order-edits/${edit.id}/confirm`, { notify: false }), 200);
    expect(await ok(await inclusive.admin('GET', `/api/v1/orders/${o.id}`), 200)).toMatchObject({ subtotal: 10500, discount_total: 750, tax_total: 1717, total: 11250, amount_due: 11250 });
  });

  it('is refused when it does not fit the order, and nothing changes', async () => {
    const { o, c } = await placed(s);
    const [lineA, lineB, engraving] = o.line_items;
    expectError(await s.admin('POST', `/api/v1/orders/${o.id}/edits`, { changes: [] }), 422, 'NOTHING_TO_CHANGE');
    expectError(await s.admin('POST', `/api/v1/orders/${o.id}/edits`, { changes: [{ action: 'update', line_item_id: MISSING, quantity: 1 }] }), 422, 'LINE_ITEM_NOT_FOUND');
    expectError(await s.admin('POST', `/api/v1/orders/${o.id}/edits`, { changes: [lineA, lineB, engraving].map((l) => ({ action: 'remove', line_item_id: l.id })) }), 422, 'ORDER_EMPTY');
    expectError(await s.admin('POST', `/api/v1/orders/${o.id}/edits`, { changes: [{ action: 'update', line_item_id: lineA.id, quantity: 0 }] }), 400, 'VALIDATION_ERROR');
    expectError(await s.admin('POST', `/api/v1/orders/${o.id}/edits`, { changes: [{ action: 'grow', line_item_id: lineA.id }] }), 400, 'VALIDATION_ERROR');
    const theirs = await product(other, 100);
    expectError(await s.admin('POST', `/api/v1/orders/${o.id}/edits`, { changes: [{ action: 'add', variant_id: theirs.variantId, quantity: 1 }] }), 422, 'VARIANT_NOT_FOUND');

    // After a partial fulfilment only what is left to ship changes.
    await ok(await s.admin('POST', `/api/v1/orders/${o.id}/fulfillments`, { line_items: [{ variant_id: lineA.variant_id, quantity: 2 }] }), 201);
    const short = expectError(await s.admin('POST', `/api/v1/orders/${o.id}/edits`, { changes: [{ action: 'update', line_item_id: lineA.id, quantity: 1 }] }), 422, 'LINE_ITEM_FULFILLED');
    expect(short.details[0]).toMatchObject({ line_item_id: lineA.id, fulfilled_quantity: 2 });
    const fine = await preview(s, o.id, { changes: [{ action: 'update', line_item_id: lineA.id, quantity: 2 }, { action: 'add', variant_id: c.variantId, quantity: 1 }] });
    const done = await ok(await s.admin('POST', `/api/v1/order-edits/${fine.id}/confirm`, { notify: false }), 200);
    // Shipped before it was paid (cash on delivery): no link, the courier collects.
    expect(done).toMatchObject({ status: 'confirmed', payment_url: null });
    const after = await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200);
    expect(after).toMatchObject({ status: 'partially_fulfilled', total: fine.after.total, amount_due: fine.after.total });
    expect(after.line_items[0]).toMatchObject({ quantity: 2, fulfilled_quantity: 2 });

    // Once everything shipped, no edit.
    await ok(await s.admin('POST', `/api/v1/orders/${o.id}/fulfillments`, {}), 201);
    expectError(await s.admin('POST', `/api/v1/orders/${o.id}/edits`, { changes: [{ action: 'add', variant_id: c.variantId, quantity: 1 }] }), 409, 'INVALID_STATE_TRANSITION');
  });

  it("is 404 for another store's order or edit, as for ones that do not exist", async () => {
    const { o } = await placed(other);
    const theirs = await preview(other, o.id, { changes: [{ action: 'update', line_item_id: o.line_items[0].id, quantity: 1 }] });
    for (const id of [o.id, MISSING]) {
      expectError(await s.admin('POST', `/api/v1/orders/${id}/edits`, { changes: [{ action: 'update', line_item_id: o.line_items[0].id, quantity: 1 }] }), 404, 'ORDER_NOT_FOUND');
      expectError(await s.admin('GET', `/api/v1/orders/${id}/edits`), 404, 'ORDER_NOT_FOUND');
    }
    for (const id of [theirs.id, MISSING]) {
      expectError(await s.admin('GET', `/api/v1/order-edits/${id}`), 404, 'ORDER_EDIT_NOT_FOUND');
      expectError(await s.admin('POST', `/api/v1/order-edits/${id}/confirm`, {}), 404, 'ORDER_EDIT_NOT_FOUND');
      expectError(await s.admin('POST', `/api/v1/order-edits/${id}/cancel`), 404, 'ORDER_EDIT_NOT_FOUND');
    }
    expect(await ok(await other.admin('GET', `/api/v1/order-edits/${theirs.id}`), 200)).toMatchObject({ status: 'open' });
    expect(await ok(await other.admin('GET', `/api/v1/orders/${o.id}`), 200)).toMatchObject({ total: 18301 });
    expectError(await caller(t, s.tenant, s.tenant.storefrontToken)('GET', `/api/v1/order-edits/${theirs.id}`), 403, 'FORBIDDEN');
  });

  it('can be dropped: a cancelled edit never changes the order', async () => {
    const { o } = await placed(s);
    const edit = await preview(s, o.id, { changes: [{ action: 'update', line_item_id: o.line_items[0].id, quantity: 1 }] });
    expect(await ok(await s.admin('POST', `/api/v1/order-edits/${edit.id}/cancel`), 200)).toMatchObject({ status: 'cancelled', cancelled_at: expect.any(String) });
    expectError(await s.admin('POST', `/api/v1/order-edits/${edit.id}/confirm`, {}), 409, 'INVALID_STATE_TRANSITION');
    expect(await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200)).toMatchObject({ total: 18301, updated_at: o.updated_at });
  });
});
