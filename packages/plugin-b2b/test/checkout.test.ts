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
