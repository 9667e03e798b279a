import type { TestApp, TestTenant } from '@qhatu/core/testing';
import {
  caller, createOrder, expectCredentialsSealed, expectListedNotConfigured, expectMissingCredentials, expectNotConfigured, expectUnknownCredential,
  GATEWAYS, gatewayStores, MISSING, outbox, PAYMENTS, SESSIONS, type Caller, type GatewayStores,
} from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import payme, { authBaseUrl, WHOLE_OPERATION_ONLY } from '../src/index.js';
import { CARDS, PaymeDouble } from '../src/testing.js';
import { BASE_URL_VARIABLE, checkout, configure, newAccount, openSession, pay, type PaymeAccount } from './helpers.js';

let w: GatewayStores<PaymeDouble>;
let double: PaymeDouble;
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let admin: Caller;
let store: Caller;
let account: PaymeAccount;
beforeAll(async () => {
  double = await new PaymeDouble().start();
  account = newAccount(double);
  w = await gatewayStores(payme, BASE_URL_VARIABLE, double);
  ({ t, shop, other, admin, store } = w);
});
afterAll(() => w?.close());

describe('the auth host', () => {
  it('is the API host with auth. for api.; any other host serves /token itself', () => {
    expect(authBaseUrl('https://api.alignet.io')).toBe('https://auth.alignet.io');
    expect(authBaseUrl('https://api.preprod.alignet.io')).toBe('https://auth.preprod.alignet.io');
    expect(authBaseUrl('http://127.0.0.1:4010')).toBe('http://127.0.0.1:4010');
    expect(authBaseUrl('https://payments-proxy.example.com/payme')).toBe('https://payments-proxy.example.com/payme');
    expect(authBaseUrl('https://rapi.alignet.io')).toBe('https://rapi.alignet.io');
  });
});

describe('gateway credentials', () => {
  it('lists Pay-me with its fields, in soles, not configured yet', async () => {
    const listed = await expectListedNotConfigured(store, 'payme');
    expect(listed).toMatchObject({
      name: 'Pay-me', currencies: ['PEN'],
      payment_fields: [
        { name: 'charge_id', type: 'string', required: true, description: expect.any(String) },
        { name: 'merchant_operation_number', type: 'string', required: false, description: expect.any(String) },
      ],
    });
    expect(listed.credential_fields.map((f: { name: string; secret: boolean; required: boolean }) => [f.name, f.secret, f.required])).toEqual([
      ['client_id', false, true], ['client_secret', true, true], ['merchant_code', false, true], ['alignet_public_key', false, true],
    ]);
  });

  it('a session or a payment before configuration is 422 GATEWAY_NOT_CONFIGURED and calls nothing', async () => {
    const order = await createOrder(admin);
    const session = await store('POST', SESSIONS, { order_id: order.id, gateway: 'payme' });
    const payment = await store('POST', PAYMENTS, { order_id: order.id, gateway: 'payme', amount: order.total, currency: 'PEN', charge_id: 'x', merchant_operation_number: '123456' });
    expectNotConfigured([session, payment], double);
  });

  it('PUT stores the credentials sealed; client_secret is never returned, the public ones are', async () => {
    await expectCredentialsSealed(t, shop, 'payme', account, ['client_id', 'merchant_code', 'alignet_public_key']);
  });

  it('refuses unknown credentials and missing required ones with their paths; storefront keys cannot configure', async () => {
    await expectUnknownCredential(admin, 'payme', 'api_key');
    await expectMissingCredentials(caller(t, other), 'payme', { client_id: 'abc' }, ['client_secret', 'merchant_code', 'alignet_public_key']);
    expect((await store('PUT', `${GATEWAYS}/payme`, { enabled: false })).statusCode).toBe(403);
  });
});

