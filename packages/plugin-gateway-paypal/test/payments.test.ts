import type { TestApp, TestTenant } from '@qhatu/core/testing';
import {
  caller, createOrder, expectCredentialsSealed, expectListedNotConfigured, expectMissingCredentials, expectNotConfigured, expectUnknownCredential,
  GATEWAYS, outbox, PAYMENTS, withUnreachableGateway, type Caller,
} from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import paypal from '../src/index.js';
import { fromPayPalValue, PAYPAL_CURRENCIES, toPayPalValue } from '../src/money.js';
import type { PayPalAccount, PayPalDouble } from '../src/testing.js';
import { BASE_URL_VARIABLE, basic, configure, newAccount, pay, paypalStore, storeIn as ownStore, type PayPalStore } from './helpers.js';

let w: PayPalStore;
let double: PayPalDouble;
let t: TestApp;
let shop: TestTenant;
let admin: Caller;
let store: Caller;
let account: PayPalAccount;
let foreign: PayPalAccount;
beforeAll(async () => {
  w = await paypalStore();
  ({ double, t, shop, admin, store, account, foreign } = w);
});
afterAll(() => w?.close());

const storeIn = (currency: string, names?: Array<keyof PayPalAccount>) => ownStore(w, currency, names);
const sent = (since: number) => double.requests.slice(since);
const captures = (since: number) => sent(since).filter((r) => r.path.endsWith('/capture'));
const tokenRequests = (acc: PayPalAccount) => double.requests.filter((r) => r.path === '/v1/oauth2/token' && r.authorization === basic(acc));

describe('gateway credentials', () => {
  it('lists PayPal with its currencies and fields, not configured yet', async () => {
    const listed = await expectListedNotConfigured(store, 'paypal');
    expect(listed).toMatchObject({ name: 'PayPal', payment_fields: [{ name: 'paypal_order_id', type: 'string', required: true, description: expect.any(String) }] });
    expect(listed.currencies).toEqual([...PAYPAL_CURRENCIES]);
    expect(listed.currencies).toHaveLength(24);
    expect(listed.currencies).toEqual(expect.arrayContaining(['USD', 'EUR', 'JPY', 'HUF', 'TWD', 'GBP', 'MXN', 'BRL']));
    expect(listed.currencies).not.toContain('PEN');
    expect(listed.credential_fields.map((f: { name: string; secret: boolean; required: boolean }) => [f.name, f.secret, f.required])).toEqual([
      ['client_id', false, true], ['client_secret', true, true], ['webhook_id', true, false], ['merchant_id', false, false],
    ]);
  });

  it('a payment before configuration is 422 GATEWAY_NOT_CONFIGURED and calls nothing', async () => {
    expectNotConfigured([await pay(store, await createOrder(admin), 'ANYORDER')], double);
  });

  it('PUT stores the credentials sealed; client_id is public, the secret and the webhook id never come back', async () => {
    const credentials = { client_id: account.client_id, client_secret: account.client_secret, webhook_id: account.webhook_id };
    await expectCredentialsSealed(t, shop, 'paypal', credentials, ['client_id']);
  });

  it('client_id and client_secret are required, webhook_id is not; unknown or mistyped credentials are refused', async () => {
    const fresh = caller(t, await t.createTenant({ currency: 'USD' }));
    await expectMissingCredentials(fresh, 'paypal', { webhook_id: 'WH' }, ['client_id', 'client_secret']);
    await expectUnknownCredential(fresh, 'paypal', 'secret');
    expect((await fresh('PUT', `${GATEWAYS}/paypal`, { credentials: { client_id: 7, client_secret: 'x' } })).statusCode).toBe(400);
    const enough = await fresh('PUT', `${GATEWAYS}/paypal`, { credentials: { client_id: 'AZ-app', client_secret: 'EL-secret' } });
    expect(enough.statusCode).toBe(200);
    expect((await caller(t, shop, shop.storefrontToken)('PUT', `${GATEWAYS}/paypal`, { enabled: false })).statusCode).toBe(403);
  });
});

