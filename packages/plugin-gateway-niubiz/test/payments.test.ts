import type { TestApp, TestTenant } from '@qhatu/core/testing';
import {
  caller, createOrder, expectCredentialsSealed, expectListedNotConfigured, expectMissingCredentials, expectNotConfigured, expectUnknownCredential,
  GATEWAYS, gatewayStores, MISSING, outbox, PAYMENTS, withUnreachableGateway, type Caller, type GatewayStores,
} from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { externalReferenceId, niubizGateway } from '../src/gateway.js';
import niubiz from '../src/index.js';
import { NiubizDouble, type NiubizMerchant } from '../src/testing.js';
import { BASE_URL_VARIABLE, configure, credentials, newMerchant, openSession, paidInForm, pay, type Session } from './helpers.js';

let w: GatewayStores<NiubizDouble>;
let double: NiubizDouble;
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let admin: Caller;
let store: Caller;
let merchant: NiubizMerchant;
let otherMerchant: NiubizMerchant;
beforeAll(async () => {
  merchant = newMerchant();
  otherMerchant = newMerchant();
  w = await gatewayStores(niubiz, BASE_URL_VARIABLE, await new NiubizDouble([merchant, otherMerchant]).start());
  ({ double, t, shop, other, admin, store } = w);
});
afterAll(() => w?.close());

const basic = (m: NiubizMerchant) => `Basic ${Buffer.from(`${m.username}:${m.password}`).toString('base64')}`;
const securityCalls = () => double.requests.filter((r) => r.path === '/api.security/v1/security');

describe('gateway credentials', () => {
  it('lists Niubiz with its fields and its session, not configured yet', async () => {
    const listed = await expectListedNotConfigured(store, 'niubiz');
    expect(listed).toMatchObject({
      name: 'Niubiz', currencies: ['PEN'],
      payment_fields: [
        { name: 'session_key', type: 'string', required: true, description: expect.any(String) },
        { name: 'transaction_token', type: 'string', required: true, description: expect.any(String) },
      ],
      session: { field: 'session_key', required: true },
    });
    expect(listed.credential_fields.map((f: { name: string; secret: boolean; required: boolean }) => [f.name, f.secret, f.required])).toEqual([
      ['merchant_id', false, true], ['username', true, true], ['password', true, true], ['ruc', false, true],
    ]);
  });

  it('a session or a payment before configuration is 422 GATEWAY_NOT_CONFIGURED and calls nothing', async () => {
    const order = await createOrder(admin);
    expectNotConfigured([await openSession(store, order.id), await pay(store, order, 'SESSION', 'TOKEN')], double);
  });

  it('PUT seals the API user and password; merchant code and RUC are public; no answer carries a secret', async () => {
    await expectCredentialsSealed(t, shop, 'niubiz', credentials(merchant), ['merchant_id', 'ruc']);
  });

  it('refuses unknown credentials and missing required ones (the RUC too)', async () => {
    await expectUnknownCredential(admin, 'niubiz', 'access_key');
    await expectMissingCredentials(caller(t, other), 'niubiz', { merchant_id: otherMerchant.merchantId, username: otherMerchant.username }, ['password', 'ruc']);
    expect((await store('PUT', `${GATEWAYS}/niubiz`, { enabled: false })).statusCode).toBe(403);
  });
});

