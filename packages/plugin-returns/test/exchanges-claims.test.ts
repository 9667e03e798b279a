import type { TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, fulfilledOrder, levelOf, ok, product, requestReturn, returnsApp, shop, type Shop } from './helpers.js';

// Exchanges (items back, new items out, the difference refunded or paid) and claims (missing or
// damaged items, replaced from stock or refunded, nothing coming back); return labels priced with
// the store's rates.
let t: TestApp;
let s: Shop;
beforeAll(async () => {
  t = await returnsApp();
  s = await shop(t, false);
});
afterAll(async () => t?.close());

async function receiveAll(id: string, lines: Array<Record<string, any>>) {
  return ok(await s.admin('POST', `/api/v1/returns/${id}/receive`, { lines: lines.filter((l) => l.kind === 'returned').map((l) => ({ line_id: l.id, quantity: l.quantity })) }), 200);
}

describe('an exchange', () => {
  it('for something cheaper holds the new item, refunds the difference and ships it from stock', async () => {
    const poncho = await product(s, 4550, 5);
    const scarf = await product(s, 2000, 5);
    const o = await fulfilledOrder(t, s, { line_items: [{ variant_id: poncho.variantId, quantity: 1 }] });
    const asked = await requestReturn(s.admin, { order_id: o.id, kind: 'exchange', lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }], new_items: [{ variant_id: scarf.variantId, quantity: 1 }] });
    // 20.00 + 18 % tax.
    expect(asked).toMatchObject({ kind: 'exchange', new_items_amount: 2360 });
    expect(asked.lines.map((l: any) => [l.kind, l.quantity])).toEqual([['returned', 1], ['new', 1]]);
    const before = await levelOf(s, scarf.variantId);
    const approved = await ok(await s.admin('POST', `/api/v1/returns/${asked.id}/approve`), 200);
    expect(approved).toMatchObject({ status: 'approved', amount_due: 0, payment_url: null });
    expect(await levelOf(s, scarf.variantId)).toEqual({ on_hand: before.on_hand, reserved: before.reserved + 1, available: before.available - 1 });

    await receiveAll(asked.id, asked.lines);
    const refunded = await ok(await s.admin('POST', `/api/v1/returns/${asked.id}/refund`, {}), 200);
    // 45.50 + 8.19 came back; the scarf takes 23.60 of it.
    expect(refunded).toMatchObject({ status: 'refunded', items_amount: 5369, refund_amount: 5369 - 2360 });
    expectError(await s.admin('POST', `/api/v1/returns/${asked.id}/close`), 409, 'EXCHANGE_NOT_SHIPPED');
    const shipped = await ok(await s.admin('POST', `/api/v1/returns/${asked.id}/shipment`, { carrier: 'olva', tracking_number: 'OLV-1' }), 200);
    expect(shipped.shipment).toMatchObject({ carrier: 'olva', tracking_number: 'OLV-1', items: [{ variant_id: scarf.variantId, quantity: 1 }] });
    expect(await levelOf(s, scarf.variantId)).toEqual({ on_hand: before.on_hand - 1, reserved: before.reserved, available: before.available - 1 });
    expectError(await s.admin('POST', `/api/v1/returns/${asked.id}/shipment`, {}), 409, 'ALREADY_SHIPPED');
    expect((await ok(await s.admin('POST', `/api/v1/returns/${asked.id}/close`), 200)).status).toBe('closed');
    await t.settle();
    expect(await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200)).toMatchObject({ amount_refunded: 5369 - 2360 });
  });

  it('for something dearer asks for the difference with a link, ships once it is paid, and refunds nothing', async () => {
    const scarf = await product(s, 2000, 5);
    const poncho = await product(s, 4550, 5);
    const o = await fulfilledOrder(t, s, { line_items: [{ variant_id: scarf.variantId, quantity: 1 }] });
    const asked = await requestReturn(s.admin, { order_id: o.id, kind: 'exchange', lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }], new_items: [{ variant_id: poncho.variantId, quantity: 1 }] });
    const approved = await ok(await s.admin('POST', `/api/v1/returns/${asked.id}/approve`), 200);
    expect(approved).toMatchObject({ amount_due: 5369 - 2360, payment_url: expect.stringContaining('/api/v1/returns/payment?token=') });
    const token = new URL(approved.payment_url).searchParams.get('token')!;
    const page = await t.request({ method: 'GET', url: `/api/v1/returns/payment?token=${encodeURIComponent(token)}` });
    expect(page.json().data).toMatchObject({ return_id: asked.id, amount_due: 3009, currency: 'PEN', tenant_id: s.tenant.id });
    expectError(await t.request({ method: 'GET', url: `/api/v1/returns/payment?token=${encodeURIComponent(`${token}x`)}` }), 404, 'PAYMENT_LINK_NOT_FOUND');

    expectError(await s.admin('POST', `/api/v1/returns/${asked.id}/shipment`, {}), 409, 'EXCHANGE_NOT_PAID');
    expectError(await s.admin('POST', `/api/v1/returns/${asked.id}/payments`, { amount: 3010 }), 422, 'PAYMENT_EXCEEDS_AMOUNT_DUE');
    expect(await ok(await s.admin('POST', `/api/v1/returns/${asked.id}/payments`, { amount: 3009, reference: 'Yape 123' }), 200)).toMatchObject({ amount_due: 0, amount_paid: 3009 });
    await ok(await s.admin('POST', `/api/v1/returns/${asked.id}/shipment`, {}), 200);
    await receiveAll(asked.id, asked.lines);
    expect(await ok(await s.admin('POST', `/api/v1/returns/${asked.id}/refund`, {}), 200)).toMatchObject({ status: 'refunded', refund_amount: 0, refunds: [] });
    expect((await ok(await s.admin('POST', `/api/v1/returns/${asked.id}/close`), 200)).status).toBe('closed');
  });

  it('is not approved without stock for its new items, and gives the units back when cancelled', async () => {
    const scarf = await product(s, 2000, 5);
    const rare = await product(s, 3000, 1);
    const o = await fulfilledOrder(t, s, { line_items: [{ variant_id: scarf.variantId, quantity: 2 }] });
    const tooMany = await requestReturn(s.admin, { order_id: o.id, kind: 'exchange', lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }], new_items: [{ variant_id: rare.variantId, quantity: 2 }] });
    expectError(await s.admin('POST', `/api/v1/returns/${tooMany.id}/approve`), 409, 'INSUFFICIENT_STOCK');
    expect((await ok(await s.admin('GET', `/api/v1/returns/${tooMany.id}`), 200)).status).toBe('requested');
    const one = await requestReturn(s.admin, { order_id: o.id, kind: 'exchange', lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }], new_items: [{ variant_id: rare.variantId, quantity: 1 }] });
    await ok(await s.admin('POST', `/api/v1/returns/${one.id}/approve`), 200);
    expect((await levelOf(s, rare.variantId)).available).toBe(0);
    await ok(await s.admin('POST', `/api/v1/returns/${one.id}/cancel`), 200);
    expect(await levelOf(s, rare.variantId)).toEqual({ on_hand: 1, reserved: 0, available: 1 });
  });
});

