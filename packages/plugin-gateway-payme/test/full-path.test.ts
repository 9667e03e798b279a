import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { fullStore, ok, type FullStore } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import payme from '../src/index.js';
import { CARDS, PaymeDouble } from './fixtures/payme-double.js';
import { BASE_URL_VARIABLE, configure, newAccount, notify, openSession, outbox, PAYMENTS, until, type Caller, type PaymeAccount } from './helpers.js';

// cart → checkout → order → Pay-me session → Flex charge in the browser → payment → signed
// notification → order paid (stock reserved) → checkout completed → extorno → order refunded;
// workers run the event jobs, as in production.
let double: PaymeDouble;
let account: PaymeAccount;
let s: FullStore;
let t: TestApp;
let shop: TestTenant;
let admin: Caller;
let store: Caller;
let warehouse: string;
beforeAll(async () => {
  double = await new PaymeDouble().start();
  account = newAccount(double);
  s = await fullStore(payme, BASE_URL_VARIABLE, double.url, (a) => configure(a, account));
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

describe('the whole path on Pay-me', () => {
  it('cart → checkout → session → Flex → payment → notification → order paid → checkout completed → refund → order refunded', async () => {
    const { checkout: c, variant } = await awaitingPayment();
    const session = await openSession(store, c.order_id);
    expect(session.client).toMatchObject({ amount: '9500', currency: '604', merchant_code: account.merchant_code, merchant_operation_number: session.reference });

    // The shopper pays in Pay-me Flex; the processor's verdict comes later.
    const { chargeId } = await double.pay(session.client, CARDS.HELD);
    const payment = await ok(await store('POST', PAYMENTS, { order_id: c.order_id, gateway: 'payme', amount: c.total, currency: c.currency, charge_id: chargeId, merchant_operation_number: session.reference }), 201);
    expect(payment).toMatchObject({ status: 'processing', provider_payment_id: `${session.reference}/${chargeId}` });
    expect(await s.orderStatus(c.order_id)).toBe('pending');

    double.settle(chargeId, 'AUTORIZADO');
    const res = await notify(t, shop.id, double.notification(chargeId));
    expect(res.json().data.outcome).toBe('processed');

    await until(async () => (await s.orderStatus(c.order_id)) === 'paid');
    await until(async () => (await s.checkoutStatus(c.id)) === 'completed');
    const history = (await admin('GET', `/api/v1/orders/${c.order_id}`)).json().data.history;
    expect(history.map((h: { from: string; to: string }) => `${h.from}→${h.to}`)).toEqual(['pending→confirmed', 'confirmed→paid']);
    expect(JSON.stringify(await s.level(warehouse, variant))).toContain('"reserved":2');
    const [captured] = await outbox(t, 'payments.payment.captured', payment.id);
    expect(captured.data).toMatchObject({ id: payment.id, order_id: c.order_id, amount: 9500, currency: 'PEN', method: 'card', status: 'paid' });

    const refund = await ok(await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0, reason: 'requested_by_customer' }), 201);
    expect(refund).toMatchObject({ amount: 9500, status: 'refunded' });
    expect(double.operations.get(`${account.merchant_code}/${session.reference}`)!.state).toBe('CANCELADO');
    expect((await admin('GET', `${PAYMENTS}/${payment.id}`)).json().data).toMatchObject({ status: 'refunded', refunded_amount: 9500 });
    await until(async () => (await s.orderStatus(c.order_id)) === 'refunded');
    await until(async () => JSON.stringify(await s.level(warehouse, variant)).includes('"reserved":0'));
  });

  it('an authorised Flex charge is paid at once; the late notification changes nothing more', async () => {
    const { checkout: c } = await awaitingPayment();
    const session = await openSession(store, c.order_id);
    const { chargeId } = await double.pay(session.client);
    const payment = await ok(await store('POST', PAYMENTS, { order_id: c.order_id, gateway: 'payme', amount: c.total, currency: c.currency, charge_id: chargeId, merchant_operation_number: session.reference }), 201);
    expect(payment.status).toBe('paid');
    await until(async () => (await s.checkoutStatus(c.id)) === 'completed' && (await s.orderStatus(c.order_id)) === 'paid');
    const late = await notify(t, shop.id, double.notification(chargeId));
    expect(late.json().data.outcome).toBe('processed');
    expect(await outbox(t, 'payments.payment.confirmed', payment.id)).toHaveLength(1);
  });
});
