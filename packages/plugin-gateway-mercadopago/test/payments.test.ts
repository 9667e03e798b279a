import type { TestApp, TestTenant } from '@qhatu/core/testing';
import {
  caller, createOrder, expectCredentialsSealed, expectListedNotConfigured, expectMissingCredentials, expectNotConfigured, expectUnknownCredential,
  GATEWAYS, gatewayStores, outbox, PAYMENTS, withUnreachableGateway, type Caller, type GatewayStores,
} from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toMajor } from '../src/gateway.js';
import mercadopago from '../src/index.js';
import { MercadoPagoDouble } from '../src/testing.js';
import { BASE_URL_VARIABLE, configure, newAccount, pay, type MpAccount } from './helpers.js';

let w: GatewayStores<MercadoPagoDouble>;
let double: MercadoPagoDouble;
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let admin: Caller;
let store: Caller;
let account: MpAccount;
beforeAll(async () => {
  account = newAccount();
  w = await gatewayStores(mercadopago, BASE_URL_VARIABLE, await new MercadoPagoDouble(new Set([account.access_token])).start());
  ({ double, t, shop, other, admin, store } = w);
});
afterAll(() => w?.close());

describe('gateway credentials', () => {
  it('lists the gateway with its fields and currencies, not configured yet', async () => {
    const mp = await expectListedNotConfigured(store, 'mercadopago');
    expect(mp).toMatchObject({ name: 'Mercado Pago', currencies: ['PEN', 'ARS', 'BRL', 'CLP', 'COP', 'MXN', 'UYU'] });
    expect(mp.payment_fields.map((f: { name: string; type: string; required: boolean }) => [f.name, f.type, f.required])).toEqual([
      ['token', 'string', true], ['installments', 'integer', true], ['payment_method_id', 'string', true], ['email', 'string', false], ['issuer_id', 'string', false],
    ]);
    expect(mp.credential_fields.map((f: { name: string; secret: boolean }) => [f.name, f.secret])).toEqual([['access_token', true], ['webhook_secret', true], ['public_key', false]]);
  });

  it('a payment before configuration is 422 GATEWAY_NOT_CONFIGURED and calls nothing', async () => {
    expectNotConfigured([await pay(store, await createOrder(admin))], double);
  });

  it('PUT stores the credentials sealed; no answer ever carries a secret', async () => {
    await expectCredentialsSealed(t, shop, 'mercadopago', account, ['public_key']);
  });

  it('refuses unknown or missing credentials and wrong types; storefront keys cannot configure', async () => {
    await expectUnknownCredential(admin, 'mercadopago', 'api_key');
    await expectMissingCredentials(caller(t, other), 'mercadopago', { access_token: 'TEST-x' }, ['webhook_secret']);
    expect((await admin('PUT', `${GATEWAYS}/mercadopago`, { credentials: { access_token: 42 } })).statusCode).toBe(400);
    expect((await store('PUT', `${GATEWAYS}/mercadopago`, { enabled: false })).statusCode).toBe(403);
    expect((await caller(t, other)('GET', `${GATEWAYS}/mercadopago`)).json().data).toMatchObject({ configured: false, public_credentials: {} });
  });
});

