import type { TestApp, TestTenant } from '@qhatu/core/testing';
import {
  caller, createOrder, expectCredentialsSealed, expectListedNotConfigured, expectMissingCredentials, expectNotConfigured, expectUnknownCredential,
  GATEWAYS, gatewayStores, MISSING, outbox, PAYMENTS, withUnreachableGateway, type Caller, type GatewayStores,
} from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import culqi from '../src/index.js';
import { CulqiDouble } from '../src/testing.js';
import { BASE_URL_VARIABLE, configure, newAccount, pay, type CulqiAccount } from './helpers.js';

let w: GatewayStores<CulqiDouble>;
let double: CulqiDouble;
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let admin: Caller;
let store: Caller;
let account: CulqiAccount;
beforeAll(async () => {
  account = newAccount();
  w = await gatewayStores(culqi, BASE_URL_VARIABLE, await new CulqiDouble(new Set([account.secret_key])).start());
  ({ double, t, shop, other, admin, store } = w);
});
afterAll(() => w?.close());

describe('gateway credentials', () => {
  it('lists the installed gateway with its fields, not configured yet', async () => {
    const listed = await expectListedNotConfigured(store, 'culqi');
    expect(listed).toMatchObject({
      name: 'Culqi', currencies: ['PEN', 'USD'],
      payment_fields: [
        { name: 'token_id', type: 'string', required: true, description: expect.any(String) },
        { name: 'email', type: 'string', required: true, description: expect.any(String) },
      ],
    });
    expect(listed.credential_fields.map((f: { name: string; secret: boolean }) => [f.name, f.secret])).toEqual([
      ['secret_key', true], ['webhook_username', true], ['webhook_password', true], ['public_key', false],
    ]);
  });

  it('a payment before configuration is 422 GATEWAY_NOT_CONFIGURED and calls nothing', async () => {
    expectNotConfigured([await pay(store, await createOrder(admin))], double);
  });

  it('PUT stores the credentials sealed; no answer ever carries a secret', async () => {
    await expectCredentialsSealed(t, shop, 'culqi', account, ['public_key']);
  });

  it('refuses unknown credentials, missing required ones, wrong types', async () => {
    await expectUnknownCredential(admin, 'culqi', 'api_key');
    await expectMissingCredentials(caller(t, other), 'culqi', { secret_key: 'sk_test_x' }, ['webhook_username', 'webhook_password']);
    expect((await admin('PUT', `${GATEWAYS}/culqi`, { credentials: { secret_key: 42 } })).statusCode).toBe(400);
    expect((await admin('PUT', `${GATEWAYS}/culqi`, { enabled: 'yes' })).statusCode).toBe(400);
    expect((await store('PUT', `${GATEWAYS}/culqi`, { enabled: false })).statusCode).toBe(403);
    expect((await store('GET', `${GATEWAYS}/culqi`)).statusCode).toBe(403);
    expect((await caller(t, other)('GET', `${GATEWAYS}/culqi`)).json().data).toMatchObject({ configured: false, public_credentials: {} });
  });
});