describe('OAuth client credentials', () => {
  it('one token for many calls: Basic client_id:secret, form grant_type, then Bearer on every call', async () => {
    const { api, acc } = await storeIn('USD');
    const before = double.requests.length;
    for (let i = 0; i < 3; i++) {
      const paypalOrder = double.approve(double.clientOrder('50.00', 'USD', { clientId: acc.client_id }).id);
      expect((await pay(api, await createOrder(api), paypalOrder.id)).json().data.status).toBe('paid');
    }
    const tokens = tokenRequests(acc);
    expect(tokens).toHaveLength(1);
    expect(tokens[0]).toMatchObject({ method: 'POST', contentType: 'application/x-www-form-urlencoded', raw: 'grant_type=client_credentials' });
    const calls = sent(before).filter((r) => r.path.startsWith('/v2/'));
    expect(calls).toHaveLength(6);
    expect(new Set(calls.map((r) => r.authorization)).size).toBe(1);
    expect(calls[0].authorization).toMatch(/^Bearer A21AA/);
  });

  it('an expired token is refused (401), dropped and fetched again once', async () => {
    const { api, acc } = await storeIn('USD');
    const first = double.approve(double.clientOrder('50.00', 'USD', { clientId: acc.client_id }).id);
    expect((await pay(api, await createOrder(api), first.id)).json().data.status).toBe('paid');
    double.expireTokens();
    const second = double.approve(double.clientOrder('50.00', 'USD', { clientId: acc.client_id }).id);
    const before = double.requests.length;
    expect((await pay(api, await createOrder(api), second.id)).json().data.status).toBe('paid');
    expect(sent(before).map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /v2/checkout/orders/${second.id}`, 'POST /v1/oauth2/token', `GET /v2/checkout/orders/${second.id}`, `POST /v2/checkout/orders/${second.id}/capture`,
    ]);
    expect(tokenRequests(acc)).toHaveLength(2);
  });

  it('a wrong secret: the payment is failed with PayPal’s invalid_client, and the secret is nowhere in it', async () => {
    const tenant = await t.createTenant({ currency: 'USD' });
    const api = caller(t, tenant);
    const wrong = { ...newAccount(), client_id: account.client_id };
    await configure(api, wrong);
    const res = await pay(api, await createOrder(api), double.approve(double.clientOrder('50.00', 'USD').id).id);
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ status: 'failed', provider_payment_id: null, failure_reason: 'invalid_client: Client Authentication failed' });
    expect(res.body).not.toContain(wrong.client_secret);
  });
});

describe('amounts', () => {
  it('minor units become PayPal’s value strings: two decimals, none for JPY, HUF and TWD', () => {
    expect(toPayPalValue(5000, 'USD')).toBe('50.00');
    expect(toPayPalValue(5, 'EUR')).toBe('0.05');
    expect(toPayPalValue(199_999, 'GBP')).toBe('1999.99');
    expect(toPayPalValue(1500, 'JPY')).toBe('1500');
    expect(toPayPalValue(150_000, 'HUF')).toBe('1500');
    expect(toPayPalValue(150_050, 'HUF')).toBeNull();
    expect(toPayPalValue(9900, 'TWD')).toBe('99');
    expect(toPayPalValue(9950, 'TWD')).toBeNull();
    expect(toPayPalValue(1.5, 'USD')).toBeNull();
    expect(fromPayPalValue('50.00', 'USD')).toBe(5000);
    expect(fromPayPalValue('50', 'USD')).toBe(5000);
    expect(fromPayPalValue('50.5', 'USD')).toBe(5050);
    expect(fromPayPalValue('50.123', 'USD')).toBeNull();
    expect(fromPayPalValue('1500', 'JPY')).toBe(1500);
    expect(fromPayPalValue('1500', 'HUF')).toBe(150_000);
    expect(fromPayPalValue('1500.50', 'HUF')).toBeNull();
    for (const bad of ['-1.00', '1e3', ' 1.00', '', '1,00', 50]) expect(fromPayPalValue(bad, 'USD')).toBeNull();
  });
});

describe('POST /payments on PayPal', () => {
  beforeAll(async () => {
    await configure(admin, account);
  });

  it('validates paypal_order_id and the currency with precise errors', async () => {
    const order = await createOrder(admin);
    const base = { order_id: order.id, gateway: 'paypal', amount: order.total, currency: 'USD' };
    const missing = await store('POST', PAYMENTS, base);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(missing.json().error.details).toEqual([{ path: 'body.paypal_order_id', message: 'is required by PayPal' }]);
    for (const bad of ['', 7, null]) {
      const res = await store('POST', PAYMENTS, { ...base, paypal_order_id: bad });
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
      expect(res.json().error.details[0].path).toBe('body.paypal_order_id');
    }
    const pen = await store('POST', PAYMENTS, { ...base, currency: 'PEN', paypal_order_id: 'X' });
    expect(pen.statusCode).toBe(400);
    expect(pen.json().error.details).toEqual([{ path: 'body.currency', message: 'PayPal does not take PEN' }]);
  });

  it('an order the JS SDK created and the buyer approved: read, checked, captured → 201 paid', async () => {
    const order = await createOrder(admin, 2500, 2);
    const paypalOrder = double.approve(double.clientOrder('50.00', 'USD').id);
    const before = double.requests.length;
    const res = await pay(store, order, paypalOrder.id);
    expect(res.statusCode).toBe(201);
    const payment = res.json().data;
    expect(payment).toMatchObject({
      order_id: order.id, gateway: 'paypal', amount: 5000, currency: 'USD', status: 'paid', method: 'paypal',
      provider_payment_id: paypalOrder.id, failure_reason: null, next_action: null, captured_at: expect.any(String),
    });
    const calls = sent(before).filter((r) => r.path.startsWith('/v2/'));
    expect(calls.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /v2/checkout/orders/${paypalOrder.id}`, `POST /v2/checkout/orders/${paypalOrder.id}/capture`]);
    expect(calls[1]).toMatchObject({ contentType: 'application/json', requestId: `qhatu-payment-${payment.id}`, prefer: 'return=representation', json: {} });
    expect(calls.every((r) => /^Bearer A21AA/.test(r.authorization ?? ''))).toBe(true);
    expect(double.orders.get(paypalOrder.id)!.order).toMatchObject({ status: 'COMPLETED', purchase_units: [{ payments: { captures: [{ status: 'COMPLETED', amount: { value: '50.00' } }] } }] });
    expect((await outbox(t, 'payments.payment.captured', payment.id))[0].data).toMatchObject({ id: payment.id, amount: 5000, currency: 'USD', status: 'paid' });
    expect(await outbox(t, 'payments.payment.confirmed', payment.id)).toHaveLength(1);
    expect((await store('GET', `${PAYMENTS}/${payment.id}`)).json().data).toEqual(payment);
  });

  it('takes EUR and JPY, each order read in its own value format', async () => {
    const eur = await storeIn('EUR');
    const eurOrder = double.approve(double.clientOrder('19.99', 'EUR', { clientId: eur.acc.client_id }).id);
    expect((await pay(eur.api, await createOrder(eur.api, 1999, 1), eurOrder.id)).json().data).toMatchObject({ status: 'paid', amount: 1999, currency: 'EUR' });
    const jpy = await storeIn('JPY');
    const jpyOrder = double.approve(double.clientOrder('1500', 'JPY', { clientId: jpy.acc.client_id }).id);
    expect((await pay(jpy.api, await createOrder(jpy.api, 750, 2), jpyOrder.id)).json().data).toMatchObject({ status: 'paid', amount: 1500, currency: 'JPY' });
  });

  it('an order of another amount or currency is failed and never captured; it can still pay the right payment', async () => {
    const order = await createOrder(admin, 2500, 2);
    const paypalOrder = double.approve(double.clientOrder('50.00', 'USD').id);
    const before = double.requests.length;
    const short = await pay(store, order, paypalOrder.id, { amount: 4000 });
    expect(short.statusCode).toBe(201);
    expect(short.json().data).toMatchObject({ status: 'failed', provider_payment_id: null, failure_reason: `PayPal order ${paypalOrder.id} is for 50.00 USD, the payment for 40.00 USD` });
    const euros = double.approve(double.clientOrder('50.00', 'EUR').id);
    expect((await pay(store, order, euros.id)).json().data.failure_reason).toBe(`PayPal order ${euros.id} is in EUR, the payment in USD`);
    const authorize = double.approve(double.clientOrder('50.00', 'USD', { intent: 'AUTHORIZE' }).id);
    expect((await pay(store, order, authorize.id)).json().data.failure_reason).toBe(`PayPal order ${authorize.id} has intent AUTHORIZE; only CAPTURE orders are taken`);
    expect(captures(before)).toHaveLength(0);
    expect(double.orders.get(paypalOrder.id)!.order.status).toBe('APPROVED');
    expect((await pay(store, order, paypalOrder.id)).json().data).toMatchObject({ status: 'paid', provider_payment_id: paypalOrder.id });
  });

  it('with merchant_id set, an order paying another PayPal account is failed and never captured', async () => {
    const { api, acc } = await storeIn('USD', ['client_id', 'client_secret', 'merchant_id']);
    const elsewhere = double.approve(double.clientOrder('50.00', 'USD', { clientId: acc.client_id, payee: 'ATTACKER12345' }).id);
    const before = double.requests.length;
    const res = await pay(api, await createOrder(api), elsewhere.id);
    expect(res.json().data).toMatchObject({ status: 'failed', failure_reason: `PayPal order ${elsewhere.id} pays merchant ATTACKER12345, not this store's PayPal account` });
    expect(captures(before)).toHaveLength(0);
    const own = double.approve(double.clientOrder('50.00', 'USD', { clientId: acc.client_id }).id);
    expect((await pay(api, await createOrder(api), own.id)).json().data.status).toBe('paid');
  });

  it('an order the buyer has not approved yet, without a session, is failed and not captured', async () => {
    const created = double.clientOrder('50.00', 'USD');
    const before = double.requests.length;
    const res = await pay(store, await createOrder(admin), created.id);
    expect(res.json().data).toMatchObject({ status: 'failed', provider_payment_id: null, failure_reason: expect.stringContaining(`has not approved PayPal order ${created.id} yet`) });
    expect(captures(before)).toHaveLength(0);
  });

  it('a declined funding source is failed with PayPal’s issue and description', async () => {
    const declined = double.decline(double.clientOrder('50.00', 'USD').id);
    const res = await pay(store, await createOrder(admin), declined.id);
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ status: 'failed', provider_payment_id: null, captured_at: null });
    expect(res.json().data.failure_reason).toBe("UNPROCESSABLE_ENTITY: INSTRUMENT_DECLINED — The instrument presented was either declined by the processor or bank, or it can't be used for this payment.");
    expect(await outbox(t, 'payments.payment.failed', res.json().data.id)).toHaveLength(1);
    const risky = double.approve(double.clientOrder('50.00', 'USD').id, 'DECLINED');
    const capture = await pay(store, await createOrder(admin), risky.id);
    const captureId = double.orders.get(risky.id)!.order.purchase_units[0].payments!.captures[0].id;
    expect(capture.json().data.failure_reason).toBe(`PayPal declined capture ${captureId} of order ${risky.id}: DECLINED_BY_RISK_FRAUD_FILTERS`);
  });

  it('an unknown order, and another store’s order, are RESOURCE_NOT_FOUND', async () => {
    const message = 'RESOURCE_NOT_FOUND: INVALID_RESOURCE_ID — Specified resource ID does not exist. Please check the resource ID and try again.';
    expect((await pay(store, await createOrder(admin), '0VF52814937998046')).json().data).toMatchObject({ status: 'failed', failure_reason: message });
    const theirs = double.approve(double.clientOrder('50.00', 'USD', { clientId: foreign.client_id }).id);
    expect((await pay(store, await createOrder(admin), theirs.id)).json().data).toMatchObject({ status: 'failed', failure_reason: message });
    expect(double.orders.get(theirs.id)!.order.status).toBe('APPROVED');
  });

  it('an order the browser already captured is paid from its capture, without capturing again', async () => {
    const paypalOrder = double.approve(double.clientOrder('50.00', 'USD').id);
    double.captureFromBrowser(paypalOrder.id);
    const before = double.requests.length;
    expect((await pay(store, await createOrder(admin), paypalOrder.id)).json().data).toMatchObject({ status: 'paid', provider_payment_id: paypalOrder.id });
    expect(captures(before)).toHaveLength(0);
  });

  it('a PayPal order pays one payment: using it again for another order is failed and pays nothing', async () => {
    const paypalOrder = double.approve(double.clientOrder('50.00', 'USD').id);
    const first = await createOrder(admin);
    expect((await pay(store, first, paypalOrder.id)).json().data.status).toBe('paid');
    const second = await createOrder(admin);
    const again = await pay(store, second, paypalOrder.id);
    expect(again.statusCode).toBe(201);
    expect(again.json().data).toMatchObject({ status: 'failed', provider_payment_id: null, failure_reason: expect.stringContaining(`payment ${paypalOrder.id} already pays another payment`) });
    const rows = await t.app.orm.em.getConnection().execute(`select order_id, status from payments_payment where provider_payment_id = ?`, [paypalOrder.id]);
    expect(rows).toEqual([{ order_id: first.id, status: 'paid' }]);
    expect((await admin('GET', `/api/v1/orders/${second.id}`)).json().data.status).toBe('pending');
  });

  it('a pending capture is processing; polling GET re-reads the order until PayPal completes it', async () => {
    const paypalOrder = double.approve(double.clientOrder('50.00', 'USD').id, 'PENDING');
    const payment = (await pay(store, await createOrder(admin), paypalOrder.id)).json().data;
    expect(payment).toMatchObject({ status: 'processing', provider_payment_id: paypalOrder.id, captured_at: null });
    expect((await store('GET', `${PAYMENTS}/${payment.id}`)).json().data.status).toBe('processing');
    double.settleCapture(paypalOrder.id, 'COMPLETED');
    const before = double.requests.length;
    expect((await store('GET', `${PAYMENTS}/${payment.id}`)).json().data).toMatchObject({ status: 'paid', captured_at: expect.any(String) });
    expect(sent(before).map((r) => `${r.method} ${r.path}`)).toEqual([`GET /v2/checkout/orders/${paypalOrder.id}`]);
  });

  it('a pending capture PayPal then declines moves processing → failed', async () => {
    const paypalOrder = double.approve(double.clientOrder('50.00', 'USD').id, 'PENDING');
    const payment = (await pay(store, await createOrder(admin), paypalOrder.id)).json().data;
    double.settleCapture(paypalOrder.id, 'DECLINED');
    expect((await store('GET', `${PAYMENTS}/${payment.id}`)).json().data).toMatchObject({ status: 'failed', failure_reason: expect.stringMatching(/^PayPal declined capture /) });
  });

  it('a provider that cannot be reached: 201 pending, since it may have charged; every read asks it again', async () => {
    await withUnreachableGateway(paypal, BASE_URL_VARIABLE, (api) => configure(api, account), async (api) => {
      const res = await pay(api, await createOrder(api), 'ANYORDER');
      expect(res.statusCode).toBe(201);
      const payment = res.json().data;
      expect(payment).toMatchObject({ status: 'pending', provider_payment_id: null, failure_reason: null });
      expect((await api('GET', `${PAYMENTS}/${payment.id}`)).json().data).toMatchObject({ status: 'pending', failure_reason: null });
    }, { currency: 'USD' });
  });
});
