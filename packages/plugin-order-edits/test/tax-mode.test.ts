import type { TestApp } from '@qhatu/core/testing';
import checkout from '@qhatu/plugin-checkout';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS, caller, editApp, ok, order, preview, product, shop, type Caller, type Shop } from './helpers.js';

// An order keeps the tax mode it was placed in (`prices_include_tax`): a market's when it was
// checked out in one whose mode is not the store's, or the store's setting of the day. An edit is
// taxed in the order's mode, whatever the store's setting says now. The store here adds IGV
// (18 %) to its prices; its market `pe` includes it.
let t: TestApp;
let s: Shop;
let storefront: Caller;

beforeAll(async () => {
  t = await editApp({ extra: [checkout] });
  s = await shop(t, false);
  storefront = caller(t, s.tenant, s.tenant.storefrontToken);
  const locales = await ok(await s.admin('GET', '/api/v1/locales'), 200);
  await ok(await s.admin('POST', '/api/v1/markets', { handle: 'pe', name: 'Perú', countries: ['PE'], currency: 'PEN', default_locale: locales.default_locale, prices_include_tax: true }), 201);
});
afterAll(async () => t?.close());

/** Checks `lines` ([variant, quantity]) out in the market `pe`, shipped by Olva to Cusco: the order placed. */
async function placedInMarket(lines: Array<[string, number]>) {
  const cart = await ok(await storefront('POST', '/api/v1/checkout/carts', { market: 'pe' }), 201);
  for (const [variantId, quantity] of lines) await ok(await storefront('POST', `/api/v1/checkout/carts/${cart.id}/items`, { variant_id: variantId, quantity }), 201);
  const made = await ok(await storefront('POST', '/api/v1/checkout/checkouts', { cart_id: cart.id, email: 'rosa@example.com' }), 201);
  const placed = await ok(await storefront('PUT', `/api/v1/checkout/checkouts/${made.id}/shipping`, { shipping_address: ADDRESS, shipping_rate: { carrier: 'olva', service: 'standard', price: 1500 } }), 200);
  return ok(await s.admin('GET', `/api/v1/orders/${placed.order_id}`), 200);
}

describe('an edit of an order whose tax mode is not the store’s', () => {
  it('placed in a market whose prices include tax: the new and changed lines have their tax taken out of the price', async () => {
    const a = await product(s, 11_800);
    const b = await product(s, 5900);
    const o = await placedInMarket([[a.variantId, 1]]);
    // S/ 118.00 with IGV in it (18.00), Olva's 15.00 with 2.29 in it: nothing added.
    expect(o).toMatchObject({ prices_include_tax: true, subtotal: 11_800, shipping_total: 1500, shipping_tax: 229, tax_total: 1800 + 229, total: 13_300 });

    const edit = await preview(s, o.id, { changes: [{ action: 'update', line_item_id: o.line_items[0].id, quantity: 2 }, { action: 'add', variant_id: b.variantId, quantity: 1 }] });
    // 236.00 holds 36.00 and 59.00 holds 9.00 (added on top they would be 42.48 and 10.62).
    expect(edit.after.lines.map((l: Record<string, unknown>) => [l.change, l.total, l.tax_rate, l.tax_amount])).toEqual([
      ['changed', 23_600, 1800, 3600],
      ['added', 5900, 1800, 900],
    ]);
    expect(edit.after).toMatchObject({ subtotal: 29_500, shipping_tax: 229, tax_total: 3600 + 900 + 229, total: 31_000 });

    await ok(await s.admin('POST', `/api/v1/order-edits/${edit.id}/confirm`, { notify: false }), 200);
    const after = await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200);
    expect(after).toMatchObject({ prices_include_tax: true, subtotal: 29_500, tax_total: 4729, total: 31_000, amount_due: 31_000 });
    expect(after.line_items.map((l: Record<string, unknown>) => l.tax_amount)).toEqual([3600, 900]);
  });

  it('placed before the store changed its setting: taxed as the order was, not as the store is now', async () => {
    const inclusive = await shop(t, true);
    const a = await product(inclusive, 11_800);
    const o = await order(inclusive, { line_items: [{ variant_id: a.variantId, quantity: 1 }] });
    expect(o).toMatchObject({ prices_include_tax: true, subtotal: 11_800, tax_total: 1800, total: 11_800 });
    await ok(await inclusive.admin('PATCH', '/api/v1/taxes/settings', { prices_include_tax: false }), 200);
    const edit = await preview(inclusive, o.id, { changes: [{ action: 'update', line_item_id: o.line_items[0].id, quantity: 3 }] });
    expect(edit.after.lines[0]).toMatchObject({ change: 'changed', total: 35_400, tax_amount: 5400 });
    expect(edit.after).toMatchObject({ subtotal: 35_400, tax_total: 5400, total: 35_400 });
  });
});
