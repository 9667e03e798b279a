import type { TestApp } from '@qhatu/core/testing';
import { fullStore, ok, type FullStore } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import niubiz from '../src/index.js';
import { NiubizDouble, type NiubizMerchant } from './fixtures/niubiz-double.js';
import { configure, formPost, newMerchant, outbox, PAYMENTS, SESSIONS, until, type Caller, type Session } from './helpers.js';

// cart → checkout → order → Niubiz session → the shopper pays in checkout.js → the form posts back
// → order paid (stock reserved) → checkout completed → refunds registered at Niubiz, settled when
// re-read → order refunded; workers run the event jobs, as in production.
let double: NiubizDouble;
let merchant: NiubizMerchant;
let s: FullStore;
let t: TestApp;
let admin: Caller;
let store: Caller;
let warehouse: string;
beforeAll(async () => {
  merchant = newMerchant();
  double = await new NiubizDouble([merchant]).start();
  s = await fullStore(niubiz, 'QHATU_GATEWAY_NIUBIZ_BASE_URL', double.url, (a) => configure(a, merchant));
  ({ t, admin, store, warehouse } = s);
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
const payment = async (id: string) => (await admin('GET', `${PAYMENTS}/${id}`)).json().data;

describe('the whole path on Niubiz', () => {
  it('cart → checkout → session → checkout form → post back → order paid → checkout completed → refunds → order refunded', async () => {
    const { checkout: c, variant } = await awaitingPayment();
    const session: Session = await ok(await store('POST', SESSIONS, { order_id: c.order_id, gateway: 'niubiz', client_ip: '190.117.23.9', return_url: 'https://tienda.example.pe/pedido' }), 201);
    expect(session.client).toMatchObject({ amount: '95.00', currency: 'PEN', merchant_id: merchant.merchantId });
    expect(double.requests.at(-1)!.json).toMatchObject({ amount: 95, antifraud: { merchantDefineData: { MDD4: 'rosa@example.com' } } });

    const token = double.pay(session.client);
    const back = await formPost(t, session.client.action, token);
    expect(back.statusCode).toBe(303);
    const location = new URL(back.headers.location as string);
    expect(location.origin + location.pathname).toBe('https://tienda.example.pe/pedido');
    expect(location.searchParams.get('status')).toBe('paid');
    const paid = await payment(location.searchParams.get('payment_id')!);
    expect(paid).toMatchObject({ order_id: c.order_id, amount: 9500, status: 'paid', method: 'visa' });

    await until(async () => (await s.orderStatus(c.order_id)) === 'paid');
    await until(async () => (await s.checkoutStatus(c.id)) === 'completed');
    const history = (await admin('GET', `/api/v1/orders/${c.order_id}`)).json().data.history;
    expect(history.map((h: { from: string; to: string }) => `${h.from}→${h.to}`)).toEqual(['pending→confirmed', 'confirmed→paid']);
    expect(JSON.stringify(await s.level(warehouse, variant))).toContain('"reserved":2');
    const [captured] = await outbox(t, 'payments.payment.captured', paid.id);
    expect(captured.data).toMatchObject({ id: paid.id, order_id: c.order_id, amount: 9500, currency: 'PEN', method: 'visa', status: 'paid' });

    // Devoluciones are registered first and settled by Niubiz later; reading the payment re-reads them.
    const partial = await ok(await admin('POST', `${PAYMENTS}/${paid.id}/refund`, { amount: 1500, reason: 'requested_by_customer' }), 201);
    expect(partial).toMatchObject({ amount: 1500, status: 'processing' });
    double.settleRefund(partial.provider_refund_id, 'PROCESADO');
    expect(await payment(paid.id)).toMatchObject({ status: 'partially_refunded', refunded_amount: 1500 });
    expect(await s.orderStatus(c.order_id)).toBe('paid');

    const rest = await ok(await admin('POST', `${PAYMENTS}/${paid.id}/refund`, { amount: 0, reason: 'requested_by_customer' }), 201);
    expect(rest).toMatchObject({ amount: 8000, status: 'processing' });
    expect(await payment(paid.id)).toMatchObject({ status: 'partially_refunded', refunded_amount: 1500 });
    double.settleRefund(rest.provider_refund_id, 'PROCESADO');
    expect(await payment(paid.id)).toMatchObject({ status: 'refunded', refunded_amount: 9500 });
    expect(double.transactions.get(paid.provider_payment_id)!.refunded).toBe(9500);
    await until(async () => (await s.orderStatus(c.order_id)) === 'refunded');
    await until(async () => JSON.stringify(await s.level(warehouse, variant)).includes('"reserved":0'));
  });

  it('the storefront may pay with POST /payments instead; the form’s late post back changes nothing more', async () => {
    const { checkout: c } = await awaitingPayment();
    const session: Session = await ok(await store('POST', SESSIONS, { order_id: c.order_id, gateway: 'niubiz', client_ip: '190.117.23.9' }), 201);
    const token = double.pay(session.client);
    const paid = await ok(await store('POST', PAYMENTS, { order_id: c.order_id, gateway: 'niubiz', amount: c.total, currency: c.currency, session_key: session.reference, transaction_token: token }), 201);
    expect(paid.status).toBe('paid');
    await until(async () => (await s.checkoutStatus(c.id)) === 'completed' && (await s.orderStatus(c.order_id)) === 'paid');
    const late = await formPost(t, session.client.action, token);
    expect(late.json().data).toEqual({ received: true, outcome: 'duplicate', payment_id: paid.id, status: 'paid' });
    expect(await outbox(t, 'payments.payment.confirmed', paid.id)).toHaveLength(1);
  });
});
