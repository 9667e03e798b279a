import type { TestApp } from '@qhatu/core/testing';
import checkout from '@qhatu/plugin-checkout';
import discounts from '@qhatu/plugin-discounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { B2B, b2bApp, caller, company, priceList, product, signUp, store, type Store } from './helpers.js';

// Wholesale prices need the buyer signed in: a guest who types a buyer's e-mail at the checkout
// (the orders plugin links the order to that account by e-mail) pays catalog prices.
let t: TestApp;
let s: Store;
beforeAll(async () => {
  t = await b2bApp({ extra: [discounts, checkout] });
  s = await store(t);
});
afterAll(async () => t?.close());

const ADDRESS = { first_name: 'Rosa', last_name: 'Quispe', address1: 'Av. Sol 123', city: 'Cusco', province: 'Cusco', country_code: 'PE', zip: '08000', phone: '+51987654321' };

describe('a guest checkout with a buyer\'s e-mail', () => {
  it('is priced and placed at catalog prices, its total the one shown', async () => {
    const p = await product(s, 4000);
    const list = await priceList(s, [{ type: 'percentage', value: 25, applies_to: 'all' }]);
    const c = await company(s, { price_list_id: list });
    const buyer = await signUp(t, s);
    await s.admin('POST', `${B2B}/customers/${c.id}/buyers`, { customer_id: buyer.id });

    const guest = caller(t, s.tenant, s.tenant.storefrontToken);
    const cart = (await guest('POST', '/api/v1/checkout/carts', {})).json().data;
    expect((await guest('POST', `/api/v1/checkout/carts/${cart.id}/items`, { variant_id: p.variantId, quantity: 2 })).statusCode).toBe(201);
    const started = (await guest('POST', '/api/v1/checkout/checkouts', { cart_id: cart.id, email: buyer.email })).json().data;
    const shipped = await guest('PUT', `/api/v1/checkout/checkouts/${started.id}/shipping`, { shipping_address: ADDRESS, billing_address: ADDRESS, shipping_rate: { carrier: 'Olva', service: 'Express', price: 1500 } });
    expect(shipped.statusCode).toBe(200);
    expect(shipped.json().data).toMatchObject({ status: 'payment_pending', total: 9500 });
    const order = (await s.admin('GET', `/api/v1/orders/${shipped.json().data.order_id}`)).json().data;
    expect(order).toMatchObject({ customer_id: buyer.id, total: 9500 });
    expect(order.line_items[0].unit_price_amount).toBe(4000);
    expect((await s.admin('GET', `${B2B}/orders/${order.id}/prices`)).statusCode).toBe(404);
  });
});

describe("a signed-in buyer's cart", () => {
  it('is priced at the list price, and the checkout and the order charge exactly that', async () => {
    const p = await product(s, 4000);
    const list = await priceList(s, [{ type: 'percentage', value: 25, applies_to: 'all' }]);
    const c = await company(s, { price_list_id: list });
    const buyer = await signUp(t, s);
    await s.admin('POST', `${B2B}/customers/${c.id}/buyers`, { customer_id: buyer.id });

    const shopper = caller(t, s.tenant, buyer.token);
    const cart = (await shopper('POST', '/api/v1/checkout/carts', {})).json().data;
    const added = await shopper('POST', `/api/v1/checkout/carts/${cart.id}/items`, { variant_id: p.variantId, quantity: 2 });
    expect(added.statusCode).toBe(201);
    expect(added.json().data).toMatchObject({ subtotal: 6000, total: 6000 });
    expect(added.json().data.line_items[0].unit_price).toBe(3000);
    expect((await shopper('GET', `/api/v1/checkout/carts/${cart.id}`)).json().data.total).toBe(6000);

    const started = (await shopper('POST', '/api/v1/checkout/checkouts', { cart_id: cart.id, email: buyer.email })).json().data;
    const shipped = await shopper('PUT', `/api/v1/checkout/checkouts/${started.id}/shipping`, { shipping_address: ADDRESS, billing_address: ADDRESS, shipping_rate: { carrier: 'Olva', service: 'Express', price: 1500 } });
    expect(shipped.statusCode, shipped.body).toBe(200);
    expect(shipped.json().data).toMatchObject({ status: 'payment_pending', total: 7500 });
    const order = (await s.admin('GET', `/api/v1/orders/${shipped.json().data.order_id}`)).json().data;
    expect(order).toMatchObject({ customer_id: buyer.id, total: 7500 });
    expect(order.line_items[0].unit_price_amount).toBe(3000);
    expect((await s.admin('GET', `${B2B}/orders/${order.id}/prices`)).json().data).toMatchObject({
      order_id: order.id,
      b2b_customer_id: c.id,
      lines: [{ variant_id: p.variantId, catalog_price: 4000, unit_price: 3000, price_list_id: list }],
    });
  });

  // The cart's budgets (read 2, add 2 without a coupon) plus the one statement that reads the buyer's list and rules.
  it('is read and added to in 3 round trips: the cart budgets and one for the price list', async () => {
    const p = await product(s, 4000);
    const list = await priceList(s, [{ type: 'fixed', value: 500, applies_to: 'all' }]);
    const c = await company(s, { price_list_id: list });
    const buyer = await signUp(t, s);
    await s.admin('POST', `${B2B}/customers/${c.id}/buyers`, { customer_id: buyer.id });
    const shopper = caller(t, s.tenant, buyer.token);
    const cart = (await shopper('POST', '/api/v1/checkout/carts', {})).json().data;
    await shopper('POST', `/api/v1/checkout/carts/${cart.id}/items`, { variant_id: p.variantId, quantity: 1 });
    const read = await t.countQueries(() => shopper('GET', `/api/v1/checkout/carts/${cart.id}`));
    expect(read.result.json().data.total).toBe(3500);
    expect(read.count, read.statements.join('\n')).toBeLessThanOrEqual(3);
    expect(read.statements.filter((q) => /b2b_price_list/.test(q))).toHaveLength(1);
    const add = await t.countQueries(() => shopper('POST', `/api/v1/checkout/carts/${cart.id}/items`, { variant_id: p.variantId, quantity: 1 }));
    expect(add.result.json().data.total).toBe(7000);
    expect(add.count, add.statements.join('\n')).toBeLessThanOrEqual(3);
    expect(add.statements.filter((q) => /b2b_price_list/.test(q))).toHaveLength(1);
  });
});
