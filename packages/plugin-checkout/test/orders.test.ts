import { TenantContext } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { Orders } from '@qhatu/plugin-orders';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckoutCompletion } from '../src/index.js';
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
  type Checkout,
} from './helpers.js';

// The order is placed when the checkout enters payment_pending; the job that follows its order's
// orders.order.paid (CheckoutCompletion.orderPaid, run here directly; the event path is in
// completion-events.test.ts) completes it.
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let admin: Caller;
let store: Caller;
beforeAll(async () => {
  t = await checkoutApp();
  shop = await t.createTenant({ currency: 'PEN' });
  other = await t.createTenant({ currency: 'PEN' });
  admin = caller(t, shop);
  store = caller(t, shop, shop.storefrontToken);
});
afterAll(async () => t?.close());

const ORDERS = '/api/v1/orders';
const shipping = (id: string, body: unknown, api = store) => api('PUT', `${CHECKOUTS}/${id}/shipping`, body);
const awaitPayment = async (id: string): Promise<Checkout & { order_id: string }> => {
  const res = await shipping(id, { shipping_address: ADDRESS, shipping_rate: RATE });
  if (res.statusCode !== 200) throw new Error(`shipping not set: ${res.body}`);
  return res.json().data;
};
const complete = (tenant: TestTenant, data: { order_id: string }) =>
  TenantContext.run({ tenantId: tenant.id }, () => t.app.container.resolve(CheckoutCompletion).orderPaid({ id: data.order_id, status: 'paid' }));
const outbox = (type: string, key: string, value: string) =>
  t.app.orm.em.getConnection().execute<Array<{ data: Record<string, unknown>; tenant_id: string }>>(
    `select data, tenant_id from core_outbox where type = ? and data->>? = ? order by occurred_at, id`,
    [type, key, value],
  );

/** Orders with a line of this variant, whatever their store. */
const ordersOf = async (variantId: string) =>
  Number((await t.app.orm.em.getConnection().execute<Array<{ n: string }>>(`select count(*) as n from orders_line_item where variant_id = ?`, [variantId]))[0].n);