describe('POST /payments/sessions on Niubiz', () => {
  it('asks for an access token with Basic auth, then a session: what checkout.js needs, nothing secret', async () => {
    const order = await createOrder(admin, 2500, 2);
    const before = double.requests.length;
    const res = await openSession(store, order.id, { return_url: 'https://shop.example.pe/gracias?from=niubiz' });
    expect(res.statusCode).toBe(201);
    const session = res.json().data as Session & { return_url: string };
    expect(session).toMatchObject({ gateway: 'niubiz', order_id: order.id, amount: 5000, currency: 'PEN', return_url: 'https://shop.example.pe/gracias?from=niubiz' });
    expect(session.reference).toBe(double.sessions.get(session.reference)!.key);
    expect(session.client).toEqual({
      session_key: session.reference, merchant_id: merchant.merchantId, purchase_number: expect.stringMatching(/^\d{1,12}$/), amount: '50.00',
      currency: 'PEN', channel: 'web', action: expect.stringMatching(new RegExp(`/webhooks/niubiz/${shop.id}\\?session=${session.id}$`)), expires_at: session.expires_at,
    });
    expect(new Date(session.expires_at!).getTime()).toBe(double.sessions.get(session.reference)!.expiresAt);
    expect(res.body).not.toContain(merchant.password);

    const [security, opened] = double.requests.slice(before);
    expect(security).toMatchObject({ method: 'GET', path: '/api.security/v1/security', authorization: basic(merchant) });
    expect(opened).toMatchObject({ method: 'POST', path: `/api.ecommerce/v2/ecommerce/token/session/${merchant.merchantId}`, contentType: 'application/json' });
    expect(opened.authorization).toMatch(/^eyJ/);
    expect(opened.json).toEqual({ channel: 'web', amount: 50, antifraud: { clientIp: '190.117.23.9', merchantDefineData: { MDD4: 'rosa@example.com' } } });
  });

  it('keeps the access token for later calls and takes a fresh one when Niubiz says it expired', async () => {
    const first = await openSession(store, (await createOrder(admin)).id);
    expect(first.statusCode).toBe(201);
    const calls = securityCalls().length;
    const a = (await openSession(store, (await createOrder(admin, 1999, 1)).id)).json().data as Session;
    expect(securityCalls()).toHaveLength(calls);
    expect(a.client.amount).toBe('19.99');
    expect(double.requests.at(-1)!.json.amount).toBe(19.99);

    double.expireTokens();
    const before = double.requests.length;
    const b = await openSession(store, (await createOrder(admin)).id);
    expect(b.statusCode).toBe(201);
    expect(double.requests.slice(before).map((r) => r.path)).toEqual([
      `/api.ecommerce/v2/ecommerce/token/session/${merchant.merchantId}`,
      '/api.security/v1/security',
      `/api.ecommerce/v2/ecommerce/token/session/${merchant.merchantId}`,
    ]);
    expect(b.json().data.client.purchase_number).not.toBe(a.client.purchase_number);
  });

  it('refused credentials are 422 GATEWAY_REFUSED with the reason; an order in dollars is refused before Niubiz is called', async () => {
    const wrong = caller(t, other);
    await configure(wrong, { ...otherMerchant, password: 'not-the-password' });
    const res = await openSession(wrong, (await createOrder(wrong)).id);
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ code: 'GATEWAY_REFUSED', message: expect.stringContaining('refused the store') });
    expect(res.body).not.toContain('not-the-password');

    const usd = await t.createTenant({ currency: 'USD' });
    const api = caller(t, usd);
    await configure(api, merchant);
    const before = double.requests.length;
    const dollars = await openSession(api, (await createOrder(api)).id);
    expect(dollars.statusCode).toBe(400);
    expect(dollars.json().error.details).toEqual([{ path: 'body.gateway', message: 'takes PEN' }]);
    expect(double.requests).toHaveLength(before);
  });

  it('a Niubiz that cannot be reached is 502 GATEWAY_UNAVAILABLE', async () => {
    await withUnreachableGateway(niubiz, BASE_URL_VARIABLE, (api) => configure(api, merchant), async (api) => {
      const res = await openSession(api, (await createOrder(api)).id);
      expect(res.statusCode).toBe(502);
      expect(res.json().error.code).toBe('GATEWAY_UNAVAILABLE');
    });
  });
});

