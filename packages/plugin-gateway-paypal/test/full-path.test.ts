import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { fullStore, ok, type FullStore } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import paypal from '../src/index.js';
import { PayPalDouble, type PayPalAccount } from './fixtures/paypal-double.js';
import { configure, newAccount, notify, openSession, outbox, PAYMENTS, until, type Caller } from './helpers.js';

// cart → checkout → order → payment session (a PayPal order) → the buyer approves → payment
// (captured at once, or by polling, or on PayPal's webhook) → order paid (stock reserved) →
// checkout completed → refund → order refunded; workers run the event jobs, as in production.
let double: PayPalDouble;
let account: PayPalAccount;
let s: FullStore;
let t: TestApp;
let shop: TestTenant;
let admin: Caller;
let store: Caller;
let warehouse: string;
beforeAll(async () => {
  account = newAccount();
  double = await new PayPalDouble([account]).start();
  // PayPal does not take soles: a store in dollars.
  s = await fullStore(paypal, 'QHATU_GATEWAY_PAYPAL_BASE_URL', double.url, (a) => configure(a, account), { currency: 'USD' });
  ({ t, shop, admin, store, warehouse } = s);
});
afterAll(async () => {
  await t?.close();
  await double?.close();
});

/** A checkout awaiting payment for 2 units of a product with 5 in stock (95.00 USD with shipping); and its variant. */
async function awaitingPayment() {
  const placed = await s.awaitingPayment();
  expect(placed.checkout).toMatchObject({ status: 'payment_pending', order_id: expect.any(String), total: 9500, currency: 'USD' });
  return placed;
}
const orderStatus = (id: string) => s.orderStatus(id);
const checkoutStatus = (id: string) => s.checkoutStatus(id);
const level = (warehouseId: string, variant: string) => s.level(warehouseId, variant);
const payWith = (c: { order_id: string; total: number; currency: string }, paypalOrderId: string) =>
  store('POST', PAYMENTS, { order_id: c.order_id, gateway: 'paypal', amount: c.total, currency: c.currency, paypal_order_id: paypalOrderId });

describe('the whole path on PayPal', () => {
  it('cart → checkout → session → approval → payment → order paid → checkout completed → refund → order refunded', async () => {
    const { checkout: c, variant } = await awaitingPayment();
    const session = await ok(await openSession(store, { id: c.order_id }), 201);
    expect(session).toMatchObject({ amount: 9500, currency: 'USD', client: { paypal_order_id: session.reference, client_id: account.client_id, currency: 'USD' } });
    expect(double.orders.get(session.reference)!.order.purchase_units[0]).toMatchObject({ reference_id: c.order_id, amount: { currency_code: 'USD', value: '95.00' } });
    expect(await orderStatus(c.order_id)).toBe('pending');

    double.approve(session.reference);
    const payment = await ok(await payWith(c, session.client.paypal_order_id), 201);
    expect(payment).toMatchObject({ status: 'paid', provider_payment_id: session.reference, amount: 9500, currency: 'USD' });

    await until(async () => (await orderStatus(c.order_id)) === 'paid');
    await until(async () => (await checkoutStatus(c.id)) === 'completed');
    const history = (await admin('GET', `/api/v1/orders/${c.order_id}`)).json().data.history;
    expect(history.map((h: { from: string; to: string }) => `${h.from}→${h.to}`)).toEqual(['pending→confirmed', 'confirmed→paid']);
    expect(JSON.stringify(await level(warehouse, variant))).toContain('"reserved":2');
    const [captured] = await outbox(t, 'payments.payment.captured', payment.id);
    expect(captured.data).toMatchObject({ id: payment.id, order_id: c.order_id, amount: 9500, currency: 'USD', method: 'paypal', status: 'paid' });

    const partial = await ok(await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 1500, reason: 'requested_by_customer' }), 201);
    expect(partial).toMatchObject({ amount: 1500, status: 'refunded' });
    expect(await orderStatus(c.order_id)).toBe('paid');
    const refund = await ok(await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0, reason: 'requested_by_customer' }), 201);
    expect(refund).toMatchObject({ amount: 8000, status: 'refunded' });
    expect((await admin('GET', `${PAYMENTS}/${payment.id}`)).json().data).toMatchObject({ status: 'refunded', refunded_amount: 9500 });
    const atPayPal = double.orders.get(session.reference)!.order.purchase_units[0].payments!;
    expect(atPayPal.captures[0].status).toBe('REFUNDED');
    expect(atPayPal.refunds.map((r) => r.amount.value)).toEqual(['15.00', '80.00']);
    await until(async () => (await orderStatus(c.order_id)) === 'refunded');
    await until(async () => JSON.stringify(await level(warehouse, variant)).includes('"reserved":0'));
  });

  it('paid by polling: the payment waits for the buyer, GET /payments/:id captures after the approval', async () => {
    const { checkout: c } = await awaitingPayment();
    const session = await ok(await openSession(store, { id: c.order_id }), 201);
    const payment = await ok(await payWith(c, session.reference), 201);
    expect(payment).toMatchObject({ status: 'pending', next_action: { type: 'paypal_approval', paypal_order_id: session.reference } });
    expect((await store('GET', `${PAYMENTS}/${payment.id}`)).json().data.status).toBe('pending');
    expect(await orderStatus(c.order_id)).toBe('pending');

    double.approve(session.reference);
    expect((await store('GET', `${PAYMENTS}/${payment.id}`)).json().data).toMatchObject({ status: 'paid', next_action: null });
    await until(async () => (await checkoutStatus(c.id)) === 'completed' && (await orderStatus(c.order_id)) === 'paid');
    expect(await outbox(t, 'payments.payment.confirmed', payment.id)).toHaveLength(1);
  });

  it('paid on PayPal’s webhook: CHECKOUT.ORDER.APPROVED captures the waiting payment; a late PAYMENT.CAPTURE.COMPLETED changes nothing more', async () => {
    const { checkout: c } = await awaitingPayment();
    const session = await ok(await openSession(store, { id: c.order_id }), 201);
    const payment = await ok(await payWith(c, session.reference), 201);
    expect(payment.status).toBe('pending');
    double.approve(session.reference);
    const approved = await notify(t, shop.id, double.orderEvent(account.webhook_id, 'CHECKOUT.ORDER.APPROVED', session.reference));
    expect(approved.json().data.outcome).toBe('processed');
    await until(async () => (await checkoutStatus(c.id)) === 'completed' && (await orderStatus(c.order_id)) === 'paid');
    const late = await notify(t, shop.id, double.captureEvent(account.webhook_id, 'PAYMENT.CAPTURE.COMPLETED', session.reference));
    expect(late.json().data.outcome).toBe('processed');
    expect(await outbox(t, 'payments.payment.confirmed', payment.id)).toHaveLength(1);
  });
});
