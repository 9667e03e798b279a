import type { TestApp, TestTenant } from '@qhatu/core/testing';
import {
  caller, createOrder, expectCredentialsSealed, expectListedNotConfigured, expectMissingCredentials, expectNotConfigured, expectUnknownCredential,
  GATEWAYS, gatewayStores, MISSING, outbox, PAYMENTS, withUnreachableGateway, type Caller, type GatewayStores,
} from '@qhatu/plugin-payments/testing';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import stripe from '../src/index.js';
import { StripeDouble } from '../src/testing.js';
import { BASE_URL_VARIABLE, configure, newAccount, pay, type StripeAccount } from './helpers.js';

let w: GatewayStores<StripeDouble>;
let double: StripeDouble;
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let admin: Caller;
let store: Caller;
let account: StripeAccount;
beforeAll(async () => {
  account = newAccount();
  w = await gatewayStores(stripe, BASE_URL_VARIABLE, await new StripeDouble(new Set([account.secret_key])).start());
  ({ double, t, shop, other, admin, store } = w);
});
afterAll(() => w?.close());

describe('gateway credentials', () => {
  it('lists the installed gateway with its fields, not configured yet', async () => {
    const listed = await expectListedNotConfigured(store, 'stripe');
    expect(listed).toMatchObject({ name: 'Stripe', payment_fields: [{ name: 'payment_method_id', type: 'string', required: true, description: expect.any(String) }] });
    expect(listed.currencies).toEqual(expect.arrayContaining(['USD', 'PEN', 'EUR']));
    expect(listed.currencies.length).toBeGreaterThan(130);
    expect(listed.credential_fields.map((f: { name: string; secret: boolean }) => [f.name, f.secret])).toEqual([['secret_key', true], ['webhook_secret', true], ['publishable_key', false]]);
  });

  it('a payment before configuration is 422 GATEWAY_NOT_CONFIGURED and records nothing', async () => {
    expectNotConfigured([await pay(store, await createOrder(admin))], double);
  });

  it('PUT stores the credentials sealed; no answer ever carries a secret', async () => {
    await expectCredentialsSealed(t, shop, 'stripe', account, ['publishable_key']);
  });

  it('PUT merges: switching off keeps the credentials; a later PUT may send only one of them', async () => {
    expect((await admin('PUT', `${GATEWAYS}/stripe`, { enabled: false })).json().data).toMatchObject({ configured: true, enabled: false });
    const order = await createOrder(admin);
    expectNotConfigured([await pay(store, order)]);
    expect((await admin('PUT', `${GATEWAYS}/stripe`, { enabled: true, credentials: { publishable_key: account.publishable_key } })).json().data).toMatchObject({ enabled: true });
  });

  it('refuses unknown credentials, missing required ones, wrong types and unknown gateways', async () => {
    await expectUnknownCredential(admin, 'stripe', 'api_key');
    await expectMissingCredentials(caller(t, other), 'stripe', { secret_key: 'sk_test_x' }, ['webhook_secret']);
    expect((await admin('PUT', `${GATEWAYS}/stripe`, { enabled: 'yes' })).statusCode).toBe(400);
    expect((await admin('PUT', `${GATEWAYS}/stripe`, { credentials: { secret_key: 42 } })).statusCode).toBe(400);
    expect((await admin('PUT', `${GATEWAYS}/stripe`, { extra: true })).statusCode).toBe(400);
    const nope = await admin('PUT', `${GATEWAYS}/acme`, { enabled: true });
    expect(nope.statusCode).toBe(404);
    expect(nope.json().error.code).toBe('GATEWAY_NOT_FOUND');
    expect((await admin('GET', `${GATEWAYS}/NOT_AN_ID!`)).statusCode).toBe(400);
  });

  it('is admin only to read one gateway or change it, and each store sees its own settings', async () => {
    expect((await store('GET', `${GATEWAYS}/stripe`)).statusCode).toBe(403);
    expect((await store('PUT', `${GATEWAYS}/stripe`, { enabled: false })).statusCode).toBe(403);
    expect((await t.request({ method: 'GET', url: GATEWAYS, headers: { 'x-tenant-id': shop.id } })).statusCode).toBe(401);
    expect((await caller(t, other)('GET', `${GATEWAYS}/stripe`)).json().data).toMatchObject({ configured: false, enabled: false, public_credentials: {} });
    // This store's admin key with the other store's id: refused, and nothing changes there.
    const crossed = await t.request({ method: 'PUT', url: `${GATEWAYS}/stripe`, headers: { authorization: `Bearer ${shop.adminToken}`, 'x-tenant-id': other.id }, payload: { credentials: account } });
    expect([401, 403]).toContain(crossed.statusCode);
    expect((await caller(t, other)('GET', `${GATEWAYS}/stripe`)).json().data.configured).toBe(false);
  });
});

