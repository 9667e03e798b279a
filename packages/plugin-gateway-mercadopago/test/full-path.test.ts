import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { fullStore, ok, type FullStore } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mercadopago from '../src/index.js';
import { MercadoPagoDouble } from './fixtures/mercadopago-double.js';
import { configure, newAccount, notify, outbox, PAYMENTS, until, type Caller, type MpAccount } from './helpers.js';

// cart → checkout → order → payment on Mercado Pago (in_process) → signed notification → order paid (stock reserved)
// → checkout completed → refund → order refunded; workers run the event jobs, as in production.
let double: MercadoPagoDouble;
let account: MpAccount;
let s: FullStore;
let t: TestApp;
let shop: TestTenant;
let admin: Caller;
let store: Caller;
let warehouse: string;
beforeAll(async () => {
  account = newAccount();
  double = await new MercadoPagoDouble(new Set([account.access_token])).start();
  s = await fullStore(mercadopago, 'QHATU_GATEWAY_MERCADOPAGO_BASE_URL', double.url, (a) => configure(a, account));
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

describe('the whole path on Mercado Pago', () => {
  it('cart → checkout → payment → notification → order paid → checkout completed → refund → order refunded', async () => {
    const { checkout: c, variant } = await awaitingPayment();
    const payment = await ok(await store('POST', PAYMENTS, { order_id: c.order_id, gateway: 'mercadopago', amount: c.total, currency: c.currency, token: 'tok_in_process', installments: 1, payment_method_id: 'visa', email: 'rosa@example.com' }), 201);
    expect(payment.status).toBe('processing');
    expect(double.requests.at(-1)!.json).toMatchObject({ transaction_amount: 95, token: 'tok_in_process', installments: 1, payment_method_id: 'visa', payer: { email: 'rosa@example.com' } });
    expect(await orderStatus(c.order_id)).toBe('pending');

    double.settle(payment.provider_payment_id, 'approved');
    const res = await notify(t, shop.id, double.notification(account.webhook_secret, payment.provider_payment_id), payment.provider_payment_id);
    expect(res.json().data.outcome).toBe('processed');

    await until(async () => (await orderStatus(c.order_id)) === 'paid');
    await until(async () => (await checkoutStatus(c.id)) === 'completed');
    const history = (await admin('GET', `/api/v1/orders/${c.order_id}`)).json().data.history;
    expect(history.map((h: { from: string; to: string }) => `${h.from}→${h.to}`)).toEqual(['pending→confirmed', 'confirmed→paid']);
    expect(JSON.stringify(await level(warehouse, variant))).toContain('"reserved":2');
    const [captured] = await outbox(t, 'payments.payment.captured', payment.id);
    expect(captured.data).toMatchObject({ id: payment.id, order_id: c.order_id, amount: 9500, currency: 'PEN', method: 'credit_card', status: 'paid' });

    const partial = await ok(await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 1500, reason: 'requested_by_customer' }), 201);
    expect(partial).toMatchObject({ amount: 1500, status: 'refunded' });
    expect(await orderStatus(c.order_id)).toBe('paid');
    const refund = await ok(await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0, reason: 'requested_by_customer' }), 201);
    expect(refund).toMatchObject({ amount: 8000, status: 'refunded' });
    expect((await admin('GET', `${PAYMENTS}/${payment.id}`)).json().data).toMatchObject({ status: 'refunded', refunded_amount: 9500 });
    expect(double.payments.get(payment.provider_payment_id)).toMatchObject({ status: 'refunded', transaction_amount_refunded: 95 });
    await until(async () => (await orderStatus(c.order_id)) === 'refunded');
    await until(async () => JSON.stringify(await level(warehouse, variant)).includes('"reserved":0'));
  });

  it('a sale at once takes the same path without a notification; a late notification changes nothing more', async () => {
    const { checkout: c } = await awaitingPayment();
    const payment = await ok(await store('POST', PAYMENTS, { order_id: c.order_id, gateway: 'mercadopago', amount: c.total, currency: c.currency, token: 'tok_approved', installments: 1, payment_method_id: 'visa', email: 'rosa@example.com' }), 201);
    expect(payment.status).toBe('paid');
    await until(async () => (await checkoutStatus(c.id)) === 'completed' && (await orderStatus(c.order_id)) === 'paid');
    const late = await notify(t, shop.id, double.notification(account.webhook_secret, payment.provider_payment_id, { action: 'payment.created' }));
    expect(late.json().data.outcome).toBe('processed');
    expect(await outbox(t, 'payments.payment.confirmed', payment.id)).toHaveLength(1);
  });
});