describe('POST /payments/sessions on Pay-me', () => {
  it('opens Pay-me Flex: a nonce for a new operation number, amount in céntimos and currency 604', async () => {
    const order = await createOrder(admin, 2500, 2);
    const before = double.requests.length;
    const session = await openSession(store, order.id);
    expect(session).toMatchObject({ gateway: 'payme', order_id: order.id, amount: 5000, currency: 'PEN', expires_at: null });
    expect(session.reference).toMatch(/^\d{7,}$/);
    expect(session.client).toEqual({ nonce: expect.stringMatching(/^eyJ/), merchant_code: account.merchant_code, merchant_operation_number: session.reference, amount: '5000', currency: '604' });
    const [token, nonce] = double.requests.slice(before);
    expect(token).toMatchObject({ method: 'POST', path: '/token', authorization: undefined, apiVersion: '1709847567' });
    expect(token.json).toEqual({
      action: 'authorize', grant_type: 'client_credentials', audience: double.url, client_id: account.client_id, client_secret: account.client_secret,
      scope: 'create:token post:charges get:charges delete:charges',
    });
    expect(nonce).toMatchObject({ method: 'POST', path: '/nonce', authorization: expect.stringMatching(/^Bearer eyJ/), apiVersion: '1709847567' });
    expect(nonce.json).toEqual({ action: 'create.nonce', audience: `${double.url}/`, client_id: account.client_id, scope: 'post:charges' });
    expect(JSON.stringify(session)).not.toContain(account.client_secret);

    // The access token is reused: a second session asks only for a nonce.
    const again = await openSession(store, (await createOrder(admin)).id);
    expect(again.reference).not.toBe(session.reference);
    expect(double.requests.slice(before + 2).map((r) => r.path)).toEqual(['/nonce']);
  });

  it('refused credentials are 422 with Alignet’s message; an unreachable Pay-me is 502', async () => {
    const wrong = caller(t, other);
    await configure(wrong, { ...newAccount(double), client_secret: 'not-the-secret' });
    const refused = await wrong('POST', SESSIONS, { order_id: (await createOrder(wrong)).id, gateway: 'payme' });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error).toMatchObject({ code: 'GATEWAY_REFUSED', message: expect.stringContaining('Las credenciales del cliente son inválidas') });
    expect(refused.body).not.toContain('not-the-secret');
    double.down = true;
    try {
      const down = await store('POST', SESSIONS, { order_id: (await createOrder(admin)).id, gateway: 'payme' });
      expect(down.statusCode).toBe(502);
      expect(down.json().error.code).toBe('GATEWAY_UNAVAILABLE');
    } finally {
      double.down = false;
    }
  });
});