describe('POST /payments on Stripe', () => {
  it('creates and confirms a PaymentIntent from the client token: 201 paid, with the captured event', async () => {
    const order = await createOrder(admin, 2500, 2);
    const before = double.requests.length;
    const res = await pay(store, order);
    expect(res.statusCode).toBe(201);
    const payment = res.json().data;
    expect(payment).toMatchObject({
      order_id: order.id, gateway: 'stripe', amount: 5000, currency: 'PEN', status: 'paid', method: 'card',
      provider_payment_id: expect.stringMatching(/^pi_/), failure_reason: null, next_action: null, refunded_amount: 0, captured_at: expect.any(String), refunds: [],
    });
    const [sent] = double.requests.slice(before);
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/payment_intents', authorization: `Bearer ${account.secret_key}`, contentType: 'application/x-www-form-urlencoded', idempotencyKey: `qhatu-payment-${payment.id}` });
    expect(sent.form).toMatchObject({
      amount: '5000', currency: 'pen', payment_method: 'pm_card_visa', confirm: 'true',
      'automatic_payment_methods[enabled]': 'true', 'automatic_payment_methods[allow_redirects]': 'never',
      'metadata[order_id]': order.id, 'metadata[qhatu_payment_id]': payment.id,
    });
    const [captured] = await outbox(t, 'payments.payment.captured', payment.id);
    expect(Object.keys(captured.data).sort()).toEqual(['amount', 'captured_at', 'currency', 'id', 'method', 'order_id', 'status']);
    expect(captured.data).toEqual({ id: payment.id, order_id: order.id, amount: 5000, currency: 'PEN', method: 'card', status: 'paid', captured_at: payment.captured_at });
    expect((await outbox(t, 'payments.payment.confirmed', payment.id))[0].data).toEqual({ payment_id: payment.id, order_id: order.id, amount: 5000, currency: 'PEN' });
    const read = await store('GET', `${PAYMENTS}/${payment.id}`);
    expect(read.statusCode).toBe(200);
    expect(read.json().data).toEqual(payment);
  });

  it('a declined card is recorded: 201 failed with the provider’s reason', async () => {
    const order = await createOrder(admin);
    const res = await pay(store, order, 'pm_card_chargeDeclined');
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ status: 'failed', failure_reason: expect.stringContaining('Your card was declined.'), provider_payment_id: expect.stringMatching(/^pi_/), captured_at: null });
    expect(res.json().data.failure_reason).toContain('generic_decline');
  });

  it('3-D Secure leaves it pending with the next action for Stripe.js; polling GET picks up the outcome', async () => {
    const order = await createOrder(admin);
    const res = await pay(store, order, 'pm_card_threeDSecure');
    expect(res.statusCode).toBe(201);
    const payment = res.json().data;
    expect(payment).toMatchObject({ status: 'pending', next_action: { type: 'stripe_handle_next_action', client_secret: expect.stringContaining('_secret_') } });
    expect((await store('GET', `${PAYMENTS}/${payment.id}`)).json().data.status).toBe('pending');
    double.settle(payment.provider_payment_id, 'succeeded');
    expect((await store('GET', `${PAYMENTS}/${payment.id}`)).json().data).toMatchObject({ status: 'paid', next_action: null, captured_at: expect.any(String) });
  });

  it('after Stripe.js handled the next action, POST /confirm re-reads the intent (Stripe settles by itself)', async () => {
    const payment = (await pay(store, await createOrder(admin), 'pm_card_threeDSecure')).json().data;
    const early = await store('POST', `${PAYMENTS}/${payment.id}/confirm`);
    expect(early.statusCode).toBe(200);
    expect(early.json().data.status).toBe('pending');
    double.settle(payment.provider_payment_id, 'succeeded');
    const done = await store('POST', `${PAYMENTS}/${payment.id}/confirm`, {});
    expect(done.json().data).toMatchObject({ status: 'paid', next_action: null });
    expect((await store('POST', `${PAYMENTS}/${payment.id}/confirm`)).json().error.code).toBe('PAYMENT_NOT_PENDING');
  });

  it('validates the gateway’s own fields and currencies with a precise error', async () => {
    const order = await createOrder(admin);
    const base = { order_id: order.id, gateway: 'stripe', amount: order.total, currency: 'PEN' };
    const missing = await store('POST', PAYMENTS, base);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'body.payment_method_id', message: 'is required by Stripe' }] });
    const typed = await store('POST', PAYMENTS, { ...base, payment_method_id: 7 });
    expect(typed.json().error.details[0].path).toBe('body.payment_method_id');
    const currency = await store('POST', PAYMENTS, { ...base, currency: 'XTS', payment_method_id: 'pm_card_visa' });
    expect(currency.statusCode).toBe(400);
    expect(currency.json().error.details).toEqual([{ path: 'body.currency', message: 'Stripe does not take XTS' }]);
    const gateway = await store('POST', PAYMENTS, { ...base, gateway: 'acme', payment_method_id: 'pm_card_visa' });
    expect(gateway.statusCode).toBe(400);
    expect(gateway.json().error.details).toEqual([{ path: 'body.gateway', message: 'must be one of: stripe' }]);
    for (const bad of [{ ...base, amount: 0 }, { ...base, amount: 10.5 }, { ...base, amount: '100' }, { ...base, order_id: 'nope' }, { ...base, currency: 'pen' }, { gateway: 'stripe' }]) {
      const res = await store('POST', PAYMENTS, { payment_method_id: 'pm_card_visa', ...bad });
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
    const noOrder = await store('POST', PAYMENTS, { ...base, order_id: MISSING, payment_method_id: 'pm_card_visa' });
    expect(noOrder.statusCode).toBe(404);
    expect(noOrder.json().error.code).toBe('ORDER_NOT_FOUND');
  });

  it('an unknown token is the provider’s refusal: 201 failed with its message', async () => {
    const res = await pay(store, await createOrder(admin), 'pm_nope');
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ status: 'failed', provider_payment_id: null, failure_reason: expect.stringContaining("No such PaymentMethod: 'pm_nope'") });
  });

  it('a store whose Stripe key is refused gets a failed payment, not an error', async () => {
    const wrong = caller(t, other);
    await configure(wrong, newAccount());
    const res = await pay(wrong, await createOrder(wrong));
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ status: 'failed', failure_reason: expect.stringContaining('Invalid API Key provided') });
  });

  it('a provider that cannot be reached: 201 pending, since it may have charged; every read asks it again', async () => {
    await withUnreachableGateway(stripe, BASE_URL_VARIABLE, (api) => configure(api, account), async (api) => {
      const res = await pay(api, await createOrder(api));
      expect(res.statusCode).toBe(201);
      const payment = res.json().data;
      expect(payment).toMatchObject({ status: 'pending', provider_payment_id: null, failure_reason: null });
      expect((await api('GET', `${PAYMENTS}/${payment.id}`)).json().data).toMatchObject({ status: 'pending', failure_reason: null });
    });
  });

  it('every call goes through Stripe’s SDK: pinned Stripe-Version, its User-Agent, Qhatu’s idempotency keys on writes only', async () => {
    const before = double.requests.length;
    const payment = (await pay(store, await createOrder(admin), 'pm_card_threeDSecure')).json().data;
    double.settle(payment.provider_payment_id, 'succeeded');
    expect((await store('GET', `${PAYMENTS}/${payment.id}`)).json().data.status).toBe('paid');
    const refund = (await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 })).json().data;
    const sent = double.requests.slice(before);
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/payment_intents', `GET /v1/payment_intents/${payment.provider_payment_id}`, 'POST /v1/refunds']);
    for (const r of sent) {
      expect(r.stripeVersion).toBe(Stripe.API_VERSION);
      expect(r.userAgent).toMatch(/^Stripe\/v1 NodeBindings\/23\.1\.0/);
      expect(r.authorization).toBe(`Bearer ${account.secret_key}`);
    }
    expect(sent.map((r) => r.idempotencyKey)).toEqual([`qhatu-payment-${payment.id}`, undefined, `qhatu-refund-${refund.id}`]);
  });

  it('a retried POST with the same Idempotency-Key answers the first payment without charging again', async () => {
    const order = await createOrder(admin);
    const body = { order_id: order.id, gateway: 'stripe', amount: order.total, currency: 'PEN', payment_method_id: 'pm_card_visa' };
    const send = () => t.request({ method: 'POST', url: PAYMENTS, headers: { ...shop.headers(shop.storefrontToken), 'idempotency-key': `pay-${order.id}` }, payload: body });
    const before = double.requests.length;
    const first = await send();
    const second = await send();
    expect(first.statusCode).toBe(201);
    expect(second.json().data.id).toBe(first.json().data.id);
    expect(double.requests.length - before).toBe(1);
  });

  it('another store cannot read the payment; bad ids are 400; storefront keys cannot refund', async () => {
    const payment = (await pay(store, await createOrder(admin))).json().data;
    const foreign = await caller(t, other)('GET', `${PAYMENTS}/${payment.id}`);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error.code).toBe('PAYMENT_NOT_FOUND');
    expect((await caller(t, other)('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 })).statusCode).toBe(404);
    expect((await store('GET', `${PAYMENTS}/not-a-uuid`)).statusCode).toBe(400);
    expect((await store('GET', `${PAYMENTS}/${MISSING}`)).statusCode).toBe(404);
    const refund = await store('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 });
    expect(refund.statusCode).toBe(403);
    expect((await t.request({ method: 'POST', url: PAYMENTS, headers: { 'x-tenant-id': shop.id }, payload: {} })).statusCode).toBe(401);
    // The other store's order cannot be paid from this store.
    const theirs = await createOrder(caller(t, other));
    expect((await pay(store, theirs)).statusCode).toBe(404);
  });
});