describe('POST /payments on Culqi', () => {
  it('charges the Culqi.js token: 201 paid, JSON body in céntimos with the bearer private key', async () => {
    const order = await createOrder(admin, 2500, 2);
    const before = double.requests.length;
    const res = await pay(store, order);
    expect(res.statusCode).toBe(201);
    const payment = res.json().data;
    expect(payment).toMatchObject({
      order_id: order.id, gateway: 'culqi', amount: 5000, currency: 'PEN', status: 'paid', method: 'card',
      provider_payment_id: expect.stringMatching(/^chr_test_/), failure_reason: null, next_action: null, refunded_amount: 0, captured_at: expect.any(String),
    });
    const sent = double.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ method: 'POST', path: '/v2/charges', authorization: `Bearer ${account.secret_key}`, contentType: 'application/json' });
    expect(sent[0].json).toEqual({
      amount: 5000, currency_code: 'PEN', email: 'rosa@example.com', source_id: 'tkn_test_visa', capture: true,
      description: `Qhatu order ${order.id}`, metadata: { qhatu_payment_id: payment.id, order_id: order.id, tenant_id: shop.id },
    });
    expect((await outbox(t, 'payments.payment.captured', payment.id))[0].data).toMatchObject({ id: payment.id, amount: 5000, currency: 'PEN', status: 'paid' });
    expect((await outbox(t, 'payments.payment.confirmed', payment.id))).toHaveLength(1);
    expect((await store('GET', `${PAYMENTS}/${payment.id}`)).json().data).toEqual(payment);
  });

  it('charges in dollars too', async () => {
    const usd = await t.createTenant({ currency: 'USD' });
    const api = caller(t, usd);
    const acc = newAccount();
    double.keys.add(acc.secret_key);
    await configure(api, acc);
    const res = await pay(api, await createOrder(api, 1999, 1));
    expect(res.json().data).toMatchObject({ status: 'paid', currency: 'USD', amount: 1999 });
    expect(double.requests.at(-1)!.json).toMatchObject({ amount: 1999, currency_code: 'USD' });
  });

  it('a declined card is recorded: 201 failed with Culqi’s message and decline code', async () => {
    const res = await pay(store, await createOrder(admin), 'tkn_test_declined');
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ status: 'failed', provider_payment_id: expect.stringMatching(/^chr_test_/), captured_at: null });
    expect(res.json().data.failure_reason).toBe('La tarjeta no tiene fondos suficientes. — insufficient_funds');
    expect(await outbox(t, 'payments.payment.failed', res.json().data.id)).toHaveLength(1);
  });

  it('3-D Secure (action_code REVIEW): pending with next_action, then confirmed with the browser\'s Culqi 3DS result', async () => {
    const order = await createOrder(admin);
    const res = await pay(store, order, 'tkn_test_3ds');
    expect(res.statusCode).toBe(201);
    const payment = res.json().data;
    expect(payment).toMatchObject({ status: 'pending', provider_payment_id: null, next_action: { type: 'culqi_3ds', token_id: 'tkn_test_3ds', email: 'rosa@example.com' } });
    expect(JSON.stringify(payment)).not.toContain('gateway_data');

    // What the client sends is checked field by field before Culqi is asked.
    const charges = double.requests.filter((r) => r.path === '/v2/charges').length;
    const none = await store('POST', `${PAYMENTS}/${payment.id}/confirm`, {});
    expect(none.statusCode).toBe(400);
    expect(none.json().error.details[0].path).toBe('body.authentication_3ds');
    const partial = await store('POST', `${PAYMENTS}/${payment.id}/confirm`, { authentication_3ds: { eci: '05', xid: 'x' } });
    expect(partial.json().error.details.map((d: { path: string }) => d.path)).toEqual([
      'body.authentication_3ds.cavv', 'body.authentication_3ds.protocolVersion', 'body.authentication_3ds.directoryServerTransactionId',
    ]);
    expect(double.requests.filter((r) => r.path === '/v2/charges')).toHaveLength(charges);

    const authentication = double.authenticate('tkn_test_3ds');
    const confirmed = await store('POST', `${PAYMENTS}/${payment.id}/confirm`, { authentication_3ds: authentication });
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.json().data).toMatchObject({ id: payment.id, status: 'paid', provider_payment_id: expect.stringMatching(/^chr_test_/), next_action: null });
    expect(double.requests.at(-1)!.json).toMatchObject({ source_id: 'tkn_test_3ds', amount: order.total, email: 'rosa@example.com', authentication_3DS: authentication });
    expect(await outbox(t, 'payments.payment.confirmed', payment.id)).toHaveLength(1);

    const again = await store('POST', `${PAYMENTS}/${payment.id}/confirm`, { authentication_3ds: authentication });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('PAYMENT_NOT_PENDING');
  });

  it('3-D Secure that the bank did not accept fails the payment with Culqi\'s reason', async () => {
    const payment = (await pay(store, await createOrder(admin), 'tkn_test_3ds')).json().data;
    const forged = { eci: '05', xid: 'eA==', cavv: 'forged', protocolVersion: '2.2.0', directoryServerTransactionId: MISSING };
    const res = await store('POST', `${PAYMENTS}/${payment.id}/confirm`, { authentication_3ds: forged });
    expect(res.json().data).toMatchObject({ status: 'failed', failure_reason: 'La autenticación 3DS no fue válida. — authentication_failed' });
    // Another store cannot confirm this store's payment.
    expect((await caller(t, other)('POST', `${PAYMENTS}/${payment.id}/confirm`, { authentication_3ds: forged })).statusCode).toBe(404);
  });

  it('a 3-D Secure confirm whose answer was lost is looked up: found, the payment is paid; never at Culqi, the shopper confirms again', async () => {
    const charges = (req: { method?: string; url?: string }) => req.method === 'POST' && req.url === '/v2/charges';
    const authentication = double.authenticate('tkn_test_3ds');
    const lost = (await pay(store, await createOrder(admin), 'tkn_test_3ds')).json().data;
    double.loseAnswers(1, charges);
    const unanswered = await store('POST', `${PAYMENTS}/${lost.id}/confirm`, { authentication_3ds: authentication });
    expect(unanswered.statusCode).toBe(502);
    expect(unanswered.json().error.code).toBe('GATEWAY_UNAVAILABLE');
    const made = [...double.charges.values()].filter((c) => c.metadata.qhatu_payment_id === lost.id);
    expect(made).toHaveLength(1);
    expect((await store('GET', `${PAYMENTS}/${lost.id}`)).json().data).toMatchObject({ status: 'paid', provider_payment_id: made[0].id });

    const dropped = (await pay(store, await createOrder(admin), 'tkn_test_3ds')).json().data;
    double.dropRequests(1, charges);
    expect((await store('POST', `${PAYMENTS}/${dropped.id}/confirm`, { authentication_3ds: authentication })).statusCode).toBe(502);
    expect((await store('GET', `${PAYMENTS}/${dropped.id}`)).json().data).toMatchObject({ status: 'pending', next_action: { type: 'culqi_3ds' } });
    expect((await store('POST', `${PAYMENTS}/${dropped.id}/confirm`, { authentication_3ds: authentication })).json().data).toMatchObject({ status: 'paid' });
    expect([...double.charges.values()].filter((c) => c.metadata.qhatu_payment_id === dropped.id)).toHaveLength(1);
  });

  it('a charge without a verdict stays processing; polling GET re-reads it from Culqi', async () => {
    const payment = (await pay(store, await createOrder(admin), 'tkn_test_held')).json().data;
    expect(payment).toMatchObject({ status: 'processing', provider_payment_id: expect.stringMatching(/^chr_test_/) });
    expect((await store('GET', `${PAYMENTS}/${payment.id}`)).json().data.status).toBe('processing');
    double.settle(payment.provider_payment_id, 'sale');
    expect((await store('GET', `${PAYMENTS}/${payment.id}`)).json().data).toMatchObject({ status: 'paid', captured_at: expect.any(String) });
    expect(double.requests.at(-1)).toMatchObject({ method: 'GET', path: `/v2/charges/${payment.provider_payment_id}`, authorization: `Bearer ${account.secret_key}` });
  });

  it('validates token_id, email and currency with a precise error', async () => {
    const order = await createOrder(admin);
    const base = { order_id: order.id, gateway: 'culqi', amount: order.total, currency: 'PEN' };
    const missing = await store('POST', PAYMENTS, base);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(missing.json().error.details).toEqual([
      { path: 'body.token_id', message: 'is required by Culqi' },
      { path: 'body.email', message: 'is required by Culqi' },
    ]);
    const typed = await store('POST', PAYMENTS, { ...base, token_id: 7, email: 'rosa@example.com' });
    expect(typed.statusCode).toBe(400);
    expect(typed.json().error.details[0].path).toBe('body.token_id');
    const empty = await store('POST', PAYMENTS, { ...base, token_id: 'tkn_test_visa', email: '' });
    expect(empty.json().error.details[0].path).toBe('body.email');
    const currency = await store('POST', PAYMENTS, { ...base, currency: 'EUR', token_id: 'tkn_test_visa', email: 'rosa@example.com' });
    expect(currency.statusCode).toBe(400);
    expect(currency.json().error.details).toEqual([{ path: 'body.currency', message: 'Culqi does not take EUR' }]);
    const noOrder = await store('POST', PAYMENTS, { ...base, order_id: MISSING, token_id: 'tkn_test_visa', email: 'rosa@example.com' });
    expect(noOrder.statusCode).toBe(404);
  });

  it('Culqi’s refusals are failed payments with its message: unknown token, bad email, refused key', async () => {
    const token = await pay(store, await createOrder(admin), 'tkn_nope');
    expect(token.statusCode).toBe(201);
    expect(token.json().data).toMatchObject({ status: 'failed', provider_payment_id: null, failure_reason: 'El token tkn_nope no existe o ya fue usado.' });
    const email = await pay(store, await createOrder(admin), 'tkn_test_visa', 'not-an-email');
    expect(email.json().data).toMatchObject({ status: 'failed', failure_reason: 'El campo email es inválido.' });
    const wrong = caller(t, other);
    await configure(wrong, newAccount());
    const key = await pay(wrong, await createOrder(wrong));
    expect(key.statusCode).toBe(201);
    expect(key.json().data).toMatchObject({ status: 'failed', failure_reason: expect.stringContaining('llave privada') });
  });

  it('a provider that cannot be reached: 201 pending (Culqi may have charged), its amount counted, until Culqi can be asked', async () => {
    await withUnreachableGateway(culqi, BASE_URL_VARIABLE, (api) => configure(api, account), async (api) => {
      const order = await createOrder(api);
      const res = await pay(api, order);
      expect(res.statusCode).toBe(201);
      expect(res.json().data).toMatchObject({ status: 'pending', provider_payment_id: null, failure_reason: null });
      expect((await api('GET', `${PAYMENTS}/${res.json().data.id}`)).json().data).toMatchObject({ status: 'pending', failure_reason: null });
      expect((await pay(api, order)).json().error.code).toBe('PAYMENT_EXCEEDS_BALANCE');
    });
  });

  it('a charge whose answer was lost is looked up by the payment id in its metadata, never charged again', async () => {
    const charges = () => [...double.charges.values()];
    double.loseAnswers(1, (req) => req.method === 'POST' && req.url === '/v2/charges');
    const before = charges().length;
    const payment = (await pay(store, await createOrder(admin))).json().data;
    expect(payment).toMatchObject({ status: 'pending', provider_payment_id: null, failure_reason: null });
    const [made] = charges().slice(before);
    expect(made.metadata).toMatchObject({ qhatu_payment_id: payment.id });
    const read = (await store('GET', `${PAYMENTS}/${payment.id}`)).json().data;
    expect(read).toMatchObject({ status: 'paid', provider_payment_id: made.id, failure_reason: null });
    expect(charges()).toHaveLength(before + 1);
    const listed = double.requests.filter((r) => r.method === 'GET' && r.path === '/v2/charges');
    expect(listed.length).toBeGreaterThan(0);
    expect(double.requests.filter((r) => r.method === 'POST' && r.path === '/v2/charges' && r.json.metadata && (r.json.metadata as { qhatu_payment_id?: string }).qhatu_payment_id === payment.id)).toHaveLength(1);
  });

  it('a charge that never reached Culqi: the look-up finds none, and the payment fails on Culqi’s word, its amount free again', async () => {
    const order = await createOrder(admin);
    double.dropRequests(1, (req) => req.method === 'POST' && req.url === '/v2/charges');
    const payment = (await pay(store, order)).json().data;
    expect(payment).toMatchObject({ status: 'pending', provider_payment_id: null });
    const read = (await store('GET', `${PAYMENTS}/${payment.id}`)).json().data;
    expect(read).toMatchObject({ status: 'failed', provider_payment_id: null, failure_reason: 'Culqi has no charge for this payment: its charge never reached Culqi' });
    expect(await outbox(t, 'payments.payment.failed', payment.id)).toHaveLength(1);
    expect((await pay(store, order)).json().data.status).toBe('paid');
  });

  it('another store cannot read the payment; storefront keys cannot refund', async () => {
    const payment = (await pay(store, await createOrder(admin))).json().data;
    const foreign = await caller(t, other)('GET', `${PAYMENTS}/${payment.id}`);
    expect(foreign.statusCode).toBe(404);
    expect((await caller(t, other)('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 })).statusCode).toBe(404);
    expect((await store('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 })).statusCode).toBe(403);
    expect((await pay(store, await createOrder(caller(t, other)))).statusCode).toBe(404);
  });
});

describe('POST /payments/:id/refund on Culqi', () => {
  async function paid() {
    const res = await pay(admin, await createOrder(admin, 2500, 4));
    expect(res.json().data.status).toBe('paid');
    return res.json().data as { id: string; amount: number; provider_payment_id: string; order_id: string };
  }
  const read = async (id: string) => (await admin('GET', `${PAYMENTS}/${id}`)).json().data;

  it('partial, then the rest with 0: partially_refunded → refunded, on the original charge', async () => {
    const payment = await paid();
    const first = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 3000, reason: 'requested_by_customer' });
    expect(first.statusCode).toBe(201);
    expect(first.json().data).toMatchObject({ amount: 3000, status: 'refunded', provider_refund_id: expect.stringMatching(/^ref_test_/) });
    const sent = double.requests.filter((r) => r.path === '/v2/refunds').at(-1)!;
    expect(sent).toMatchObject({ authorization: `Bearer ${account.secret_key}`, contentType: 'application/json' });
    expect(sent.json).toEqual({ amount: 3000, charge_id: payment.provider_payment_id, reason: 'solicitud_comprador' });
    expect(await read(payment.id)).toMatchObject({ status: 'partially_refunded', refunded_amount: 3000 });

    const rest = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0, reason: 'duplicate' });
    expect(rest.json().data).toMatchObject({ amount: 7000, status: 'refunded' });
    expect(double.requests.filter((r) => r.path === '/v2/refunds').at(-1)!.json).toMatchObject({ amount: 7000, reason: 'duplicado' });
    expect(await read(payment.id)).toMatchObject({ status: 'refunded', refunded_amount: 10000 });
    expect(double.charges.get(payment.provider_payment_id)!.amount_refunded).toBe(10000);
    expect(await outbox(t, 'payments.refund.refunded', payment.id)).toHaveLength(2);
    const again = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 });
    expect(again.statusCode).toBe(409);
  });

  it('a full refund at once; reasons fraudulent and other map to Culqi’s', async () => {
    const payment = await paid();
    expect((await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 100, reason: 'fraudulent' })).statusCode).toBe(201);
    expect(double.requests.at(-1)!.json.reason).toBe('fraudulento');
    expect((await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0, reason: 'other' })).json().data).toMatchObject({ amount: 9900, status: 'refunded' });
    expect(double.requests.at(-1)!.json.reason).toBe('solicitud_comprador');
    const full = await paid();
    expect((await admin('POST', `${PAYMENTS}/${full.id}/refund`, { amount: 0 })).json().data).toMatchObject({ amount: 10000, status: 'refunded' });
    expect(await read(full.id)).toMatchObject({ status: 'refunded', refunded_amount: 10000 });
  });

  it('a refund Culqi refuses is recorded failed and frees its amount', async () => {
    const payment = await paid();
    // Refunded behind Qhatu's back in CulqiPanel: Culqi refuses the next one.
    double.charges.get(payment.provider_payment_id)!.amount_refunded = 10000;
    const res = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 1000 });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ status: 'failed', provider_refund_id: null, failure_reason: expect.stringContaining('supera el monto disponible') });
    expect(await read(payment.id)).toMatchObject({ status: 'paid', refunded_amount: 0 });
    expect(await outbox(t, 'payments.refund.failed', res.json().data.id)).toHaveLength(1);
  });

  it('409 over the refundable amount or for a failed payment', async () => {
    const payment = await paid();
    const over = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 10001 });
    expect(over.statusCode).toBe(409);
    expect(over.json().error.code).toBe('REFUND_EXCEEDS_AMOUNT');
    const failed = (await pay(admin, await createOrder(admin), 'tkn_test_declined')).json().data;
    expect((await admin('POST', `${PAYMENTS}/${failed.id}/refund`, { amount: 100 })).json().error.code).toBe('PAYMENT_NOT_REFUNDABLE');
  });
});
