import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addItem,
  ADDRESS,
  caller,
  CARTS,
  CHECKOUTS,
  checkoutApp,
  createCart,
  createCheckout,
  createCoupon,
  createProduct,
  createVolumeTier,
  customerToken,
  MISSING,
  RATE,
  type Caller,
  type ProductOut,
} from './helpers.js';

let t: TestApp;
let shop: TestTenant;
let admin: Caller;
let store: Caller;
let scarf: ProductOut;
beforeAll(async () => {
  t = await checkoutApp();
  shop = await t.createTenant({ currency: 'PEN' });
  admin = caller(t, shop);
  store = caller(t, shop, shop.storefrontToken);
  scarf = await createProduct(admin, { variants: [{ title: 'Grey', price: 8900 }] });
});
afterAll(async () => t?.close());

const shipping = (id: string, body: unknown) => store('PUT', `${CHECKOUTS}/${id}/shipping`, body);

describe('POST /checkouts', () => {
  it('makes a pending checkout with a snapshot of the cart’s lines and totals, and freezes the cart', async () => {
    await createVolumeTier(admin, scarf.id, 3, 1000);
    const coupon = await createCoupon(admin, { type: 'fixed_amount', value: 1000, currency: 'PEN' });
    const cart = await createCart(store);
    await addItem(store, cart.id, scarf.variants[0].id, 3); // 26700, volume 2670
    await store('POST', `${CARTS}/${cart.id}/coupon`, { code: coupon.code });
    const res = await store('POST', CHECKOUTS, { cart_id: cart.id, email: 'Rosa@Example.com', currency: 'PEN' });
    expect(res.statusCode).toBe(201);
    const checkout = res.json().data;
    expect(checkout).toMatchObject({
      cart_id: cart.id,
      customer_id: null,
      email: 'rosa@example.com',
      status: 'pending',
      currency: 'PEN',
      coupon_code: coupon.code,
      subtotal: 26700,
      shipping_total: 0,
      discount_total: 2670 + 1000,
      tax_total: 0,
      total: 26700 - 3670,
      shipping_address: null,
      billing_address: null,
      shipping_rate: null,
    });
    expect(checkout.line_items).toEqual([expect.objectContaining({ variant_id: scarf.variants[0].id, quantity: 3, unit_price: 8900, volume_discount: 2670, total: 24030 })]);
    expect((await store('GET', `${CHECKOUTS}/${checkout.id}`)).json().data).toEqual(checkout);
    expect((await store('GET', `${CARTS}/${cart.id}`)).json().data.checkout_id).toBe(checkout.id);
  });

  it('a frozen cart refuses every change with 409 CART_FROZEN, and a second checkout with 409 CHECKOUT_EXISTS', async () => {
    const checkout = await createCheckout(store, admin);
    const cartId = checkout.cart_id;
    const variantId = (checkout.line_items as Array<{ variant_id: string }>)[0].variant_id;
    const attempts = [
      store('POST', `${CARTS}/${cartId}/items`, { variant_id: scarf.variants[0].id, quantity: 1 }),
      store('PUT', `${CARTS}/${cartId}/items/${variantId}`, { quantity: 5 }),
      store('DELETE', `${CARTS}/${cartId}/items/${variantId}`),
      store('POST', `${CARTS}/${cartId}/coupon`, { code: 'ANY' }),
      store('DELETE', `${CARTS}/${cartId}/coupon`),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.statusCode).toBe(409);
      expect(res.json().error).toMatchObject({ code: 'CART_FROZEN', details: [{ checkout_id: checkout.id }] });
    }
    const again = await store('POST', CHECKOUTS, { cart_id: cartId, email: 'a@example.com' });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('CHECKOUT_EXISTS');
    expect((await store('GET', `${CARTS}/${cartId}`)).json().data.item_count).toBe(2);
  });

  it('two checkouts of one cart at once: exactly one is made', async () => {
    const cart = await createCart(store);
    await addItem(store, cart.id, scarf.variants[0].id, 1);
    const results = await Promise.all(Array.from({ length: 5 }, () => store('POST', CHECKOUTS, { cart_id: cart.id, email: 'a@example.com' })));
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409, 409]);
  });

  it('refuses an empty cart (422 CART_EMPTY), another currency, a coupon that no longer applies, unknown carts', async () => {
    const empty = await createCart(store);
    const res = await store('POST', CHECKOUTS, { cart_id: empty.id, email: 'a@example.com' });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('CART_EMPTY');
    const cart = await createCart(store);
    await addItem(store, cart.id, scarf.variants[0].id, 1);
    expect((await store('POST', CHECKOUTS, { cart_id: cart.id, email: 'a@example.com', currency: 'USD' })).json().error.code).toBe('CURRENCY_MISMATCH');
    const limited = await createCoupon(admin, { max_uses: 1 });
    await store('POST', `${CARTS}/${cart.id}/coupon`, { code: limited.code });
    // Used up elsewhere in the meantime.
    await admin('POST', `/api/v1/discounts/coupons/${limited.id}/apply`, { discount_amount: 1 });
    const refused = await store('POST', CHECKOUTS, { cart_id: cart.id, email: 'a@example.com' });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error).toMatchObject({ code: 'COUPON_INVALID', details: [{ reason: 'usage_limit_reached' }] });
    const missing = await store('POST', CHECKOUTS, { cart_id: MISSING, email: 'a@example.com' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('CART_NOT_FOUND');
  });

  it('refuses bad bodies with 400 INVALID_REQUEST', async () => {
    const cart = await createCart(store);
    for (const body of [{}, { cart_id: cart.id }, { email: 'a@example.com' }, { cart_id: 'x', email: 'a@example.com' }, { cart_id: cart.id, email: 'not-an-email' }, { cart_id: cart.id, email: 'a@example.com', currency: 'usd' }, { cart_id: cart.id, email: 'a@example.com', extra: 1 }]) {
      const res = await store('POST', CHECKOUTS, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('INVALID_REQUEST');
    }
  });

  it('a customer checks out their own cart as themselves', async () => {
    const { token, customerId } = await customerToken(t, shop);
    const me = caller(t, shop, token);
    const cart = await createCart(me);
    await addItem(me, cart.id, scarf.variants[0].id, 1);
    expect((await me('POST', CHECKOUTS, { cart_id: cart.id, email: 'me@example.com', customer_id: MISSING })).statusCode).toBe(403);
    const res = await me('POST', CHECKOUTS, { cart_id: cart.id, email: 'me@example.com' });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.customer_id).toBe(customerId);
    const other = caller(t, shop, (await customerToken(t, shop)).token);
    expect((await other('GET', `${CHECKOUTS}/${res.json().data.id}`)).json().error.code).toBe('CHECKOUT_NOT_FOUND');
    expect((await me('GET', `${CHECKOUTS}/${res.json().data.id}`)).statusCode).toBe(200);
  });
});