describe('POST /payments on Mercado Pago', () => {
  it('approved: 201 paid; JSON with a decimal amount, the bearer token and an idempotency key', async () => {
    const order = await createOrder(admin, 2550, 2);
    const before = double.requests.length;
    const res = await pay(store, order, 'tok_approved', { installments: 3, issuer_id: '310' });
    expect(res.statusCode).toBe(201);
    const payment = res.json().data;
    expect(payment).toMatchObject({ order_id: order.id, gateway: 'mercadopago', amount: 5100, currency: 'PEN', status: 'paid', method: 'credit_card', provider_payment_id: expect.stringMatching(/^\d+$/), failure_reason: null, captured_at: expect.any(String) });
    const sent = double.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ method: 'POST', path: '/v1/payments', authorization: `Bearer ${account.access_token}`, contentType: 'application/json', idempotencyKey: payment.id });
    expect(sent[0].json).toEqual({
      transaction_amount: 51, token: 'tok_approved', installments: 3, payment_method_id: 'visa', issuer_id: '310', payer: { email: 'rosa@example.com' },
      description: `Qhatu order ${order.id}`, external_reference: payment.id, capture: true, metadata: { qhatu_payment_id: payment.id, order_id: order.id, tenant_id: shop.id },
    });
    expect(await outbox(t, 'payments.payment.captured', payment.id)).toHaveLength(1);
    expect((await store('GET', `${PAYMENTS}/${payment.id}`)).json().data).toEqual(payment);
  });

  it('converts minor units to decimals per currency', () => {
    expect(toMajor(5100, 'PEN')).toBe(51);
    expect(toMajor(1999, 'BRL')).toBe(19.99);
    expect(toMajor(1, 'ARS')).toBe(0.01);
    expect(toMajor(15000, 'CLP')).toBe(15000);
  });

  it('rejected: 201 failed with the status detail', async () => {
    const res = await pay(store, await createOrder(admin), 'tok_rejected');
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ status: 'failed', provider_payment_id: expect.stringMatching(/^\d+$/), captured_at: null, failure_reason: 'Mercado Pago rejected the payment: cc_rejected_insufficient_amount' });
    expect(await outbox(t, 'payments.payment.failed', res.json().data.id)).toHaveLength(1);
  });

  it('in_process stays processing; polling GET re-reads it', async () => {
    const payment = (await pay(store, await createOrder(admin), 'tok_in_process')).json().data;
    expect(payment).toMatchObject({ status: 'processing' });
    expect((await store('GET', `${PAYMENTS}/${payment.id}`)).json().data.status).toBe('processing');
    double.settle(payment.provider_payment_id, 'approved');
    expect((await store('GET', `${PAYMENTS}/${payment.id}`)).json().data).toMatchObject({ status: 'paid', captured_at: expect.any(String) });
    expect(double.requests.at(-1)).toMatchObject({ method: 'GET', path: `/v1/payments/${payment.provider_payment_id}`, authorization: `Bearer ${account.access_token}` });
  });

  it('validates token, installments, payment_method_id and currency', async () => {
    const order = await createOrder(admin);
    const base = { order_id: order.id, gateway: 'mercadopago', amount: order.total, currency: 'PEN' };
    const missing = await store('POST', PAYMENTS, base);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.details.map((d: { path: string }) => d.path)).toEqual(['body.token', 'body.installments', 'body.payment_method_id']);
    const typed = await store('POST', PAYMENTS, { ...base, token: 'tok_approved', installments: '1', payment_method_id: 'visa' });
    expect(typed.statusCode).toBe(400);
    expect(typed.json().error.details[0].path).toBe('body.installments');
    const currency = await store('POST', PAYMENTS, { ...base, currency: 'USD', token: 'tok_approved', installments: 1, payment_method_id: 'visa' });
    expect(currency.statusCode).toBe(400);
    expect(currency.json().error.details[0].path).toBe('body.currency');
  });

  it('Mercado Pago refusals are failed payments with its message: unknown token, no payer email, refused token', async () => {
    const token = await pay(store, await createOrder(admin), 'tok_nope');
    expect(token.json().data).toMatchObject({ status: 'failed', provider_payment_id: null, failure_reason: 'Card token tok_nope not found — 2006 Card token tok_nope not found' });
    const noEmail = await store('POST', PAYMENTS, { order_id: (await createOrder(admin)).id, gateway: 'mercadopago', amount: 5000, currency: 'PEN', token: 'tok_approved', installments: 1, payment_method_id: 'visa' });
    expect(noEmail.json().data).toMatchObject({ status: 'failed', failure_reason: expect.stringContaining('payer.email') });
    const wrong = caller(t, other);
    await configure(wrong, newAccount());
    const key = await pay(wrong, await createOrder(wrong));
    expect(key.statusCode).toBe(201);
    expect(key.json().data).toMatchObject({ status: 'failed', failure_reason: expect.stringContaining('invalid access token') });
  });

  it('a provider that cannot be reached: 201 pending, since it may have charged; every read asks it again', async () => {
    await withUnreachableGateway(mercadopago, BASE_URL_VARIABLE, (api) => configure(api, account), async (api) => {
      const res = await pay(api, await createOrder(api));
      expect(res.statusCode).toBe(201);
      const payment = res.json().data;
      expect(payment).toMatchObject({ status: 'pending', provider_payment_id: null, failure_reason: null });
      expect((await api('GET', `${PAYMENTS}/${payment.id}`)).json().data).toMatchObject({ status: 'pending', failure_reason: null });
    });
  });

  it('an answer lost after Mercado Pago charged or refunded: pending, then asked again with the same X-Idempotency-Key, done once', async () => {
    const writes = (path: RegExp) => (req: { method?: string; url?: string }) => req.method === 'POST' && path.test(req.url ?? '');
    double.loseAnswers(1, writes(/^\/v1\/payments$/));
    const payment = (await pay(store, await createOrder(admin))).json().data;
    expect(payment).toMatchObject({ status: 'pending', provider_payment_id: null, failure_reason: null });
    const made = () => [...double.payments.values()].filter((p) => p.external_reference === payment.id);
    expect(made()).toHaveLength(1);
    expect((await store('GET', `${PAYMENTS}/${payment.id}`)).json().data).toMatchObject({ status: 'paid', provider_payment_id: String(made()[0].id) });
    expect(made()).toHaveLength(1);

    double.loseAnswers(1, writes(/\/refunds$/));
    const refund = (await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 })).json().data;
    expect(refund).toMatchObject({ status: 'pending', provider_refund_id: null });
    expect((await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 1 })).json().error.code).toBe('REFUND_EXCEEDS_AMOUNT');
    expect((await store('GET', `${PAYMENTS}/${payment.id}`)).json().data).toMatchObject({ status: 'refunded', refunds: [{ id: refund.id, status: 'refunded' }] });
    expect(made()[0].refunds).toHaveLength(1);
  });

  it('another store cannot read or refund the payment; storefront keys cannot refund', async () => {
    const payment = (await pay(store, await createOrder(admin))).json().data;
    expect((await caller(t, other)('GET', `${PAYMENTS}/${payment.id}`)).statusCode).toBe(404);
    expect((await caller(t, other)('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 })).statusCode).toBe(404);
    expect((await store('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 })).statusCode).toBe(403);
  });
});

describe('POST /payments/:id/refund on Mercado Pago', () => {
  async function paid() {
    const res = await pay(admin, await createOrder(admin, 2500, 4));
    expect(res.json().data.status).toBe('paid');
    return res.json().data as { id: string; amount: number; provider_payment_id: string };
  }
  const read = async (id: string) => (await admin('GET', `${PAYMENTS}/${id}`)).json().data;

  it('partial, then the rest with 0: decimal amounts, idempotency key = refund id', async () => {
    const payment = await paid();
    const first = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 3050, reason: 'requested_by_customer' });
    expect(first.statusCode).toBe(201);
    expect(first.json().data).toMatchObject({ amount: 3050, status: 'refunded', provider_refund_id: expect.stringMatching(/^\d+$/) });
    const sent = double.requests.at(-1)!;
    expect(sent).toMatchObject({ method: 'POST', path: `/v1/payments/${payment.provider_payment_id}/refunds`, authorization: `Bearer ${account.access_token}`, contentType: 'application/json', idempotencyKey: first.json().data.id });
    expect(sent.json).toEqual({ amount: 30.5 });
    expect(await read(payment.id)).toMatchObject({ status: 'partially_refunded', refunded_amount: 3050 });
    const rest = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 });
    expect(rest.json().data).toMatchObject({ amount: 6950, status: 'refunded' });
    expect(double.requests.at(-1)!.json).toEqual({ amount: 69.5 });
    expect(await read(payment.id)).toMatchObject({ status: 'refunded', refunded_amount: 10000 });
    expect(double.payments.get(payment.provider_payment_id)).toMatchObject({ status: 'refunded', transaction_amount_refunded: 100 });
    expect((await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 })).statusCode).toBe(409);
  });

  it('a full refund at once', async () => {
    const payment = await paid();
    expect((await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 })).json().data).toMatchObject({ amount: 10000, status: 'refunded' });
    expect(double.requests.at(-1)!.json).toEqual({ amount: 100 });
    expect(await read(payment.id)).toMatchObject({ status: 'refunded', refunded_amount: 10000 });
  });

  it('a refund Mercado Pago refuses is recorded failed and frees its amount', async () => {
    const payment = await paid();
    double.payments.get(payment.provider_payment_id)!.transaction_amount_refunded = 100;
    const res = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 1000 });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ status: 'failed', provider_refund_id: null, failure_reason: expect.stringContaining('exceeds what is left') });
    expect(await read(payment.id)).toMatchObject({ status: 'paid', refunded_amount: 0 });
  });
});