// An order keeps the tax mode it was placed in (`prices_include_tax`); an exchange's new items are
// taxed in that mode, whatever the store's setting says when the exchange is asked for.
describe('an exchange on an order placed in another tax mode than the store’s now', () => {
  const cases = [
    { placed: true, now: false, title: 'placed while prices included tax: the new item’s tax is taken out of its price', tax: 1800, pays: 11_800, worth: 5900 },
    { placed: true, now: true, title: 'placed and asked for while prices include tax: as before', tax: 1800, pays: 11_800, worth: 5900 },
    { placed: false, now: true, title: 'placed while prices excluded tax: the new item’s tax is added to its price', tax: 2124, pays: 11_800 + 2124, worth: 5900 + 1062 },
  ];
  for (const c of cases) {
    it(c.title, async () => {
      const store = await shop(t, c.placed);
      const scarf = await product(store, 5900, 5);
      const poncho = await product(store, 11_800, 5);
      const o = await fulfilledOrder(t, store, { line_items: [{ variant_id: scarf.variantId, quantity: 1 }] });
      expect(o).toMatchObject({ prices_include_tax: c.placed, subtotal: 5900, tax_total: 900 + (c.placed ? 0 : 162) });
      if (c.now !== c.placed) await ok(await store.admin('PATCH', '/api/v1/taxes/settings', { prices_include_tax: c.now }), 200);
      const asked = await requestReturn(store.admin, { order_id: o.id, kind: 'exchange', lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }], new_items: [{ variant_id: poncho.variantId, quantity: 1 }] });
      // 118.00 at 18 %: 18.00 in it when the order's prices include tax, 21.24 on top when they exclude it.
      expect(asked.lines.filter((l: any) => l.kind === 'new').map((l: any) => [l.unit_price, l.tax_amount, l.refund_amount])).toEqual([[11_800, c.tax, c.pays]]);
      expect(asked.new_items_amount).toBe(c.pays);
      // The customer pays the new item less what the scarf is worth back (59.00, with its 9.00 of tax in it or 10.62 on top).
      const approved = await ok(await store.admin('POST', `/api/v1/returns/${asked.id}/approve`), 200);
      expect(approved).toMatchObject({ status: 'approved', amount_due: c.pays - c.worth });
    });
  }
});