describe('POST /payments on Pay-me', () => {
  it('reads the Flex charge back: 201 paid, checked against the merchant, amount and currency', async () => {
    const order = await createOrder(admin, 2500, 2);
    const session = await openSession(store, order.id);
    const { chargeId } = await double.pay(session.client);
    const before = double.requests.length;
    const res = await pay(store, order, session, chargeId);
    expect(res.statusCode).toBe(201);
    const payment = res.json().data;
    expect(payment).toMatchObject({
      order_id: order.id, gateway: 'payme', amount: 5000, currency: 'PEN', status: 'paid', method: 'card',
      provider_payment_id: `${session.reference}/${chargeId}`, failure_reason: null, refunded_amount: 0, captured_at: expect.any(String),
    });
    expect(double.requests.slice(before)).toEqual([
      expect.objectContaining({ method: 'GET', path: `/charges/${account.merchant_code}/${session.reference}/${chargeId}`, authorization: expect.stringMatching(/^Bearer /), apiVersion: '1709847567' }),
    ]);
    expect((await outbox(t, 'payments.payment.captured', payment.id))[0].data).toMatchObject({ id: payment.id, amount: 5000, currency: 'PEN', status: 'paid' });
    expect(await outbox(t, 'payments.payment.confirmed', payment.id)).toHaveLength(1);
  });

  it('validates charge_id and the currency with precise paths; a payment without its session is refused', async () => {
    const order = await createOrder(admin);
    const base = { order_id: order.id, gateway: 'payme', amount: order.total, currency: 'PEN' };
    const missing = await store('POST', PAYMENTS, base);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(missing.json().error.details).toEqual([{ path: 'body.charge_id', message: 'is required by Pay-me' }]);
    const typed = await store('POST', PAYMENTS, { ...base, charge_id: 7 });
    expect(typed.statusCode).toBe(400);
    expect(typed.json().error.details[0].path).toBe('body.charge_id');
    const usd = await store('POST', PAYMENTS, { ...base, currency: 'USD', charge_id: 'abc' });
    expect(usd.statusCode).toBe(400);
    expect(usd.json().error.details).toEqual([{ path: 'body.currency', message: 'Pay-me does not take USD' }]);
    const sessionless = await store('POST', PAYMENTS, { ...base, charge_id: 'abc' });
    expect(sessionless.statusCode).toBe(422);
    expect(sessionless.json().error).toMatchObject({ code: 'PAYMENT_SESSION_INVALID', details: [expect.objectContaining({ path: 'body.merchant_operation_number' })] });
    const unknown = await store('POST', PAYMENTS, { ...base, charge_id: 'abc', merchant_operation_number: '999999999999999' });
    expect(unknown.json().error.code).toBe('PAYMENT_SESSION_INVALID');
    expect((await store('POST', PAYMENTS, { ...base, order_id: MISSING, charge_id: 'abc' })).statusCode).toBe(404);
  });

  it('a store in dollars cannot open a Pay-me session', async () => {
    const usd = await t.createTenant({ currency: 'USD' });
    const api = caller(t, usd);
    await configure(api, newAccount(double));
    const res = await api('POST', SESSIONS, { order_id: (await createOrder(api)).id, gateway: 'payme' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toContain('Pay-me does not take USD');
  });

  it('a declined card is recorded: 201 failed with the processor’s message and code', async () => {
    const { res, session, chargeId } = await checkout(double, store, await createOrder(admin), CARDS.DECLINED);
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ status: 'failed', provider_payment_id: `${session.reference}/${chargeId}`, captured_at: null });
    expect(res.json().data.failure_reason).toBe('Fondos insuficientes — 51 — DENEGADO');
    expect(await outbox(t, 'payments.payment.failed', res.json().data.id)).toHaveLength(1);
  });

  it('a charge of another amount, or in another merchant’s operation, is not this payment’s: failed', async () => {
    const order = await createOrder(admin, 2500, 2);
    const session = await openSession(store, order.id);
    const cheap = await double.pay(session.client, CARDS.APPROVED, { amount: '100' });
    const res = await pay(store, order, session, cheap.chargeId);
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ status: 'failed', provider_payment_id: null, captured_at: null });
    expect(res.json().data.failure_reason).toBe(`The Pay-me charge ${cheap.chargeId} is not this payment's: amount "100" instead of "5000"`);

    // Paid in another store's Flex (its nonce and merchant code), then claimed here.
    const elsewhere = caller(t, other);
    const otherAccount = newAccount(double);
    await configure(elsewhere, otherAccount);
    const theirs = await openSession(caller(t, other, other.storefrontToken), (await createOrder(elsewhere, 2500, 2)).id);
    const mineOrder = await createOrder(admin, 2500, 2);
    const mine = await openSession(store, mineOrder.id);
    const foreign = await double.pay({ ...theirs.client, merchant_operation_number: mine.reference });
    const claimed = await pay(store, mineOrder, mine, foreign.chargeId);
    expect(claimed.statusCode).toBe(201);
    expect(claimed.json().data).toMatchObject({ status: 'failed', provider_payment_id: null, failure_reason: 'No se encontró la transacción solicitada — 01' });
  });

  it('a charge left PENDIENTE stays processing; polling GET re-reads it from Pay-me', async () => {
    const { res, chargeId } = await checkout(double, store, await createOrder(admin), CARDS.HELD);
    const payment = res.json().data;
    expect(payment).toMatchObject({ status: 'processing', provider_payment_id: expect.stringContaining(`/${chargeId}`) });
    expect((await store('GET', `${PAYMENTS}/${payment.id}`)).json().data.status).toBe('processing');
    double.settle(chargeId, 'AUTORIZADO');
    expect((await store('GET', `${PAYMENTS}/${payment.id}`)).json().data).toMatchObject({ status: 'paid', captured_at: expect.any(String) });
    expect(double.requests.at(-1)).toMatchObject({ method: 'GET', path: `/charges/${account.merchant_code}/${payment.provider_payment_id}` });
  });

  it('a token Alignet stopped accepting is renewed once and the call repeated', async () => {
    const order = await createOrder(admin);
    const session = await openSession(store, order.id);
    const { chargeId } = await double.pay(session.client);
    double.revokeTokens();
    const before = double.requests.length;
    const res = await pay(store, order, session, chargeId);
    expect(res.json().data.status).toBe('paid');
    expect(double.requests.slice(before).map((r) => `${r.method} ${r.path.split('/')[1]}`)).toEqual(['GET charges', 'POST token', 'GET charges']);
  });

  it('a Pay-me that cannot be reached: 201 pending, since Flex did charge; read back once Pay-me answers', async () => {
    const order = await createOrder(admin);
    const session = await openSession(store, order.id);
    const { chargeId } = await double.pay(session.client);
    double.down = true;
    let payment;
    try {
      const res = await pay(store, order, session, chargeId);
      expect(res.statusCode).toBe(201);
      payment = res.json().data;
      expect(payment).toMatchObject({ status: 'pending', provider_payment_id: null, failure_reason: null });
      expect((await store('GET', `${PAYMENTS}/${payment.id}`)).json().data.status).toBe('pending');
    } finally {
      double.down = false;
    }
    expect((await store('GET', `${PAYMENTS}/${payment.id}`)).json().data).toMatchObject({ status: 'paid', provider_payment_id: expect.stringContaining(chargeId) });
  });

  it('a session pays once: a second payment naming it is 409', async () => {
    const order = await createOrder(admin);
    const { session, chargeId, res } = await checkout(double, store, order);
    expect(res.json().data.status).toBe('paid');
    const again = await pay(store, order, session, chargeId);
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('PAYMENT_SESSION_USED');
  });
});