describe('POST /payments on Niubiz', () => {
  it('authorizes the form’s transaction token for the session’s purchase number and amount: 201 paid', async () => {
    const order = await createOrder(admin, 2500, 2);
    const { session, token } = await paidInForm(store, double, order.id);
    const before = double.requests.length;
    const res = await pay(store, order, session.reference, token);
    expect(res.statusCode).toBe(201);
    const payment = res.json().data;
    const transaction = [...double.transactions.values()].at(-1)!;
    expect(payment).toMatchObject({
      order_id: order.id, gateway: 'niubiz', amount: 5000, currency: 'PEN', status: 'paid', method: 'visa',
      provider_payment_id: transaction.transactionId, failure_reason: null, refunded_amount: 0, captured_at: expect.any(String),
    });
    const [sent] = double.requests.slice(before);
    expect(sent).toMatchObject({ method: 'POST', path: `/api.authorization/v3/authorization/ecommerce/${merchant.merchantId}`, contentType: 'application/json' });
    expect(sent.authorization).toMatch(/^eyJ/);
    expect(sent.json).toEqual({
      channel: 'web', captureType: 'manual', countable: true,
      order: { tokenId: token, purchaseNumber: Number(session.client.purchase_number), amount: 50, currency: 'PEN' },
    });
    expect(transaction.purchaseNumber).toBe(session.client.purchase_number);
    expect((await outbox(t, 'payments.payment.captured', payment.id))[0].data).toMatchObject({ id: payment.id, amount: 5000, status: 'paid', method: 'visa' });
    expect((await store('GET', `${PAYMENTS}/sessions/${session.id}`)).json().data.payment_id).toBe(payment.id);
    // Paid is final: reading it again asks Niubiz nothing.
    const count = double.requests.length;
    expect((await store('GET', `${PAYMENTS}/${payment.id}`)).json().data).toMatchObject({ status: 'paid' });
    expect(double.requests).toHaveLength(count);
  });

  it('a denied card is recorded: 201 failed with Niubiz’s description, status and action code', async () => {
    const order = await createOrder(admin);
    const { session, token } = await paidInForm(store, double, order.id, 'denied');
    const res = await pay(store, order, session.reference, token);
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({
      status: 'failed', captured_at: null, provider_payment_id: expect.stringMatching(/^\d+$/),
      failure_reason: 'Operacion Denegada. Contactar con entidad emisora de su tarjeta. (Not Authorized, ACTION_CODE 190)',
    });
    expect(await outbox(t, 'payments.payment.failed', res.json().data.id)).toHaveLength(1);
  });

  it('an invented transaction token is a failed payment with Niubiz’s reason, never paid', async () => {
    const order = await createOrder(admin);
    const { session } = await paidInForm(store, double, order.id);
    const res = await pay(store, order, session.reference, 'F0RGED0000000000000000000000TOKEN');
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ status: 'failed', provider_payment_id: null, failure_reason: 'El token de transacción no es válido' });
  });

  it('validates session_key, transaction_token and currency with precise errors', async () => {
    const order = await createOrder(admin);
    const base = { order_id: order.id, gateway: 'niubiz', amount: order.total, currency: 'PEN' };
    const missing = await store('POST', PAYMENTS, base);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.details).toEqual([
      { path: 'body.session_key', message: 'is required by Niubiz' },
      { path: 'body.transaction_token', message: 'is required by Niubiz' },
    ]);
    const typed = await store('POST', PAYMENTS, { ...base, session_key: 42, transaction_token: 'x' });
    expect(typed.statusCode).toBe(400);
    expect(typed.json().error.details[0].path).toBe('body.session_key');
    const dollars = await store('POST', PAYMENTS, { ...base, currency: 'USD', session_key: 'S', transaction_token: 'T' });
    expect(dollars.statusCode).toBe(400);
    expect(dollars.json().error.details).toEqual([{ path: 'body.currency', message: 'Niubiz does not take USD' }]);
    expect((await store('POST', PAYMENTS, { ...base, order_id: MISSING, session_key: 'S', transaction_token: 'T' })).statusCode).toBe(404);
  });

  it('a session_key unknown, of another order or of another store is 422 PAYMENT_SESSION_INVALID; Niubiz is not asked', async () => {
    const order = await createOrder(admin);
    const { session, token } = await paidInForm(store, double, order.id);
    const authorizations = () => double.requests.filter((r) => r.path.startsWith('/api.authorization')).length;
    const before = authorizations();
    const unknown = await pay(store, order, 'NOT-A-SESSION', token);
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().error).toMatchObject({ code: 'PAYMENT_SESSION_INVALID', details: [{ path: 'body.session_key', message: 'unknown session' }] });
    const otherOrder = await pay(store, await createOrder(admin), session.reference, token);
    expect(otherOrder.statusCode).toBe(422);
    expect(otherOrder.json().error.code).toBe('PAYMENT_SESSION_INVALID');

    const theirs = caller(t, other);
    await configure(theirs, otherMerchant);
    const foreign = await pay(theirs, await createOrder(theirs), session.reference, token);
    expect(foreign.statusCode).toBe(422);
    expect(foreign.json().error.code).toBe('PAYMENT_SESSION_INVALID');
    expect(authorizations()).toBe(before);
    // The session is still good for its own order.
    expect((await pay(store, order, session.reference, token)).json().data.status).toBe('paid');
  });

  it('a session pays once: a second payment with it is 409 PAYMENT_SESSION_USED', async () => {
    const order = await createOrder(admin);
    const { session, token } = await paidInForm(store, double, order.id);
    expect((await pay(store, order, session.reference, token)).json().data.status).toBe('paid');
    const again = await pay(store, order, session.reference, token);
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('PAYMENT_SESSION_USED');
  });

  it('a Niubiz that cannot be reached for the authorization: 201 pending and counted; once it answers, the purchase number finds nothing and the payment fails on its word', async () => {
    const order = await createOrder(admin);
    const { session, token } = await paidInForm(store, double, order.id);
    double.down = true;
    let payment;
    try {
      const res = await pay(store, order, session.reference, token);
      expect(res.statusCode).toBe(201);
      payment = res.json().data;
      expect(payment).toMatchObject({ status: 'pending', provider_payment_id: null, failure_reason: null });
      expect((await store('GET', `${PAYMENTS}/${payment.id}`)).json().data.status).toBe('pending');
    } finally {
      double.down = false;
    }
    const read = (await store('GET', `${PAYMENTS}/${payment.id}`)).json().data;
    expect(read).toMatchObject({ status: 'failed', provider_payment_id: null, failure_reason: 'Niubiz has no charge for this payment: its charge never reached Niubiz' });
    expect(double.requests.filter((r) => r.path === `/api.authorization/v3/retrieve/purchase/${merchant.merchantId}/${session.client.purchase_number}`)).toHaveLength(1);
  });

  it('an authorization whose answer was lost is found by the session’s purchase number, never authorized twice', async () => {
    const order = await createOrder(admin);
    const { session, token } = await paidInForm(store, double, order.id);
    const authorizations = () => double.requests.filter((r) => r.path.startsWith('/api.authorization/v3/authorization/')).length;
    const asked = authorizations();
    double.loseAnswers(1, (req) => req.method === 'POST' && (req.url ?? '').startsWith('/api.authorization/v3/authorization/'));
    const payment = (await pay(store, order, session.reference, token)).json().data;
    expect(payment).toMatchObject({ status: 'pending', provider_payment_id: null });
    const made = [...double.transactions.values()].filter((x) => x.purchaseNumber === session.client.purchase_number);
    expect(made).toHaveLength(1);
    const read = (await store('GET', `${PAYMENTS}/${payment.id}`)).json().data;
    expect(read).toMatchObject({ status: 'paid', provider_payment_id: made[0].transactionId, failure_reason: null });
    expect(authorizations()).toBe(asked + 1);
  });
});