describe('a claim', () => {
  it('of a missing item is replaced from stock and closed by its shipment; nothing is received', async () => {
    const a = await product(s, 2000, 5);
    const o = await fulfilledOrder(t, s, { line_items: [{ variant_id: a.variantId, quantity: 2 }] });
    expectError(await s.admin('POST', '/api/v1/returns', { order_id: o.id, kind: 'claim', lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }] }), 400, 'VALIDATION_ERROR');
    const claim = await ok(await s.admin('POST', '/api/v1/returns', { order_id: o.id, kind: 'claim', claim_type: 'missing', resolution: 'replace', lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }] }), 201);
    expect(claim).toMatchObject({ kind: 'claim', claim_type: 'missing', resolution: 'replace', shipping: null });
    const before = await levelOf(s, a.variantId);
    await ok(await s.admin('POST', `/api/v1/returns/${claim.id}/approve`), 200);
    expect((await levelOf(s, a.variantId)).reserved).toBe(before.reserved + 1);
    expectError(await s.admin('POST', `/api/v1/returns/${claim.id}/receive`, { lines: [{ line_id: claim.lines[0].id, quantity: 1 }] }), 409, 'INVALID_STATE_TRANSITION');
    expectError(await s.admin('POST', `/api/v1/returns/${claim.id}/refund`, {}), 409, 'INVALID_STATE_TRANSITION');
    const shipped = await ok(await s.admin('POST', `/api/v1/returns/${claim.id}/shipment`, { carrier: 'olva', tracking_number: 'OLV-9' }), 200);
    expect(shipped).toMatchObject({ status: 'closed', lines: [expect.objectContaining({ shipped_quantity: 1 })] });
    expect(await levelOf(s, a.variantId)).toEqual({ on_hand: before.on_hand - 1, reserved: before.reserved, available: before.available - 1 });
    const order = await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200);
    expect(order.history.at(-1).note).toMatch(/shipped \(olva OLV-9\)$/);
  });

  it('of a damaged item is refunded from its approval, at what the unit was paid', async () => {
    const a = await product(s, 2000, 5);
    const o = await fulfilledOrder(t, s, { line_items: [{ variant_id: a.variantId, quantity: 3 }] });
    const claim = await ok(await s.admin('POST', '/api/v1/returns', { order_id: o.id, kind: 'claim', claim_type: 'damaged', resolution: 'refund', lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }] }), 201);
    await ok(await s.admin('POST', `/api/v1/returns/${claim.id}/approve`), 200);
    const refunded = await ok(await s.admin('POST', `/api/v1/returns/${claim.id}/refund`, {}), 200);
    expect(refunded).toMatchObject({ status: 'refunded', refund_amount: 2360, items_amount: 2360 });
    await t.settle();
    expect(await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200)).toMatchObject({ amount_refunded: 2360 });
  });
});

describe('return shipping', () => {
  it('by a store label is priced with the store’s rates for the parcel; a carrier it does not ship with is the shipping plugin’s 422', async () => {
    const a = await product(s, 2000, 10);
    const o = await fulfilledOrder(t, s, { line_items: [{ variant_id: a.variantId, quantity: 8 }] });
    const light = await requestReturn(s.admin, { order_id: o.id, lines: [{ line_item_id: o.line_items[0].id, quantity: 2 }], shipping: { method: 'store_label', carrier: 'olva', service: 'standard' } });
    expect(light.shipping).toEqual({ method: 'store_label', carrier: 'olva', service: 'standard', amount: 1500, weight_grams: 2000 });
    const heavy = await requestReturn(s.admin, { order_id: o.id, lines: [{ line_item_id: o.line_items[0].id, quantity: 6 }], shipping: { method: 'store_label', carrier: 'olva', service: 'standard' } });
    expect(heavy.shipping).toMatchObject({ amount: 3000, weight_grams: 6000 });
    await ok(await s.admin('POST', `/api/v1/returns/${heavy.id}/cancel`), 200);
    expectError(await s.admin('POST', '/api/v1/returns', { order_id: o.id, reason_code: 'wrong_size', lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }], shipping: { method: 'store_label', carrier: 'dhl', service: 'express' } }), 422, 'SHIPPING_CARRIER_UNKNOWN');
  });
});
