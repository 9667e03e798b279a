import type { TestApp } from '@qhatu/core/testing';
import { caller, createOrder, ok, outbox, PAYMENTS, type Caller } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PayPalAccount, PayPalDouble } from '../src/testing.js';
import { configure, newAccount, openSession, pay, paypalStore, storeIn as ownStore, type PayPalStore } from './helpers.js';

// POST /api/v1/payments/sessions opens a PayPal order on the server for the Qhatu order; the JS SDK
// shows it to the buyer, and the payment names it by paypal_order_id.
let w: PayPalStore;
let double: PayPalDouble;
let t: TestApp;
let admin: Caller;
let store: Caller;
let account: PayPalAccount;
beforeAll(async () => {
  w = await paypalStore();
  ({ double, t, admin, store, account } = w);
  await configure(admin, account);
});
afterAll(() => w?.close());

const storeIn = (currency: string) => ownStore(w, currency);
const sent = (since: number) => double.requests.slice(since);
const captures = (since: number) => sent(since).filter((r) => r.path.endsWith('/capture'));

describe('payment sessions on PayPal', () => {
  it('opens a PayPal order for the Qhatu order: reference, client data for the JS SDK, idempotent request id', async () => {
    const order = await createOrder(admin, 2500, 2);
    const before = double.requests.length;
    const session = await ok(await openSession(store, order), 201);
    expect(session).toMatchObject({ gateway: 'paypal', order_id: order.id, amount: 5000, currency: 'USD', reference: expect.stringMatching(/^[A-Z0-9]{17}$/) });
    expect(session.client).toEqual({ paypal_order_id: session.reference, client_id: account.client_id, currency: 'USD' });
    const [create] = sent(before).filter((r) => r.path === '/v2/checkout/orders');
    expect(create).toMatchObject({ method: 'POST', requestId: `qhatu-session-${session.id}`, contentType: 'application/json' });
    expect(create.json).toEqual({
      intent: 'CAPTURE',
      purchase_units: [{ reference_id: order.id, custom_id: expect.stringMatching(new RegExp(`^${session.id}\\.[A-Za-z0-9_-]{43}$`)), amount: { currency_code: 'USD', value: '50.00' } }],
    });
    expect(JSON.stringify(session)).not.toContain(account.client_secret);
  });

  it('sends EUR, JPY and HUF in PayPal’s formats; refuses a HUF amount with fillér', async () => {
    const value = async (currency: string, price: number) => {
      const { api } = await storeIn(currency);
      const before = double.requests.length;
      const res = await openSession(api, await createOrder(api, price, 1));
      return { res, body: sent(before).find((r) => r.path === '/v2/checkout/orders')?.json };
    };
    expect((await value('EUR', 1999)).body!.purchase_units[0].amount).toEqual({ currency_code: 'EUR', value: '19.99' });
    expect((await value('JPY', 1500)).body!.purchase_units[0].amount).toEqual({ currency_code: 'JPY', value: '1500' });
    expect((await value('HUF', 150_000)).body!.purchase_units[0].amount).toEqual({ currency_code: 'HUF', value: '1500' });
    const fillér = await value('HUF', 150_050);
    expect(fillér.res.statusCode).toBe(422);
    expect(fillér.res.json().error).toMatchObject({ code: 'GATEWAY_REFUSED', message: 'PayPal takes HUF in whole units only, not 1500.50 HUF' });
    expect(fillér.body).toBeUndefined();
  });

  it('a PEN order cannot open a PayPal session, and PayPal is not asked', async () => {
    const pen = await t.createTenant({ currency: 'PEN' });
    const api = caller(t, pen);
    await configure(api, account);
    const before = double.requests.length;
    const res = await openSession(api, await createOrder(api));
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe('PayPal does not take PEN');
    expect(sent(before).filter((r) => r.path === '/v2/checkout/orders')).toHaveLength(0);
  });

  it('PayPal’s refusal is 422 GATEWAY_REFUSED with its reason; PayPal down is 502 GATEWAY_UNAVAILABLE', async () => {
    const tenant = await t.createTenant({ currency: 'USD' });
    const api = caller(t, tenant);
    await configure(api, { ...newAccount(), client_id: account.client_id });
    const refused = await openSession(api, await createOrder(api));
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error).toMatchObject({ code: 'GATEWAY_REFUSED', message: 'invalid_client: Client Authentication failed' });
    double.unavailable = /^\/v2\/checkout\/orders$/;
    try {
      const down = await openSession(store, await createOrder(admin));
      expect(down.statusCode).toBe(502);
      expect(down.json().error.code).toBe('GATEWAY_UNAVAILABLE');
    } finally {
      double.unavailable = null;
    }
  });

  it('session → the buyer approves in PayPal’s window → POST /payments with the order id → paid', async () => {
    const order = await createOrder(admin, 2500, 2);
    const session = await ok(await openSession(store, order), 201);
    double.approve(session.reference);
    const payment = await ok(await pay(store, order, session.client.paypal_order_id), 201);
    expect(payment).toMatchObject({ status: 'paid', provider_payment_id: session.reference, method: 'paypal' });
    expect(double.orders.get(session.reference)!.order.purchase_units[0].payments!.captures[0].status).toBe('COMPLETED');
  });

  it('not approved yet → pending with a paypal_approval next action; polling after approval captures once → paid', async () => {
    const order = await createOrder(admin, 2500, 2);
    const session = await ok(await openSession(store, order), 201);
    const payment = await ok(await pay(store, order, session.reference), 201);
    expect(payment).toMatchObject({ status: 'pending', provider_payment_id: session.reference, captured_at: null });
    expect(payment.next_action).toEqual({ type: 'paypal_approval', paypal_order_id: session.reference, approve_url: expect.stringContaining(session.reference) });
    expect((await store('GET', `${PAYMENTS}/${payment.id}`)).json().data.status).toBe('pending');
    double.approve(session.reference);
    const before = double.requests.length;
    const polls = await Promise.all([1, 2, 3].map(() => store('GET', `${PAYMENTS}/${payment.id}`)));
    for (const poll of polls) expect(poll.json().data).toMatchObject({ status: 'paid', next_action: null, captured_at: expect.any(String) });
    const tries = captures(before);
    expect(tries.length).toBeGreaterThan(0);
    expect(new Set(tries.map((r) => r.requestId))).toEqual(new Set([`qhatu-capture-${session.reference}`]));
    expect(double.orders.get(session.reference)!.order.purchase_units[0].payments!.captures).toHaveLength(1);
    expect(await outbox(t, 'payments.payment.captured', payment.id)).toHaveLength(1);
  });

  it('an order whose amount changed after the session opened it is not captured by a poll', async () => {
    const order = await createOrder(admin, 2500, 2);
    const session = await ok(await openSession(store, order), 201);
    const payment = await ok(await pay(store, order, session.reference), 201);
    expect(payment.status).toBe('pending');
    double.orders.get(session.reference)!.order.purchase_units[0].amount.value = '1.00';
    double.approve(session.reference);
    const before = double.requests.length;
    const read = (await store('GET', `${PAYMENTS}/${payment.id}`)).json().data;
    expect(read).toMatchObject({ status: 'failed', failure_reason: `PayPal order ${session.reference} no longer matches the payment session that opened it; not captured` });
    expect(captures(before)).toHaveLength(0);
  });

  it('an order whose custom_id no longer names the session is failed at payment and not captured', async () => {
    const order = await createOrder(admin, 2500, 2);
    const session = await ok(await openSession(store, order), 201);
    double.approve(session.reference).purchase_units[0].custom_id = 'another-session';
    const before = double.requests.length;
    expect((await pay(store, order, session.reference)).json().data).toMatchObject({
      status: 'failed', provider_payment_id: null, failure_reason: `PayPal order ${session.reference} was not opened by payment session ${session.id}`,
    });
    expect(captures(before)).toHaveLength(0);
  });
});