describe('POST /payments/:id/refund on Pay-me', () => {
  async function paid() {
    const { res, session } = await checkout(double, admin, await createOrder(admin, 2500, 4));
    expect(res.json().data.status).toBe('paid');
    return { ...(res.json().data as { id: string; amount: number; provider_payment_id: string; order_id: string }), operation: session.reference };
  }
  const read = async (id: string) => (await admin('GET', `${PAYMENTS}/${id}`)).json().data;
  const extornos = (operation: string) => double.calls('DELETE', `/charges/${account.merchant_code}/${operation}`);

  it('the whole payment: the extorno cancels the operation → refunded', async () => {
    const payment = await paid();
    const res = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0, reason: 'requested_by_customer' });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ amount: 10000, status: 'refunded', provider_refund_id: payment.provider_payment_id, failure_reason: null });
    expect(extornos(payment.operation)).toEqual([expect.objectContaining({ path: `/charges/${account.merchant_code}/${payment.operation}`, authorization: expect.stringMatching(/^Bearer /), apiVersion: '1709847567' })]);
    expect(double.operations.get(`${account.merchant_code}/${payment.operation}`)!.state).toBe('CANCELADO');
    expect(await read(payment.id)).toMatchObject({ status: 'refunded', refunded_amount: 10000 });
    expect(await outbox(t, 'payments.refund.refunded', payment.id)).toHaveLength(1);
    expect((await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 })).statusCode).toBe(409);
  });

  it('a partial amount is failed with the reason, nothing is cancelled, and the amount is free again', async () => {
    const payment = await paid();
    const partial = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 3000 });
    expect(partial.statusCode).toBe(201);
    expect(partial.json().data).toMatchObject({ amount: 3000, status: 'failed', provider_refund_id: null, failure_reason: `${WHOLE_OPERATION_ONLY} (10000 céntimos, not 3000)` });
    expect(extornos(payment.operation)).toHaveLength(0);
    expect(double.operations.get(`${account.merchant_code}/${payment.operation}`)!.state).toBe('AUTORIZADO');
    expect(await read(payment.id)).toMatchObject({ status: 'paid', refunded_amount: 0 });
    expect(await outbox(t, 'payments.refund.failed', partial.json().data.id)).toHaveLength(1);
    const full = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 10000 });
    expect(full.json().data).toMatchObject({ amount: 10000, status: 'refunded' });
    expect(await read(payment.id)).toMatchObject({ status: 'refunded', refunded_amount: 10000 });
  });

  it('409 over the amount or for a failed payment', async () => {
    const payment = await paid();
    const over = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 10001 });
    expect(over.statusCode).toBe(409);
    expect(over.json().error.code).toBe('REFUND_EXCEEDS_AMOUNT');
    const failed = (await checkout(double, admin, await createOrder(admin), CARDS.DECLINED)).res.json().data;
    expect((await admin('POST', `${PAYMENTS}/${failed.id}/refund`, { amount: 0 })).json().error.code).toBe('PAYMENT_NOT_REFUNDABLE');
  });

  it('full refunds at once: one extorno, one refund, never more than the payment', async () => {
    const payment = await paid();
    const answers = await Promise.all(Array.from({ length: 5 }, () => admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 })));
    const made = answers.filter((r) => r.statusCode === 201);
    expect(made).toHaveLength(1);
    expect(answers.filter((r) => r.statusCode === 409)).toHaveLength(4);
    const after = await read(payment.id);
    const refunded = after.refunds.filter((r: { status: string }) => r.status === 'refunded').reduce((sum: number, r: { amount: number }) => sum + r.amount, 0);
    expect(refunded).toBe(10000);
    expect(after).toMatchObject({ status: 'refunded', refunded_amount: 10000 });
    expect(extornos(payment.operation)).toHaveLength(1);
  });

  it('an extorno Pay-me refuses is recorded failed with its message', async () => {
    const payment = await paid();
    // Cancelled behind Qhatu's back in Pay-me's console: the extorno is refused.
    double.operations.get(`${account.merchant_code}/${payment.operation}`)!.state = 'CANCELADO';
    const res = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ status: 'failed', provider_refund_id: null, failure_reason: 'La operación no puede extornarse en estado CANCELADO — 01' });
    expect(await read(payment.id)).toMatchObject({ status: 'paid', refunded_amount: 0 });
  });
});