describe('the order of a checkout', () => {
  it('is placed at payment_pending from the snapshot: lines, addresses, totals, currency, customer, and the coupon’s use', async () => {
    const scarf = await createProduct(admin, { title: 'Scarf', variants: [{ title: 'Grey', price: 8900 }] });
    const hat = await createProduct(admin, { title: 'Hat', variants: [{ title: 'Red', price: 2500 }] });
    await createVolumeTier(admin, scarf.id, 3, 1000); // 10% off 3 scarves: 2670
    const coupon = await createCoupon(admin, { type: 'fixed_amount', value: 1000, currency: 'PEN', max_uses: 5 });
    const { token, customerId } = await customerToken(t, shop);
    const me = caller(t, shop, token);
    const cart = await createCart(me);
    await addItem(me, cart.id, scarf.variants[0].id, 3);
    await addItem(me, cart.id, hat.variants[0].id, 1);
    expect((await me('POST', `${CARTS}/${cart.id}/coupon`, { code: coupon.code })).statusCode).toBe(200);
    const made = (await me('POST', CHECKOUTS, { cart_id: cart.id, email: 'Rosa@Example.com' })).json().data;
    expect(made).toMatchObject({ status: 'pending', order_id: null, completed_at: null, subtotal: 26700 + 2500, discount_total: 2670 + 1000 });

    const res = await shipping(made.id, { shipping_address: ADDRESS, shipping_rate: RATE }, me);
    expect(res.statusCode).toBe(200);
    const checkout = res.json().data;
    expect(checkout).toMatchObject({ status: 'payment_pending', order_id: expect.any(String), total: 26700 + 2500 - 3670 + 1500 });
    expect((await me('GET', `${CHECKOUTS}/${made.id}`)).json().data).toEqual(checkout);

    const order = (await admin('GET', `${ORDERS}/${checkout.order_id}`)).json().data;
    expect(order).toMatchObject({
      status: 'pending',
      customer_id: customerId,
      customer_email: 'rosa@example.com',
      currency: 'PEN',
      subtotal: checkout.subtotal,
      shipping_total: 1500,
      discount_total: checkout.discount_total,
      tax_total: 0,
      total: checkout.total,
      shipping_address: ADDRESS,
    });
    expect(order.line_items).toEqual([
      expect.objectContaining({ variant_id: scarf.variants[0].id, quantity: 3, unit_price_amount: 8900, total_amount: 26700, title: 'Scarf' }),
      expect.objectContaining({ variant_id: hat.variants[0].id, quantity: 1, unit_price_amount: 2500, total_amount: 2500, title: 'Hat' }),
    ]);
    const uses = await outbox('discounts.coupon.applied', 'order_id', checkout.order_id);
    expect(uses.map((u) => u.data)).toEqual([expect.objectContaining({ coupon_id: coupon.id, amount: 1000, customer_id: customerId, currency: 'PEN' })]);
    const read = (await admin('GET', `/api/v1/discounts/coupons/${coupon.id}`)).json();
    expect((read.data ?? read).uses_count).toBe(1);
    expect(await outbox('orders.order.created', 'id', checkout.order_id)).toHaveLength(1);
    expect(await ordersOf(hat.variants[0].id)).toBe(1);
  });

  it('no order without a shipping rate', async () => {
    const c = await createCheckout(store, admin);
    const res = await shipping(c.id, { shipping_address: ADDRESS });
    expect(res.json().data).toMatchObject({ status: 'shipping_set', order_id: null });
  });

  it('a coupon used up since the checkout was made: 422 COUPON_INVALID, no order, the checkout unchanged', async () => {
    const product = await createProduct(admin, { variants: [{ title: 'One', price: 4000 }] });
    const coupon = await createCoupon(admin, { max_uses: 1 });
    const cart = await createCart(store);
    await addItem(store, cart.id, product.variants[0].id, 1);
    await store('POST', `${CARTS}/${cart.id}/coupon`, { code: coupon.code });
    const c = (await store('POST', CHECKOUTS, { cart_id: cart.id, email: 'a@example.com' })).json().data;
    await admin('POST', `/api/v1/discounts/coupons/${coupon.id}/apply`, { discount_amount: 1 });
    const res = await shipping(c.id, { shipping_address: ADDRESS, shipping_rate: RATE });
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ code: 'COUPON_INVALID', details: [{ reason: 'usage_limit_reached' }] });
    expect((await store('GET', `${CHECKOUTS}/${c.id}`)).json().data).toMatchObject({ status: 'pending', order_id: null, shipping_rate: null });
    expect(await ordersOf(product.variants[0].id)).toBe(0);
  });

  it('prices changed in the catalog since the checkout: the shipping step takes the new prices, as the checkout read showed them', async () => {
    const product = await createProduct(admin, { variants: [{ title: 'One', price: 3000 }] });
    const cart = await createCart(store);
    await addItem(store, cart.id, product.variants[0].id, 1);
    const c = (await store('POST', CHECKOUTS, { cart_id: cart.id, email: 'a@example.com' })).json().data;
    expect(c.total).toBe(3000);
    expect((await admin('PATCH', `/api/v1/catalog/products/${product.id}/variants/${product.variants[0].id}`, { price: 3500 })).statusCode).toBe(200);
    expect((await store('GET', `${CHECKOUTS}/${c.id}`)).json().data).toMatchObject({ status: 'pending', subtotal: 3500, total: 3500 });
    const res = await shipping(c.id, { shipping_address: ADDRESS, shipping_rate: RATE });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'payment_pending', subtotal: 3500, total: 5000 });
    expect((await admin('GET', `${ORDERS}/${res.json().data.order_id}`)).json().data).toMatchObject({ subtotal: 3500, total: 5000 });
  });

  it('a checkout whose items can no longer be sold: the shipping step is 422 CART_EMPTY, no order', async () => {
    const product = await createProduct(admin, { variants: [{ title: 'One', price: 3000 }] });
    const cart = await createCart(store);
    await addItem(store, cart.id, product.variants[0].id, 1);
    const c = (await store('POST', CHECKOUTS, { cart_id: cart.id, email: 'a@example.com' })).json().data;
    expect((await admin('PATCH', `/api/v1/catalog/products/${product.id}`, { status: 'archived' })).statusCode).toBe(200);
    expect((await store('GET', `${CHECKOUTS}/${c.id}`)).json().data).toMatchObject({ line_items: [], subtotal: 0, total: 0 });
    const res = await shipping(c.id, { shipping_address: ADDRESS, shipping_rate: RATE });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('CART_EMPTY');
    expect((await store('GET', `${CHECKOUTS}/${c.id}`)).json().data).toMatchObject({ status: 'pending', order_id: null });
    expect(await ordersOf(product.variants[0].id)).toBe(0);
  });

  it('abandoning a checkout awaiting payment cancels its order; once the payment is confirmed it is 409 CHECKOUT_ORDER_PAID', async () => {
    const c = await awaitPayment((await createCheckout(store, admin)).id);
    const res = await store('POST', `${CHECKOUTS}/${c.id}/abandon`);
    expect(res.json().data).toMatchObject({ status: 'abandoned', order_id: c.order_id });
    expect((await admin('GET', `${ORDERS}/${c.order_id}`)).json().data.status).toBe('cancelled');

    const paid = await awaitPayment((await createCheckout(store, admin)).id);
    await TenantContext.run({ tenantId: shop.id }, () => t.app.container.resolve(Orders).paymentConfirmed({ payment_id: 'pay_x', order_id: paid.order_id, amount: paid.total, currency: 'PEN' }));
    expect((await admin('GET', `${ORDERS}/${paid.order_id}`)).json().data.status).not.toBe('pending');
    const refused = await store('POST', `${CHECKOUTS}/${paid.id}/abandon`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toMatchObject({ code: 'CHECKOUT_ORDER_PAID', details: [{ order_id: paid.order_id }] });
    expect((await store('GET', `${CHECKOUTS}/${paid.id}`)).json().data.status).toBe('payment_pending');
  });
});