describe('POST /payments/:id/refund on Niubiz', () => {
  async function paid() {
    const order = await createOrder(admin, 2500, 4);
    const { session, token } = await paidInForm(store, double, order.id);
    const payment = (await pay(store, order, session.reference, token)).json().data;
    expect(payment.status).toBe('paid');
    return payment as { id: string; amount: number; provider_payment_id: string };
  }
  const read = async (id: string) => (await admin('GET', `${PAYMENTS}/${id}`)).json().data;
  const refundCalls = () => double.requests.filter((r) => r.path.startsWith('/api.refund/v1/refund/'));

  it('registers a partial devolución (processing), settles it on a later read; then the rest', async () => {
    const payment = await paid();
    const first = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 3000, reason: 'requested_by_customer' });
    expect(first.statusCode).toBe(201);
    const refund = first.json().data;
    expect(refund).toMatchObject({ amount: 3000, status: 'processing', provider_refund_id: externalReferenceId(refund.id) });
    expect(refund.provider_refund_id).toHaveLength(20);
    const sent = refundCalls().at(-1)!;
    expect(sent).toMatchObject({ path: `/api.refund/v1/refund/${merchant.merchantId}/${payment.provider_payment_id}`, contentType: 'application/json' });
    expect(sent.authorization).toMatch(/^eyJ/);
    expect(sent.json).toEqual({ ruc: merchant.ruc, comment: 'Solicitud del cliente', externalReferenceId: refund.provider_refund_id, amount: 30 });

    // Still registered at Niubiz: a read asks (queryRefund) and nothing moves.
    expect(await read(payment.id)).toMatchObject({ status: 'paid', refunded_amount: 0, refunds: [{ status: 'processing' }] });
    expect(double.requests.at(-1)).toMatchObject({ path: `/api.refund/v1/queryRefund/${merchant.merchantId}`, json: { ruc: merchant.ruc, externalReferenceId: refund.provider_refund_id } });
    double.settleRefund(refund.provider_refund_id, 'PROCESADO');
    expect(await read(payment.id)).toMatchObject({ status: 'partially_refunded', refunded_amount: 3000, refunds: [{ status: 'refunded' }] });
    expect(await outbox(t, 'payments.refund.refunded', payment.id)).toHaveLength(1);

    const rest = (await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0, reason: 'duplicate' })).json().data;
    expect(rest).toMatchObject({ amount: 7000, status: 'processing' });
    expect(refundCalls().at(-1)!.json).toMatchObject({ amount: 70, comment: 'Cargo duplicado' });
    // Open refunds count: nothing more can be refunded while it is under way.
    expect((await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 100 })).json().error.code).toBe('REFUND_EXCEEDS_AMOUNT');
    double.settleRefund(rest.provider_refund_id, 'PROCESADO');
    expect(await read(payment.id)).toMatchObject({ status: 'refunded', refunded_amount: 10000 });
    expect(double.transactions.get(payment.provider_payment_id)!.refunded).toBe(10000);
  });

  it('a devolución Niubiz rejects later is failed with its reason and frees its amount', async () => {
    const payment = await paid();
    const refund = (await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0, reason: 'fraudulent' })).json().data;
    expect(refund).toMatchObject({ amount: 10000, status: 'processing' });
    expect(refundCalls().at(-1)!.json.comment).toBe('Cargo fraudulento');
    double.settleRefund(refund.provider_refund_id, 'RECHAZADO');
    expect(await read(payment.id)).toMatchObject({
      status: 'paid', refunded_amount: 0, refunds: [{ status: 'failed', failure_reason: 'Niubiz refused the refund: Devolución rechazada por el emisor' }],
    });
    expect(await outbox(t, 'payments.refund.failed', refund.id)).toHaveLength(1);
    expect((await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0, reason: 'other' })).json().data).toMatchObject({ amount: 10000, status: 'processing' });
    expect(refundCalls().at(-1)!.json.comment).toBe('Devolución');
  });

  it('a registration Niubiz refuses is failed with its message and code', async () => {
    const payment = await paid();
    await configure(admin, { ...merchant, ruc: '20999999999' });
    try {
      const res = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 1000 });
      expect(res.statusCode).toBe(201);
      expect(res.json().data).toMatchObject({ status: 'failed', provider_refund_id: null, failure_reason: 'El RUC no corresponde al comercio (CODERROR 102)' });
      expect(await read(payment.id)).toMatchObject({ status: 'paid', refunded_amount: 0 });
    } finally {
      await configure(admin, merchant);
    }
  });

  it('409 over the refundable amount or for a failed payment', async () => {
    const payment = await paid();
    const over = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 10001 });
    expect(over.statusCode).toBe(409);
    expect(over.json().error.code).toBe('REFUND_EXCEEDS_AMOUNT');
    const order = await createOrder(admin);
    const { session, token } = await paidInForm(store, double, order.id, 'denied');
    const failed = (await pay(store, order, session.reference, token)).json().data;
    expect((await admin('POST', `${PAYMENTS}/${failed.id}/refund`, { amount: 100 })).json().error.code).toBe('PAYMENT_NOT_REFUNDABLE');
  });

  it('concurrent refunds never exceed the payment, at Qhatu or at Niubiz', async () => {
    const payment = await paid();
    const before = refundCalls().length;
    const answers = await Promise.all(Array.from({ length: 5 }, () => admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 3000 })));
    const made = answers.filter((r) => r.statusCode === 201);
    expect(made).toHaveLength(3);
    expect(answers.filter((r) => r.statusCode === 409)).toHaveLength(2);
    expect(made.every((r) => r.json().data.status === 'processing')).toBe(true);
    expect(refundCalls().length - before).toBe(3);
    expect(double.transactions.get(payment.provider_payment_id)!.refunded).toBe(9000);
    for (const r of made) double.settleRefund(r.json().data.provider_refund_id, 'PROCESADO');
    expect(await read(payment.id)).toMatchObject({ status: 'partially_refunded', refunded_amount: 9000 });
  });
});

