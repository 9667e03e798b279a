import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addItem, caller, CARTS, CHECKOUTS, checkoutApp, createCart, createProduct, DAY, HOUR, TestClock, type Caller, type ProductOut } from './helpers.js';

const clock = new TestClock();
let t: TestApp;
let shop: TestTenant;
let store: Caller;
let product: ProductOut;
beforeAll(async () => {
  t = await checkoutApp({ clock });
  shop = await t.createTenant();
  store = caller(t, shop, shop.storefrontToken);
  product = await createProduct(caller(t, shop));
});
afterAll(async () => t?.close());

describe('cart lifetime: 7 days after the last change', () => {
  it('each change moves expires_at; a read does not', async () => {
    const cart = await createCart(store);
    clock.advance(3 * DAY);
    expect((await store('GET', `${CARTS}/${cart.id}`)).json().data.expires_at).toBe(cart.expires_at);
    const changed = await addItem(store, cart.id, product.variants[0].id, 1);
    expect(Date.parse(changed.expires_at) - Date.parse(cart.expires_at)).toBe(3 * DAY);
    clock.advance(7 * DAY - HOUR);
    expect((await store('GET', `${CARTS}/${cart.id}`)).statusCode).toBe(200);
  });

  it('an expired cart is 410 CART_EXPIRED on every operation', async () => {
    const cart = await createCart(store);
    await addItem(store, cart.id, product.variants[0].id, 1);
    clock.advance(7 * DAY);
    const v = product.variants[0].id;
    const answers = [
      await store('GET', `${CARTS}/${cart.id}`),
      await store('POST', `${CARTS}/${cart.id}/items`, { variant_id: v, quantity: 1 }),
      await store('PUT', `${CARTS}/${cart.id}/items/${v}`, { quantity: 2 }),
      await store('DELETE', `${CARTS}/${cart.id}/items/${v}`),
      await store('POST', `${CARTS}/${cart.id}/coupon`, { code: 'ANY' }),
      await store('DELETE', `${CARTS}/${cart.id}/coupon`),
      await store('POST', CHECKOUTS, { cart_id: cart.id, email: 'a@example.com' }),
    ];
    for (const res of answers) {
      expect(res.statusCode).toBe(410);
      expect(res.json().error.code).toBe('CART_EXPIRED');
    }
  });

  it('the lifetime is a setting (QHATU_CHECKOUT_CART_TTL_HOURS)', async () => {
    const short = await checkoutApp({ clock, env: { QHATU_CHECKOUT_CART_TTL_HOURS: '2' } });
    try {
      const tenant = await short.createTenant();
      const api = caller(short, tenant, tenant.storefrontToken);
      const cart = await createCart(api);
      expect(Date.parse(cart.expires_at) - Date.parse(cart.updated_at)).toBe(2 * HOUR);
      clock.advance(2 * HOUR);
      expect((await api('GET', `${CARTS}/${cart.id}`)).statusCode).toBe(410);
    } finally {
      await short.close();
    }
  });
});
