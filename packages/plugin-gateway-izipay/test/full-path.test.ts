import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { fullStore, ok, type FullStore } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import izipay from '../src/index.js';
import { IzipayDouble, type Account } from './fixtures/izipay-double.js';
import { configure, newAccount, notify, outbox, PAYMENTS, SESSIONS, until, type Caller } from './helpers.js';

// cart → checkout → order → form token → embedded form → payment (the transaction re-read) → IPN → order
// paid (stock reserved) → checkout completed → refund → order refunded; workers run the event jobs.
let double: IzipayDouble;
let account: Account;
let s: FullStore;
let t: TestApp;
let shop: TestTenant;
let admin: Caller;
let store: Caller;
let warehouse: string;
beforeAll(async () => {
  account = newAccount();
  double = await new IzipayDouble([account]).start();
  s = await fullStore(izipay, 'QHATU_GATEWAY_IZIPAY_BASE_URL', double.url, (a) => configure(a, account));
  ({ t, shop, admin, store, warehouse } = s);
});
afterAll(async () => {
  await t?.close();
  await double?.close();
});

async function awaitingPayment() {
  const placed = await s.awaitingPayment();
  expect(placed.checkout).toMatchObject({ status: 'payment_pending', order_id: expect.any(String), total: 9500, currency: 'PEN' });
  return placed;
}

/** What the storefront does: a form token for the order, the embedded form, then the payment naming the transaction. */
async function payInForm(c: { order_id: string; total: number; currency: string }, card: 'accepted' | 'review') {
  const session = await ok(await store('POST', SESSIONS, { order_id: c.order_id, gateway: 'izipay' }), 201);
  expect(session).toMatchObject({ amount: 9500, currency: 'PEN', client: { public_key: account.public_key, order_id: c.order_id } });
  expect(double.requests.at(-1)!.json).toMatchObject({ amount: 9500, currency: 'PEN', orderId: c.order_id, customer: { email: 'rosa@example.com' } });
  const browser = double.pay(session.client.form_token, card);
  const payment = await ok(await store('POST', PAYMENTS, {
    order_id: c.order_id, gateway: 'izipay', amount: c.total, currency: c.currency,
    kr_answer: browser.krAnswer, transaction_id: browser.uuid, kr_hash: browser.krHash,
  }), 201);
  return { payment, uuid: browser.uuid };
}

describe('the whole path on Izipay', () => {
  it('cart → checkout → form token → payment → IPN → order paid → checkout completed → refund → order refunded', async () => {
    const { checkout: c, variant } = await awaitingPayment();
    const { payment, uuid } = await payInForm(c, 'review');
    expect(payment).toMatchObject({ status: 'processing', provider_payment_id: uuid });
    expect(await s.orderStatus(c.order_id)).toBe('pending');

    double.settle(uuid, 'accepted');
    const ipn = double.ipn(uuid);
    expect(ipn.url).toContain(`/webhooks/izipay/${shop.id}?session=`);
    expect((await notify(t, ipn.url, ipn.body)).json().data.outcome).toBe('processed');

    await until(async () => (await s.orderStatus(c.order_id)) === 'paid');
    await until(async () => (await s.checkoutStatus(c.id)) === 'completed');
    const history = (await admin('GET', `/api/v1/orders/${c.order_id}`)).json().data.history;
    expect(history.map((h: { from: string; to: string }) => `${h.from}→${h.to}`)).toEqual(['pending→confirmed', 'confirmed→paid']);
    expect(JSON.stringify(await s.level(warehouse, variant))).toContain('"reserved":2');
    const [captured] = await outbox(t, 'payments.payment.captured', payment.id);
    expect(captured.data).toMatchObject({ id: payment.id, order_id: c.order_id, amount: 9500, currency: 'PEN', method: 'card:visa', status: 'paid' });

    // Remitted overnight: from now on Izipay refunds (a part), it no longer cancels.
    double.remit(uuid);
    const partial = await ok(await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 1500, reason: 'requested_by_customer' }), 201);
    expect(partial).toMatchObject({ amount: 1500, status: 'refunded' });
    expect(await s.orderStatus(c.order_id)).toBe('paid');
    const refund = await ok(await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0, reason: 'requested_by_customer' }), 201);
    expect(refund).toMatchObject({ amount: 8000, status: 'refunded' });
    expect((await admin('GET', `${PAYMENTS}/${payment.id}`)).json().data).toMatchObject({ status: 'refunded', refunded_amount: 9500 });
    expect(double.transactions.get(uuid)!.refunded).toBe(9500);
    await until(async () => (await s.orderStatus(c.order_id)) === 'refunded');
    await until(async () => JSON.stringify(await s.level(warehouse, variant)).includes('"reserved":0'));
  });

  it('an accepted card pays at once; the late IPN changes nothing more; a cancellation before remittance refunds the order', async () => {
    const { checkout: c } = await awaitingPayment();
    const { payment, uuid } = await payInForm(c, 'accepted');
    expect(payment.status).toBe('paid');
    await until(async () => (await s.checkoutStatus(c.id)) === 'completed' && (await s.orderStatus(c.order_id)) === 'paid');
    const ipn = double.ipn(uuid);
    expect((await notify(t, ipn.url, ipn.body)).json().data.outcome).toBe('processed');
    expect(await outbox(t, 'payments.payment.confirmed', payment.id)).toHaveLength(1);

    const refund = await ok(await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 }), 201);
    expect(refund).toMatchObject({ amount: 9500, status: 'refunded', provider_refund_id: uuid });
    expect(double.transactions.get(uuid)).toMatchObject({ detailedStatus: 'CANCELLED' });
    await until(async () => (await s.orderStatus(c.order_id)) === 'refunded');
  });
});