describe('the adapter itself', () => {
  const ctx = () => ({ credentials: credentials(merchant), baseUrl: double.url, tenantId: shop.id });

  it('status re-reads a transaction from Niubiz: approved is paid, denied is failed, unknown throws', async () => {
    const order = await createOrder(admin);
    const approved = await paidInForm(store, double, order.id);
    const paid = (await pay(store, order, approved.session.reference, approved.token)).json().data;
    expect(await niubizGateway.status(ctx(), paid.provider_payment_id)).toEqual({ status: 'paid', providerPaymentId: paid.provider_payment_id, method: 'visa' });
    expect(double.requests.at(-1)).toMatchObject({ method: 'GET', path: `/api.authorization/v3/retrieve/transaction/${merchant.merchantId}/${paid.provider_payment_id}` });

    const second = await createOrder(admin);
    const denied = await paidInForm(store, double, second.id, 'denied');
    const failed = (await pay(store, second, denied.session.reference, denied.token)).json().data;
    expect(await niubizGateway.status(ctx(), failed.provider_payment_id)).toMatchObject({ status: 'failed', failureReason: expect.stringContaining('ACTION_CODE 190') });
    await expect(niubizGateway.status(ctx(), '1')).rejects.toThrow('No se encontró la transacción');
  });

  it('reads the checkout form’s post: the transaction token and the session; nothing else is trusted', () => {
    const inbound = (body: string, query: string) => ({ rawBody: Buffer.from(body), headers: {}, query: new URLSearchParams(query), now: new Date() });
    const session = '6f1c2b8e-3d0a-4c55-9a7e-1b2c3d4e5f60';
    expect(niubizGateway.parseCallback!(inbound('transactionToken=ABC123&customerEmail=rosa%40example.com&channel=web', `session=${session}`))).toEqual({
      sessionId: session, fields: { transaction_token: 'ABC123' },
    });
    expect(niubizGateway.parseCallback!(inbound('customerEmail=rosa%40example.com', `session=${session}`))).toBeNull();
    expect(niubizGateway.parseCallback!(inbound('transactionToken=ABC123', ''))).toBeNull();
    expect(niubizGateway.verifyNotification(ctx(), inbound('transactionToken=ABC123', `session=${session}`))).toBe(false);
    expect(niubizGateway.parseNotification(inbound('{}', ''))).toBeNull();
  });
});
