import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { fullStore, ok, type FullStore } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import stripe from '../src/index.js';
import { StripeDouble } from './fixtures/stripe-double.js';
import { configure, newAccount, notify, outbox, PAYMENTS, until, type Caller, type StripeAccount } from './helpers.js';

// cart → checkout → order → payment on Stripe → signed notification → order paid (stock reserved)
// → checkout completed → refund → order refunded; workers run the event jobs, as in production.
let double: StripeDouble;
let account: StripeAccount;
let s: FullStore;
let t: TestApp;
let shop: TestTenant;
let admin: Caller;
let store: Caller;
let warehouse: string;
beforeAll(async () => {
  account = newAccount();
  double = await new StripeDouble(new Set([account.secret_key])).start();
  s = await fullStore(stripe, 'QHATU_GATEWAY_STRIPE_BASE_URL', double.url, (a) => configure(a, account));
  ({ t, shop, admin, store, warehouse } = s);
});
afterAll(async () => {
  await t?.close();
  await double?.close();
});

/** A checkout awaiting payment for 2 units of a product with 5 in stock; and its variant. */
async function awaitingPayment() {
  const placed = await s.awaitingPayment();
  expect(placed.checkout).toMatchObject({ status: 'payment_pending', order_id: expect.any(String), total: 9500, currency: 'PEN' });
  return placed;
}
const orderStatus = (id: string) => s.orderStatus(id);
const checkoutStatus = (id: string) => s.checkoutStatus(id);
const level = (warehouseId: string, variant: string) => s.level(warehouseId, variant);

describe('the whole path on Stripe', () => {
  it('cart → checkout → payment → notification → order paid → checkout completed → refund → order refunded', async () => {
    const { checkout: c, variant } = await awaitingPayment();
    const payment = await ok(await store('POST', PAYMENTS, { order_id: c.order_id, gateway: 'stripe', amount: c.total, currency: c.currency, payment_method_id: 'pm_card_processing' }), 201);
    expect(payment.status).toBe('processing');
    expect(await orderStatus(c.order_id)).toBe('pending');

    const intent = double.settle(payment.provider_payment_id, 'succeeded');
    const res = await notify(t, shop.id, double.event('payment_intent.succeeded', intent, account.webhook_secret));
    expect(res.json().data.outcome).toBe('processed');

    await until(async () => (await orderStatus(c.order_id)) === 'paid');
    await until(async () => (await checkoutStatus(c.id)) === 'completed');
    const history = (await admin('GET', `/api/v1/orders/${c.order_id}`)).json().data.history;
    expect(history.map((h: { from: string; to: string }) => `${h.from}→${h.to}`)).toEqual(['pending→confirmed', 'confirmed→paid']);
    expect(JSON.stringify(await level(warehouse, variant))).toContain('"reserved":2');
    const [captured] = await outbox(t, 'payments.payment.captured', payment.id);
    expect(captured.data).toMatchObject({ id: payment.id, order_id: c.order_id, amount: 9500, currency: 'PEN', method: 'card', status: 'paid' });

    const refund = await ok(await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0, reason: 'requested_by_customer' }), 201);
    expect(refund).toMatchObject({ amount: 9500, status: 'refunded' });
    expect((await admin('GET', `${PAYMENTS}/${payment.id}`)).json().data).toMatchObject({ status: 'refunded', refunded_amount: 9500 });
    expect(await orderStatus(c.order_id)).toBe('refunded');
    expect(JSON.stringify(await level(warehouse, variant))).toContain('"reserved":0');
  });

  it('a payment paid at once (no 3-D Secure) takes the same path without a notification', async () => {
    const { checkout: c } = await awaitingPayment();
    const payment = await ok(await store('POST', PAYMENTS, { order_id: c.order_id, gateway: 'stripe', amount: c.total, currency: c.currency, payment_method_id: 'pm_card_visa' }), 201);
    expect(payment.status).toBe('paid');
    await until(async () => (await checkoutStatus(c.id)) === 'completed' && (await orderStatus(c.order_id)) === 'paid');
    // A late notification for the same intent changes nothing more.
    const late = await notify(t, shop.id, double.event('payment_intent.succeeded', double.intents.get(payment.provider_payment_id)!, account.webhook_secret));
    expect(late.json().data.outcome).toBe('processed');
    expect(await outbox(t, 'payments.payment.confirmed', payment.id)).toHaveLength(1);
  });
});
