import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { fullStore, ok, type FullStore } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import culqi from '../src/index.js';
import { CulqiDouble } from './fixtures/culqi-double.js';
import { auth, configure, newAccount, notify, outbox, PAYMENTS, until, type Caller, type CulqiAccount } from './helpers.js';

// cart → checkout → order → payment on Culqi → Basic-auth notification → order paid (stock reserved)
// → checkout completed → refund → order refunded; workers run the event jobs, as in production.
let double: CulqiDouble;
let account: CulqiAccount;
let s: FullStore;
let t: TestApp;
let shop: TestTenant;
let admin: Caller;
let store: Caller;
let warehouse: string;
beforeAll(async () => {
  account = newAccount();
  double = await new CulqiDouble(new Set([account.secret_key])).start();
  s = await fullStore(culqi, 'QHATU_GATEWAY_CULQI_BASE_URL', double.url, (a) => configure(a, account));
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

describe('the whole path on Culqi', () => {
  it('cart → checkout → payment → notification → order paid → checkout completed → refund → order refunded', async () => {
    const { checkout: c, variant } = await awaitingPayment();
    const payment = await ok(await store('POST', PAYMENTS, { order_id: c.order_id, gateway: 'culqi', amount: c.total, currency: c.currency, token_id: 'tkn_test_held', email: 'rosa@example.com' }), 201);
    expect(payment.status).toBe('processing');
    expect(double.requests.at(-1)!.json).toMatchObject({ amount: 9500, currency_code: 'PEN', source_id: 'tkn_test_held' });
    expect(await orderStatus(c.order_id)).toBe('pending');

    const charge = double.settle(payment.provider_payment_id, 'sale');
    const res = await notify(t, shop.id, double.event('charge.status.changed', charge), auth(account));
    expect(res.json().data.outcome).toBe('processed');

    await until(async () => (await orderStatus(c.order_id)) === 'paid');
    await until(async () => (await checkoutStatus(c.id)) === 'completed');
    const history = (await admin('GET', `/api/v1/orders/${c.order_id}`)).json().data.history;
    expect(history.map((h: { from: string; to: string }) => `${h.from}→${h.to}`)).toEqual(['pending→confirmed', 'confirmed→paid']);
    expect(JSON.stringify(await level(warehouse, variant))).toContain('"reserved":2');
    const [captured] = await outbox(t, 'payments.payment.captured', payment.id);
    expect(captured.data).toMatchObject({ id: payment.id, order_id: c.order_id, amount: 9500, currency: 'PEN', method: 'card', status: 'paid' });

    const partial = await ok(await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 1500, reason: 'requested_by_customer' }), 201);
    expect(partial).toMatchObject({ amount: 1500, status: 'refunded' });
    expect(await orderStatus(c.order_id)).toBe('paid');
    const refund = await ok(await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0, reason: 'requested_by_customer' }), 201);
    expect(refund).toMatchObject({ amount: 8000, status: 'refunded' });
    expect((await admin('GET', `${PAYMENTS}/${payment.id}`)).json().data).toMatchObject({ status: 'refunded', refunded_amount: 9500 });
    expect(double.charges.get(payment.provider_payment_id)!.amount_refunded).toBe(9500);
    await until(async () => (await orderStatus(c.order_id)) === 'refunded');
    await until(async () => JSON.stringify(await level(warehouse, variant)).includes('"reserved":0'));
  });

  it('a sale at once takes the same path without a notification; a late notification changes nothing more', async () => {
    const { checkout: c } = await awaitingPayment();
    const payment = await ok(await store('POST', PAYMENTS, { order_id: c.order_id, gateway: 'culqi', amount: c.total, currency: c.currency, token_id: 'tkn_test_visa', email: 'rosa@example.com' }), 201);
    expect(payment.status).toBe('paid');
    await until(async () => (await checkoutStatus(c.id)) === 'completed' && (await orderStatus(c.order_id)) === 'paid');
    const late = await notify(t, shop.id, double.event('charge.creation.succeeded', double.charges.get(payment.provider_payment_id)!), auth(account));
    expect(late.json().data.outcome).toBe('processed');
    expect(await outbox(t, 'payments.payment.confirmed', payment.id)).toHaveLength(1);
  });
});
