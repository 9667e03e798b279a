import { Database } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addItem, ADDRESS, caller, CARTS, CHECKOUTS, checkoutApp, createCart, createCheckout, createCoupon, createProduct, customerToken, RATE, until, type Caller } from './helpers.js';

// The payments plugin (stood in for by `paymentsAnnouncer`) publishes payments.payment.confirmed;
// the orders plugin's job pays the order, and its orders.order.paid is handed by the outbox relay to
// the checkout plugin's job, which completes the checkout. Workers run here, as in production.
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let admin: Caller;
let store: Caller;
beforeAll(async () => {
  t = await checkoutApp({ workers: true });
  shop = await t.createTenant({ currency: 'PEN' });
  other = await t.createTenant({ currency: 'PEN' });
  admin = caller(t, shop);
  store = caller(t, shop, shop.storefrontToken);
});
afterAll(async () => t?.close());

const raise = (tenant: TestTenant, data: Record<string, unknown>) =>
  t.app.container.resolve(Database).tenant(async (tx) => void tx.publish('payments.payment.confirmed', data), tenant.id);
const outbox = (type: string, id: string) =>
  t.app.orm.em.getConnection().execute<Array<{ data: Record<string, unknown> }>>(`select data from core_outbox where type = ? and data->>'id' = ?`, [type, id]);
const read = async (id: string) => (await store('GET', `${CHECKOUTS}/${id}`)).json().data;

async function awaitingPayment() {
  const c = await createCheckout(store, admin);
  const res = await store('PUT', `${CHECKOUTS}/${c.id}/shipping`, { shipping_address: ADDRESS, shipping_rate: RATE });
  expect(res.statusCode).toBe(200);
  return res.json().data as { id: string; order_id: string; total: number; currency: string };
}

describe('payments.payment.confirmed → orders.order.paid', () => {
  it('completes the checkout once its order is paid (a store without warehouses: nothing to reserve); the storefront sees it by polling GET', async () => {
    const c = await awaitingPayment();
    await raise(shop, { payment_id: 'pay_1', order_id: c.order_id, amount: c.total, currency: c.currency });
    await until(async () => (await read(c.id)).status === 'completed');
    expect(await read(c.id)).toMatchObject({ status: 'completed', order_id: c.order_id, completed_at: expect.any(String) });
    // The order was paid first: its paid event is what completed the checkout.
    expect((await admin('GET', `/api/v1/orders/${c.order_id}`)).json().data.status).toBe('paid');
    expect(await outbox('checkout.checkout.completed', c.id)).toHaveLength(1);
  });

  it('POST /complete then answers the completed checkout, as often as it is asked', async () => {
    const c = await awaitingPayment();
    await raise(shop, { payment_id: 'pay_5', order_id: c.order_id, amount: c.total, currency: c.currency });
    await until(async () => (await read(c.id)).status === 'completed');
    for (let i = 0; i < 2; i++) {
      const done = await store('POST', `${CHECKOUTS}/${c.id}/complete`, { order_id: c.order_id });
      expect(done.statusCode).toBe(200);
      expect(done.json().data).toMatchObject({ status: 'completed', order_id: c.order_id });
    }
    expect(await outbox('checkout.checkout.completed', c.id)).toHaveLength(1);
  });

  it('paid in two parts: the first leaves the checkout payment_pending, the second completes it by itself', async () => {
    const c = await awaitingPayment();
    await raise(shop, { payment_id: 'pay_2a', order_id: c.order_id, amount: c.total - 100, currency: c.currency });
    await until(async () => (await admin('GET', `/api/v1/orders/${c.order_id}`)).json().data.amount_paid === c.total - 100);
    await new Promise((r) => setTimeout(r, 300));
    expect(await read(c.id)).toMatchObject({ status: 'payment_pending', completed_at: null });
    expect((await store('POST', `${CHECKOUTS}/${c.id}/complete`, { order_id: c.order_id })).json().error.code).toBe('PAYMENT_NOT_CONFIRMED');
    await raise(shop, { payment_id: 'pay_2b', order_id: c.order_id, amount: 100, currency: c.currency });
    await until(async () => (await read(c.id)).status === 'completed');
    expect((await admin('GET', `/api/v1/orders/${c.order_id}`)).json().data).toMatchObject({ status: 'paid', amount_paid: c.total, amount_due: 0 });
    expect(await outbox('checkout.checkout.completed', c.id)).toHaveLength(1);
  });

  it('another store’s event naming this order changes nothing', async () => {
    const c = await awaitingPayment();
    const marker = await awaitingPayment();
    await raise(other, { payment_id: 'pay_3', order_id: c.order_id, amount: c.total, currency: c.currency });
    // A later event of this store, then a grace period: the other store's job has had its chance to run.
    await raise(shop, { payment_id: 'pay_4', order_id: marker.order_id, amount: marker.total, currency: marker.currency });
    await until(async () => (await read(marker.id)).status === 'completed');
    await new Promise((r) => setTimeout(r, 500));
    expect((await read(c.id)).status).toBe('payment_pending');
  });
});

describe('coupons of cancelled orders', () => {
  it("a cancelled order gives its coupon's use back: the use is kept, released, and the coupon may be used again", async () => {
    const scarf = await createProduct(admin, { title: 'Scarf', variants: [{ title: 'Grey', price: 8900 }] });
    const coupon = await createCoupon(admin, { type: 'fixed_amount', value: 1000, currency: 'PEN', max_uses: 1, max_uses_per_customer: 1 });
    const { token } = await customerToken(t, shop);
    const me = caller(t, shop, token);
    const order = async () => {
      const cart = await createCart(me);
      await addItem(me, cart.id, scarf.variants[0].id, 1);
      expect((await me('POST', `${CARTS}/${cart.id}/coupon`, { code: coupon.code })).statusCode).toBe(200);
      const made = (await me('POST', CHECKOUTS, { cart_id: cart.id, email: 'rosa@example.com' })).json().data;
      return (await me('PUT', `${CHECKOUTS}/${made.id}/shipping`, { shipping_address: ADDRESS, shipping_rate: RATE })).json().data as { order_id: string; discount_total: number };
    };
    const uses = async () => (await admin('GET', `/api/v1/discounts/coupons/${coupon.id}`)).json().data.uses_count as number;
    const first = await order();
    expect(first.discount_total).toBe(1000);
    expect(await uses()).toBe(1);

    expect((await admin('POST', `/api/v1/orders/${first.order_id}/cancel`, { reason: 'customer' })).statusCode).toBe(200);
    await until(async () => (await uses()) === 0);
    const [redemption] = (await admin('GET', `/api/v1/discounts/coupons/${coupon.id}/redemptions`)).json().data;
    expect(redemption).toMatchObject({ order_id: first.order_id, amount: 1000, released_at: expect.any(String) });

    // Both limits (1 use, 1 per customer) count the use no more: the same customer uses it again.
    const second = await order();
    expect(second.discount_total).toBe(1000);
    expect(await uses()).toBe(1);
  });
});