describe('completion by the order paid', () => {
  it('payment_pending → completed once its order is paid; a second run does nothing', async () => {
    const c = await awaitPayment((await createCheckout(store, admin)).id);
    const done = await complete(shop, { order_id: c.order_id });
    expect(done).toMatchObject({ id: c.id, status: 'completed' });
    expect(await complete(shop, { order_id: c.order_id })).toBeNull();
    const read = (await store('GET', `${CHECKOUTS}/${c.id}`)).json().data;
    expect(read).toMatchObject({ status: 'completed', order_id: c.order_id, completed_at: expect.any(String) });
    expect(await outbox('checkout.checkout.completed', 'id', c.id)).toEqual([expect.objectContaining({ data: expect.objectContaining({ status: 'completed', order_id: c.order_id }) })]);
    // Final: no more shipping changes nor abandon.
    expect((await shipping(c.id, { shipping_address: ADDRESS })).json().error.code).toBe('INVALID_STATE_TRANSITION');
    expect((await store('POST', `${CHECKOUTS}/${c.id}/abandon`)).json().error.code).toBe('INVALID_STATE_TRANSITION');
  });

  it('ignores unusable data, unknown orders and checkouts that do not await payment', async () => {
    expect(await complete(shop, { order_id: 'nope' })).toBeNull();
    expect(await complete(shop, { order_id: MISSING })).toBeNull();
    const c = await awaitPayment((await createCheckout(store, admin)).id);
    await store('POST', `${CHECKOUTS}/${c.id}/abandon`);
    expect(await complete(shop, { order_id: c.order_id })).toBeNull();
    expect((await store('GET', `${CHECKOUTS}/${c.id}`)).json().data.status).toBe('abandoned');
  });

  it('run concurrently, exactly one completion happens', async () => {
    const c = await awaitPayment((await createCheckout(store, admin)).id);
    const runs = await Promise.all(Array.from({ length: 6 }, () => complete(shop, { order_id: c.order_id })));
    expect(runs.filter((r) => r !== null)).toHaveLength(1);
    expect(await outbox('checkout.checkout.completed', 'id', c.id)).toHaveLength(1);
    expect((await store('GET', `${CHECKOUTS}/${c.id}`)).json().data.status).toBe('completed');
  });

  it('tenant isolation: another store’s event does not complete this checkout; its keys cannot read it', async () => {
    const c = await awaitPayment((await createCheckout(store, admin)).id);
    expect(await complete(other, { order_id: c.order_id })).toBeNull();
    expect((await store('GET', `${CHECKOUTS}/${c.id}`)).json().data.status).toBe('payment_pending');
    const theirs = caller(t, other, other.storefrontToken);
    expect((await theirs('GET', `${CHECKOUTS}/${c.id}`)).statusCode).toBe(404);
    expect((await caller(t, other)('GET', `${ORDERS}/${c.order_id}`)).statusCode).toBe(404);
    expect((await theirs('POST', `${CHECKOUTS}/${c.id}/abandon`)).statusCode).toBe(404);
    expect((await admin('GET', `${ORDERS}/${c.order_id}`)).json().data.status).toBe('pending');
  });
});
