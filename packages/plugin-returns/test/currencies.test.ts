import type { TestApp } from '@qhatu/core/testing';
import checkout from '@qhatu/plugin-checkout';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, dollarOrder as dollarOrderOf, expectError, linkedPage, newLines, ok, product, requestReturn, returnsApp, sellInDollars, shop, STORE, USD, type Caller, type Order, type Shop } from './helpers.js';

// An exchange on an order placed in another currency than the store's (decision 0097). The store
// sells in soles (18 % IGV added to its prices) and in US dollars at 0.27 per sol, rounded to the
// nearest cent, to its market `us` (tax added: Florida's 7 %). An exchange's new items are priced
// in the order's dollars: a variant's explicit dollar price, else the one derived by the rate; a
// variant with neither is refused. What is due, refunded and linked for payment is in dollars too.
let t: TestApp;
let s: Shop;
let storefront: Caller;
let zelle: string;

beforeAll(async () => {
  t = await returnsApp({ plugins: [...STORE, checkout] });
  s = await shop(t, false);
  storefront = caller(t, s.tenant, s.tenant.storefrontToken);
  zelle = await sellInDollars(s);
});
afterAll(async () => t?.close());

/** One unit of `variantId` checked out by a guest in the market `us`, paid in dollars and fulfilled; the order. */
const dollarOrder = (variantId: string): Promise<Order> => dollarOrderOf(t, s, storefront, zelle, 'ana@example.com', variantId);


describe('an exchange on an order in dollars', () => {
  it('prices a new item at its explicit dollar price, another at the price derived by the rate and rounding, and asks for the difference in dollars', async () => {
    const poncho = await product(s, 11_800, 5);
    // S/ 50.00, set at $15.00 (derived it would be $13.50).
    const chullo = await product(s, 5000, 5, { prices: [{ currency: 'USD', amount: 1500 }] });
    // S/ 45.50 × 0.27 = 1228.5 cents, to the nearest cent: $12.29.
    const scarf = await product(s, 4550, 5);
    const o = await dollarOrder(poncho.variantId);
    // S/ 118.00 × 0.27 = $31.86, with Florida's 7 % added: $2.23.
    expect(o).toMatchObject({ currency: 'USD', prices_include_tax: false, subtotal: 3186, status: 'fulfilled' });
    expect(o.line_items[0]).toMatchObject({ unit_price_amount: 3186, tax_amount: 223 });

    const asked = await requestReturn(s.admin, {
      order_id: o.id, kind: 'exchange', lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }],
      new_items: [{ variant_id: chullo.variantId, quantity: 1 }, { variant_id: scarf.variantId, quantity: 2 }],
    });
    // $15.00 + 7 % ($1.05); 2 × $12.29 = $24.58 + 7 % ($1.72).
    expect(asked).toMatchObject({ kind: 'exchange', currency: 'USD', new_items_amount: 1605 + 2630 });
    expect(newLines(asked)).toEqual([[chullo.variantId, 1500, 105, 1605], [scarf.variantId, 1229, 172, 2630]]);

    // The poncho is worth $34.09 back: $8.26 to pay, through a link in dollars.
    const approved = await ok(await s.admin('POST', `/api/v1/returns/${asked.id}/approve`), 200);
    expect(approved).toMatchObject({ status: 'approved', currency: 'USD', amount_due: 4235 - 3409, payment_url: expect.stringContaining('token=') });
    expect(await linkedPage(t, approved.payment_url)).toMatchObject({ return_id: asked.id, currency: 'USD', amount_due: 826 });
  });

  it('for something cheaper refunds the difference in dollars through the order’s payment', async () => {
    const poncho = await product(s, 11_800, 5);
    const chullo = await product(s, 5000, 5, { prices: [{ currency: 'USD', amount: 1500 }] });
    const o = await dollarOrder(poncho.variantId);
    const asked = await requestReturn(s.admin, { order_id: o.id, kind: 'exchange', lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }], new_items: [{ variant_id: chullo.variantId, quantity: 1 }] });
    expect(newLines(asked)).toEqual([[chullo.variantId, 1500, 105, 1605]]);
    expect(await ok(await s.admin('POST', `/api/v1/returns/${asked.id}/approve`), 200)).toMatchObject({ amount_due: 0, payment_url: null });
    await ok(await s.admin('POST', `/api/v1/returns/${asked.id}/receive`, { lines: [{ line_id: asked.lines[0].id, quantity: 1 }] }), 200);
    const refunded = await ok(await s.admin('POST', `/api/v1/returns/${asked.id}/refund`, {}), 200);
    expect(refunded).toMatchObject({ status: 'refunded', currency: 'USD', items_amount: 3409, refund_amount: 3409 - 1605 });
    await t.settle();
    expect(await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200)).toMatchObject({ currency: 'USD', amount_refunded: 1804 });
  });

  it('refuses a new item with no price in the order’s currency (422 VARIANT_CURRENCY_MISMATCH); an explicit price still sells', async () => {
    const poncho = await product(s, 11_800, 5);
    const chullo = await product(s, 5000, 5, { prices: [{ currency: 'USD', amount: 1500 }] });
    const beret = await product(s, 4000, 5);
    const o = await dollarOrder(poncho.variantId);
    try {
      // Without a rate the store sells in dollars only what has a dollar price: the beret has none.
      await ok(await s.admin('PUT', '/api/v1/currencies', { currencies: [{ code: 'USD', rate: null }] }), 200);
      const body = { order_id: o.id, kind: 'exchange', reason_code: 'wrong_size', lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }] };
      const refused = expectError(
        await s.admin('POST', '/api/v1/returns', { ...body, new_items: [{ variant_id: chullo.variantId, quantity: 1 }, { variant_id: beret.variantId, quantity: 1 }] }),
        422, 'VARIANT_CURRENCY_MISMATCH',
      );
      expect(refused.details).toEqual([{ path: 'body.new_items.1', code: 'VARIANT_CURRENCY_MISMATCH', message: "has no price in the order's USD", variant_id: beret.variantId }]);
      expect(await ok(await s.admin('GET', `/api/v1/returns?filter[order_id]=${o.id}`), 200)).toEqual([]);
      const asked = await requestReturn(s.admin, { ...body, new_items: [{ variant_id: chullo.variantId, quantity: 1 }] });
      expect(newLines(asked)).toEqual([[chullo.variantId, 1500, 105, 1605]]);
    } finally {
      await ok(await s.admin('PUT', '/api/v1/currencies', { currencies: [USD] }), 200);
    }
  });
});