describe('GET /checkouts/:id', () => {
  it('404 CHECKOUT_NOT_FOUND, 400 INVALID_ID', async () => {
    const missing = await store('GET', `${CHECKOUTS}/${MISSING}`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('CHECKOUT_NOT_FOUND');
    const bad = await store('GET', `${CHECKOUTS}/42`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('INVALID_ID');
  });
});

describe('checkout states', () => {
  it('pending → shipping_set by addresses; billing defaults to shipping', async () => {
    const c = await createCheckout(store, admin);
    const res = await shipping(c.id, { shipping_address: ADDRESS });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'shipping_set', shipping_address: ADDRESS, billing_address: ADDRESS, shipping_rate: null, shipping_total: 0, total: 2000 });
  });

  it('pending → payment_pending by addresses with a shipping rate; the total counts shipping', async () => {
    const c = await createCheckout(store, admin);
    const billing = { ...ADDRESS, first_name: 'Ana', phone: undefined };
    const res = await shipping(c.id, { shipping_address: ADDRESS, billing_address: billing, shipping_rate: RATE });
    expect(res.json().data).toMatchObject({ status: 'payment_pending', billing_address: { first_name: 'Ana', phone: null }, shipping_rate: RATE, shipping_total: 1500, total: 2000 + 1500 });
  });

  it('shipping_set → shipping_set → payment_pending; once the order is placed the shipping step is 409 CHECKOUT_ORDER_PLACED', async () => {
    const c = await createCheckout(store, admin);
    await shipping(c.id, { shipping_address: ADDRESS });
    expect((await shipping(c.id, { shipping_address: { ...ADDRESS, city: 'Lima' } })).json().data).toMatchObject({ status: 'shipping_set', shipping_address: { city: 'Lima' }, order_id: null });
    const placed = (await shipping(c.id, { shipping_address: ADDRESS, shipping_rate: RATE })).json().data;
    expect(placed).toMatchObject({ status: 'payment_pending', total: 3500, order_id: expect.any(String) });
    for (const body of [{ shipping_address: ADDRESS, shipping_rate: { ...RATE, price: 900 } }, { shipping_address: ADDRESS }]) {
      const res = await shipping(c.id, body);
      expect(res.statusCode).toBe(409);
      expect(res.json().error).toMatchObject({ code: 'CHECKOUT_ORDER_PLACED', details: [{ order_id: placed.order_id }] });
    }
    expect((await store('GET', `${CHECKOUTS}/${c.id}`)).json().data).toMatchObject({ status: 'payment_pending', total: 3500, order_id: placed.order_id });
  });

  it('pending, shipping_set and payment_pending → abandoned', async () => {
    for (const step of [null, { shipping_address: ADDRESS }, { shipping_address: ADDRESS, shipping_rate: RATE }]) {
      const c = await createCheckout(store, admin);
      if (step) await shipping(c.id, step);
      const res = await store('POST', `${CHECKOUTS}/${c.id}/abandon`);
      expect(res.statusCode).toBe(200);
      expect(res.json().data.status).toBe('abandoned');
      expect(res.json().data.abandoned_at).toEqual(expect.any(String));
    }
  });

  it('abandoned is final: abandon again answers it unchanged (no second event); shipping is 409 INVALID_STATE_TRANSITION', async () => {
    const c = await createCheckout(store, admin);
    const first = await store('POST', `${CHECKOUTS}/${c.id}/abandon`);
    const again = await store('POST', `${CHECKOUTS}/${c.id}/abandon`);
    expect(again.statusCode).toBe(200);
    expect(again.json().data).toEqual(first.json().data);
    const events = await t.app.orm.em.getConnection().execute(`select id from core_outbox where type = 'checkout.checkout.abandoned' and data->>'id' = ?`, [c.id]);
    expect(events).toHaveLength(1);
    for (const body of [{ shipping_address: ADDRESS }, { shipping_address: ADDRESS, shipping_rate: RATE }]) {
      const res = await shipping(c.id, body);
      expect(res.statusCode).toBe(409);
      expect(res.json().error.code).toBe('INVALID_STATE_TRANSITION');
    }
    expect((await store('GET', `${CHECKOUTS}/${c.id}`)).json().data).toMatchObject({ status: 'abandoned', shipping_address: null });
  });

  it('POST /complete needs the checkout’s own order with a confirmed payment: there is no payment shortcut', async () => {
    const c = await createCheckout(store, admin);
    const early = await store('POST', `${CHECKOUTS}/${c.id}/complete`, { order_id: MISSING });
    expect(early.statusCode).toBe(409);
    expect(early.json().error.code).toBe('INVALID_STATE_TRANSITION');
    const placed = (await store('PUT', `${CHECKOUTS}/${c.id}/shipping`, { shipping_address: ADDRESS, shipping_rate: RATE })).json().data;
    const wrong = await store('POST', `${CHECKOUTS}/${c.id}/complete`, { order_id: MISSING });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().error.code).toBe('ORDER_MISMATCH');
    const unpaid = await store('POST', `${CHECKOUTS}/${c.id}/complete`, { order_id: placed.order_id });
    expect(unpaid.statusCode).toBe(409);
    expect(unpaid.json().error).toMatchObject({ code: 'PAYMENT_NOT_CONFIRMED', details: [expect.objectContaining({ order_status: 'pending' })] });
    expect((await store('POST', `${CHECKOUTS}/${c.id}/complete`, { order_id: 'nope' })).json().error.code).toBe('INVALID_REQUEST');
    expect((await store('POST', `${CHECKOUTS}/${c.id}/complete`, {})).json().error.code).toBe('INVALID_REQUEST');
    expect((await store('GET', `${CHECKOUTS}/${c.id}`)).json().data.status).toBe('payment_pending');
  });

  it('POST /complete completes the checkout itself when its order is paid and the payment job has not run yet', async () => {
    const c = await createCheckout(store, admin);
    const placed = (await store('PUT', `${CHECKOUTS}/${c.id}/shipping`, { shipping_address: ADDRESS, shipping_rate: RATE })).json().data;
    // Stock for the order's lines, then the orders plugin's own handling of a confirmed payment
    // (no workers here: the checkout's job for the same event never runs).
    const order = (await admin('GET', `/api/v1/orders/${placed.order_id}`)).json().data;
    const warehouse = (await admin('POST', '/api/v1/inventory/warehouses', { name: 'Main', code: `CO-${c.id.slice(0, 6)}` })).json().data;
    for (const line of order.line_items) {
      await admin('POST', `/api/v1/inventory/warehouses/${warehouse.id}/stock/adjust`, { variant_id: line.variant_id, delta: 50, reason: 'received' });
    }
    const { Orders } = await import('@qhatu/plugin-orders');
    const { TenantContext } = await import('@qhatu/core');
    await TenantContext.run({ tenantId: shop.id }, () =>
      t.app.container.resolve(Orders).paymentConfirmed({ payment_id: 'pay_direct', order_id: placed.order_id, amount: placed.total, currency: placed.currency }),
    );
    expect((await admin('GET', `/api/v1/orders/${placed.order_id}`)).json().data.status).toBe('paid');
    const done = await store('POST', `${CHECKOUTS}/${c.id}/complete`, { order_id: placed.order_id });
    expect(done.statusCode).toBe(200);
    expect(done.json().data).toMatchObject({ status: 'completed', order_id: placed.order_id, completed_at: expect.any(String) });
  });

  it('shipping and abandon: bad input 400 INVALID_REQUEST, bad ids INVALID_ID, unknown ids CHECKOUT_NOT_FOUND', async () => {
    const c = await createCheckout(store, admin);
    const { phone: _phone, ...noPhone } = ADDRESS;
    for (const body of [{}, { shipping_address: {} }, { shipping_address: noPhone }, { shipping_address: { ...ADDRESS, country_code: 'PER' } }, { shipping_address: ADDRESS, shipping_rate: { carrier: 'x', service: 'y', price: -1 } }, { shipping_address: ADDRESS, shipping_rate: { carrier: 'x', service: 'y', price: 1.5 } }, { shipping_address: ADDRESS, extra: 1 }]) {
      const res = await shipping(c.id, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('INVALID_REQUEST');
    }
    expect((await shipping('nope', { shipping_address: ADDRESS })).json().error.code).toBe('INVALID_ID');
    expect((await shipping(MISSING, { shipping_address: ADDRESS })).json().error.code).toBe('CHECKOUT_NOT_FOUND');
    expect((await store('POST', `${CHECKOUTS}/nope/abandon`)).json().error.code).toBe('INVALID_ID');
    expect((await store('POST', `${CHECKOUTS}/${MISSING}/abandon`)).json().error.code).toBe('CHECKOUT_NOT_FOUND');
    expect((await store('GET', `${CHECKOUTS}/${c.id}`)).json().data.status).toBe('pending');
  });
});

describe('events', () => {
  it('cart and checkout changes go through the outbox', async () => {
    const c = await createCheckout(store, admin);
    await shipping(c.id, { shipping_address: ADDRESS, shipping_rate: RATE });
    await store('POST', `${CHECKOUTS}/${c.id}/abandon`);
    const rows = await t.app.orm.em.getConnection().execute<{ type: string; data: Record<string, unknown> }[]>(
      `select type, data from core_outbox where data->>'id' in (?, ?) order by occurred_at, type`,
      [c.id, c.cart_id],
    );
    expect(rows.map((r) => r.type)).toEqual(['checkout.cart.created', 'checkout.cart.updated', 'checkout.checkout.created', 'checkout.checkout.updated', 'checkout.checkout.abandoned']);
    expect(rows[3].data).toMatchObject({ id: c.id, status: 'payment_pending', total: 3500, shipping_total: 1500 });
    expect(rows[3].data).not.toHaveProperty('shipping_address');
  });
});
