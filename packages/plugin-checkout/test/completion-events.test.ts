import { Database } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS, caller, CHECKOUTS, checkoutApp, createCheckout, RATE, type Caller } from './helpers.js';

// The payments plugin (stood in for by `paymentsAnnouncer`) publishes payments.payment.confirmed;
// the outbox relay hands it to the checkout plugin, which queues its job after commit. Workers run
// here, as in production.
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

async function until(check: () => Promise<boolean>, ms = 15_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('timed out waiting');
}

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

describe('payments.payment.confirmed', () => {
  it('completes the checkout of the paid order through the job; the storefront sees it by polling GET', async () => {
    const c = await awaitingPayment();
    await raise(shop, { payment_id: 'pay_1', order_id: c.order_id, amount: c.total, currency: c.currency });
    await until(async () => (await read(c.id)).status === 'completed');
    expect(await read(c.id)).toMatchObject({ status: 'completed', order_id: c.order_id, completed_at: expect.any(String) });
    // The orders plugin took the same event: the order left pending.
    await until(async () => (await admin('GET', `/api/v1/orders/${c.order_id}`)).json().data.status !== 'pending');
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

  it('a payment of another amount leaves the checkout payment_pending', async () => {
    const c = await awaitingPayment();
    await raise(shop, { payment_id: 'pay_2', order_id: c.order_id, amount: c.total - 100, currency: c.currency });
    await until(async () => (await outbox('checkout.checkout.payment_mismatch', c.id)).length > 0);
    expect(await read(c.id)).toMatchObject({ status: 'payment_pending', completed_at: null });
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
