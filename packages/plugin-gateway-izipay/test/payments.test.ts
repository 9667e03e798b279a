import type { TestApp, TestTenant } from '@qhatu/core/testing';
import {
  caller, createOrder, expectCredentialsSealed, expectListedNotConfigured, expectMissingCredentials, expectNotConfigured, expectUnknownCredential,
  GATEWAYS, gatewayStores, MISSING, outbox, PAYMENTS, SESSIONS, withUnreachableGateway, type Caller, type GatewayStores,
} from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import izipay from '../src/index.js';
import { basicAuth } from '../src/lyra.js';
import { IzipayDouble, type Account } from '../src/testing.js';
import { BASE_URL_VARIABLE, checkout, configure, newAccount, openForm, pay, sign } from './helpers.js';

let w: GatewayStores<IzipayDouble>;
let double: IzipayDouble;
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let admin: Caller;
let store: Caller;
let account: Account;
beforeAll(async () => {
  account = newAccount();
  w = await gatewayStores(izipay, BASE_URL_VARIABLE, await new IzipayDouble([account]).start());
  ({ double, t, shop, other, admin, store } = w);
});
afterAll(() => w?.close());

const SECRETS = (a: Account) => [a.password, a.hmac_key];
const sent = (webService: string) => double.requests.filter((r) => r.path === `/api-payment/V4/${webService}`);

describe('gateway credentials', () => {
  it('lists the installed gateway with its fields, not configured yet', async () => {
    const listed = await expectListedNotConfigured(store, 'izipay');
    expect(listed).toMatchObject({
      name: 'Izipay', currencies: ['PEN'],
      payment_fields: [
        { name: 'kr_answer', type: 'string', required: true, description: expect.any(String) },
        { name: 'transaction_id', type: 'string', required: true, description: expect.any(String) },
        { name: 'kr_hash', type: 'string', required: false, description: expect.any(String) },
      ],
    });
    expect(listed.credential_fields.map((f: { name: string; secret: boolean; required: boolean }) => [f.name, f.secret, f.required])).toEqual([
      ['shop_id', false, true], ['password', true, true], ['hmac_key', true, true], ['public_key', false, true],
    ]);
  });

  it('a session or a payment before configuration is 422 GATEWAY_NOT_CONFIGURED and calls nothing', async () => {
    const order = await createOrder(admin);
    const session = await store('POST', SESSIONS, { order_id: order.id, gateway: 'izipay' });
    expectNotConfigured([session, await pay(store, order, { uuid: 'a'.repeat(32), krAnswer: '{"transactions":[]}' })], double);
  });

  it('PUT stores the credentials sealed; no answer ever carries the password or the HMAC key', async () => {
    await expectCredentialsSealed(t, shop, 'izipay', account, ['shop_id', 'public_key']);
  });

  it('refuses unknown credentials and missing required ones', async () => {
    await expectUnknownCredential(admin, 'izipay', 'secret_key');
    await expectMissingCredentials(caller(t, other), 'izipay', { shop_id: '12345678', password: 'testpassword_x' }, ['hmac_key', 'public_key']);
    expect((await store('PUT', `${GATEWAYS}/izipay`, { enabled: false })).statusCode).toBe(403);
  });
});

describe('POST /payments/sessions on Izipay: the form token', () => {
  it('creates the payment on Izipay: Basic auth, céntimos, the order id, the IPN address; the client gets the form token and the public key', async () => {
    const order = await createOrder(admin, 2550, 2);
    const res = await store('POST', SESSIONS, { order_id: order.id, gateway: 'izipay' });
    expect(res.statusCode).toBe(201);
    const session = res.json().data;
    const [call] = sent('Charge/CreatePayment').slice(-1);
    expect(call).toMatchObject({ method: 'POST', authorization: basicAuth(account.shop_id, account.password), contentType: 'application/json' });
    expect(call.authorization).toBe(`Basic ${Buffer.from(`${account.shop_id}:${account.password}`).toString('base64')}`);
    expect(call.json).toEqual({
      amount: 5100, currency: 'PEN', orderId: order.id, customer: { email: 'rosa@example.com' },
      ipnTargetUrl: expect.stringMatching(new RegExp(`/webhooks/izipay/${shop.id}\\?session=${session.id}$`)),
      metadata: { qhatu_session_id: session.id },
    });
    const form = double.forms.get(session.reference)!;
    expect(form).toMatchObject({ orderId: order.id, amount: 5100, currency: 'PEN' });
    expect(session).toMatchObject({
      gateway: 'izipay', order_id: order.id, amount: 5100, currency: 'PEN', reference: form.formToken, expires_at: null,
      client: { form_token: form.formToken, public_key: account.public_key, order_id: order.id },
    });
    for (const secret of SECRETS(account)) expect(res.body).not.toContain(secret);
  });

  it("Izipay's refusal is 422 GATEWAY_REFUSED with its reason; an unreachable Izipay is 502", async () => {
    const wrong = await t.createTenant({ currency: 'PEN' });
    const api = caller(t, wrong);
    await configure(api, newAccount());
    const refused = await api('POST', SESSIONS, { order_id: (await createOrder(api)).id, gateway: 'izipay' });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error).toMatchObject({ code: 'GATEWAY_REFUSED', message: 'invalid login or private key (INT_905)' });

    await withUnreachableGateway(izipay, BASE_URL_VARIABLE, (downApi) => configure(downApi, account), async (downApi) => {
      const res = await downApi('POST', SESSIONS, { order_id: (await createOrder(downApi)).id, gateway: 'izipay' });
      expect(res.statusCode).toBe(502);
      expect(res.json().error.code).toBe('GATEWAY_UNAVAILABLE');
    });
  });

  it('a store in dollars cannot open an Izipay form', async () => {
    const usd = await t.createTenant({ currency: 'USD' });
    const api = caller(t, usd);
    await configure(api, account);
    const before = double.requests.length;
    const res = await api('POST', SESSIONS, { order_id: (await createOrder(api)).id, gateway: 'izipay' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe('Izipay does not take USD');
    expect(double.requests).toHaveLength(before);
  });
});

describe('POST /payments on Izipay: the transaction the form made, re-read', () => {
  it('an accepted card: 201 paid, the transaction re-read with Transaction/Get before it is believed', async () => {
    const order = await createOrder(admin, 2500, 2);
    const session = await openForm(store, order);
    const browser = double.pay(session.client.form_token, 'accepted');
    const before = double.requests.length;
    const res = await pay(store, order, browser);
    expect(res.statusCode).toBe(201);
    const payment = res.json().data;
    expect(payment).toMatchObject({
      order_id: order.id, gateway: 'izipay', amount: 5000, currency: 'PEN', status: 'paid', method: 'card:visa',
      provider_payment_id: browser.uuid, failure_reason: null, refunded_amount: 0, captured_at: expect.any(String),
    });
    expect(double.requests.slice(before)).toEqual([
      { method: 'POST', path: '/api-payment/V4/Transaction/Get', authorization: basicAuth(account.shop_id, account.password), contentType: 'application/json', json: { uuid: browser.uuid } },
    ]);
    expect((await outbox(t, 'payments.payment.captured', payment.id))[0].data).toMatchObject({ id: payment.id, amount: 5000, currency: 'PEN', status: 'paid', method: 'card:visa' });
    expect((await store('GET', `${PAYMENTS}/${payment.id}`)).json().data).toEqual(payment);
  });

  it('kr_hash is optional; when given it must be the HMAC of kr_answer with the store’s HMAC key, or nothing is asked of Izipay', async () => {
    const order = await createOrder(admin);
    const browser = double.pay((await openForm(store, order)).client.form_token);
    const before = double.requests.length;
    const forged = await pay(store, order, { ...browser, krHash: sign(account.password, browser.krAnswer) });
    expect(forged.json().data).toMatchObject({ status: 'failed', provider_payment_id: null, failure_reason: "kr_hash does not match kr_answer: it is not signed with this store's HMAC-SHA-256 key" });
    expect(double.requests).toHaveLength(before);
    const tampered = await pay(store, order, { ...browser, krAnswer: browser.krAnswer.replace(/\\\//g, '/') });
    expect(tampered.json().data).toMatchObject({ status: 'failed', failure_reason: expect.stringContaining('kr_hash does not match') });
    const elsewhere = await pay(store, order, { uuid: 'b'.repeat(32), krAnswer: browser.krAnswer });
    expect(elsewhere.json().data.failure_reason).toBe(`kr_answer does not name transaction ${'b'.repeat(32)}`);
    const signed = await pay(store, order, browser);
    expect(signed.json().data).toMatchObject({ status: 'paid', provider_payment_id: browser.uuid });
  });

  it('a refused card: 201 failed with Izipay’s status, message and codes', async () => {
    const { payment } = await checkout(store, double, await createOrder(admin), 'refused');
    expect(payment).toMatchObject({ status: 'failed', provider_payment_id: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect((payment as unknown as { failure_reason: string }).failure_reason).toBe('Izipay REFUSED the transaction: payment refused (ACQ_001/51)');
    expect(await outbox(t, 'payments.payment.failed', payment.id)).toHaveLength(1);
  });

  it('a transaction waiting for authorisation stays processing; polling GET re-reads it from Izipay', async () => {
    const { payment, uuid } = await checkout(store, double, await createOrder(admin), 'review');
    expect(payment).toMatchObject({ status: 'processing', provider_payment_id: uuid });
    expect((await store('GET', `${PAYMENTS}/${payment.id}`)).json().data.status).toBe('processing');
    double.settle(uuid, 'accepted');
    expect((await store('GET', `${PAYMENTS}/${payment.id}`)).json().data).toMatchObject({ status: 'paid', captured_at: expect.any(String) });
    expect(sent('Transaction/Get').at(-1)!.json).toEqual({ uuid });
  });

  it('a transaction of another order, or for another amount, is failed with the reason, whatever the browser says', async () => {
    const mine = await createOrder(admin);
    const theirs = await createOrder(admin, 1000, 1);
    const browser = double.pay((await openForm(store, theirs)).client.form_token);
    const res = await pay(store, mine, browser);
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ status: 'failed', provider_payment_id: null, failure_reason: `Izipay transaction ${browser.uuid} pays order ${theirs.id}, not this payment's order ${mine.id}` });

    const order = await createOrder(admin, 2500, 2);
    const paid = double.pay((await openForm(store, order)).client.form_token);
    const cheaper = await pay(store, { ...order, total: 100 }, paid);
    expect(cheaper.json().data).toMatchObject({ status: 'failed', amount: 100, failure_reason: `Izipay transaction ${paid.uuid} is for 5000 PEN, this payment for 100 PEN (minor units)` });
    // The same transaction still pays its own order in full.
    expect((await pay(store, order, paid)).json().data).toMatchObject({ status: 'paid', amount: 5000 });
  });

  it('a transaction already paying a payment pays no second one: the order is paid, Izipay is not asked again', async () => {
    const order = await createOrder(admin);
    const browser = double.pay((await openForm(store, order)).client.form_token);
    expect((await pay(store, order, browser)).json().data.status).toBe('paid');
    const before = double.requests.length;
    const again = await pay(store, order, browser);
    expect(again.statusCode).toBe(422);
    expect(again.json().error).toMatchObject({ code: 'PAYMENT_EXCEEDS_BALANCE', details: [{ amount_due: 0 }] });
    expect(double.requests).toHaveLength(before);
    const rows = await t.app.orm.em.getConnection().execute(`select count(*)::int as count from payments_payment where order_id = ? and status = 'paid'`, [order.id]);
    expect(rows[0].count).toBe(1);
  });

  it('a transaction Izipay does not know, wrong credentials: failed with Izipay’s words', async () => {
    const order = await createOrder(admin);
    const browser = double.pay((await openForm(store, order)).client.form_token);
    const unknown = 'f'.repeat(32);
    const answer = browser.krAnswer.replace(browser.uuid, unknown);
    const missing = await pay(store, order, { uuid: unknown, krAnswer: answer });
    expect(missing.json().data).toMatchObject({ status: 'failed', failure_reason: 'transaction not found (PSP_010)' });

    const wrong = await t.createTenant({ currency: 'PEN' });
    const api = caller(t, wrong);
    await configure(api, { ...account, password: 'testpassword_guessed' });
    const key = await pay(api, await createOrder(api), browser);
    expect(key.json().data).toMatchObject({ status: 'failed', failure_reason: 'invalid login or private key (INT_905)' });
  });

  it('validates kr_answer, transaction_id and the currency with precise paths; a kr_answer that is not JSON fails before Izipay is asked', async () => {
    const order = await createOrder(admin);
    const base = { order_id: order.id, gateway: 'izipay', amount: order.total, currency: 'PEN' };
    const missing = await store('POST', PAYMENTS, base);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(missing.json().error.details).toEqual([
      { path: 'body.kr_answer', message: 'is required by Izipay' },
      { path: 'body.transaction_id', message: 'is required by Izipay' },
    ]);
    const typed = await store('POST', PAYMENTS, { ...base, kr_answer: { transactions: [] }, transaction_id: 'a'.repeat(32) });
    expect(typed.statusCode).toBe(400);
    expect(typed.json().error.details.map((d: { path: string }) => d.path)).toEqual(['body.kr_answer']);
    const noId = await store('POST', PAYMENTS, { ...base, kr_answer: '{}', transaction_id: '' });
    expect(noId.json().error.details.map((d: { path: string }) => d.path)).toEqual(['body.transaction_id']);
    const currency = await store('POST', PAYMENTS, { ...base, currency: 'USD', kr_answer: '{}', transaction_id: 'a'.repeat(32) });
    expect(currency.statusCode).toBe(400);
    expect(currency.json().error.details).toEqual([{ path: 'body.currency', message: 'Izipay does not take USD' }]);
    expect((await store('POST', PAYMENTS, { ...base, order_id: MISSING, kr_answer: '{}', transaction_id: 'a' })).statusCode).toBe(404);

    const before = double.requests.length;
    const broken = await store('POST', PAYMENTS, { ...base, kr_answer: '{"transactions":[{"uuid":', transaction_id: 'a'.repeat(32) });
    expect(broken.statusCode).toBe(201);
    expect(broken.json().data).toMatchObject({ status: 'failed', provider_payment_id: null, failure_reason: expect.stringMatching(/^kr_answer is not JSON: /) });
    const notPayment = await store('POST', PAYMENTS, { ...base, kr_answer: '{"orderStatus":"PAID"}', transaction_id: 'a'.repeat(32) });
    expect(notPayment.json().data.failure_reason).toBe('kr_answer is not an Izipay payment answer: it has no transactions with a uuid');
    expect(double.requests).toHaveLength(before);
  });

  it('a provider that cannot be reached: 201 pending, since the form may have paid; every read asks again', async () => {
    const order = await createOrder(admin);
    const browser = double.pay((await openForm(store, order)).client.form_token);
    await withUnreachableGateway(izipay, BASE_URL_VARIABLE, (api) => configure(api, account), async (api) => {
      const res = await pay(api, await createOrder(api), browser);
      expect(res.statusCode).toBe(201);
      expect(res.json().data).toMatchObject({ status: 'pending', provider_payment_id: null, failure_reason: null });
      expect((await api('GET', `${PAYMENTS}/${res.json().data.id}`)).json().data.status).toBe('pending');
    });
  });

  it('a read-back whose answer is lost: 201 pending, and the next read finds the transaction the form made', async () => {
    const order = await createOrder(admin);
    const browser = double.pay((await openForm(store, order)).client.form_token);
    double.loseAnswers(1, (req) => req.url?.endsWith('/Transaction/Get') ?? false);
    const payment = (await pay(store, order, browser)).json().data;
    expect(payment).toMatchObject({ status: 'pending', provider_payment_id: null, failure_reason: null });
    expect((await store('GET', `${PAYMENTS}/${payment.id}`)).json().data).toMatchObject({ status: 'paid', provider_payment_id: browser.uuid });
  });

  it('another store cannot read the payment; storefront keys cannot refund', async () => {
    const { payment } = await checkout(store, double, await createOrder(admin));
    expect((await caller(t, other)('GET', `${PAYMENTS}/${payment.id}`)).statusCode).toBe(404);
    expect((await caller(t, other)('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 })).statusCode).toBe(404);
    expect((await store('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 })).statusCode).toBe(403);
  });
});

describe('POST /payments/:id/refund on Izipay: cancel or refund', () => {
  async function paid(remitted: boolean) {
    const { payment, uuid } = await checkout(admin, double, await createOrder(admin, 2500, 4));
    expect(payment.status).toBe('paid');
    if (remitted) double.remit(uuid);
    return { ...payment, uuid };
  }
  const read = async (id: string) => (await admin('GET', `${PAYMENTS}/${id}`)).json().data;
  const lastRefundCall = () => sent('Transaction/CancelOrRefund').at(-1)!;

  it('the whole amount before remittance: AUTO cancels the transaction, the payment is refunded', async () => {
    const payment = await paid(false);
    const res = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0, reason: 'requested_by_customer' });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ amount: 10000, status: 'refunded', provider_refund_id: payment.uuid });
    expect(lastRefundCall()).toMatchObject({ authorization: basicAuth(account.shop_id, account.password), contentType: 'application/json' });
    expect(lastRefundCall().json).toEqual({ uuid: payment.uuid, amount: 10000, currency: 'PEN', resolutionMode: 'AUTO', comment: `Qhatu refund ${res.json().data.id}` });
    expect(double.transactions.get(payment.uuid)).toMatchObject({ status: 'UNPAID', detailedStatus: 'CANCELLED' });
    expect(await read(payment.id)).toMatchObject({ status: 'refunded', refunded_amount: 10000 });
  });

  it('a part before remittance cannot be a cancellation: REFUND_ONLY, refused by Izipay, recorded failed and the amount freed', async () => {
    const payment = await paid(false);
    const res = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 3000 });
    expect(res.statusCode).toBe(201);
    expect(lastRefundCall().json).toMatchObject({ amount: 3000, resolutionMode: 'REFUND_ONLY' });
    expect(res.json().data).toMatchObject({ status: 'failed', provider_refund_id: null, failure_reason: 'The refund operation is not yet available, please try to cancel (PSP_076)' });
    expect(await read(payment.id)).toMatchObject({ status: 'paid', refunded_amount: 0 });
    expect(await outbox(t, 'payments.refund.failed', res.json().data.id)).toHaveLength(1);
    expect(double.transactions.get(payment.uuid)).toMatchObject({ status: 'PAID', detailedStatus: 'AUTHORISED' });
  });

  it('after remittance: a part, then the rest with 0, each a refund transaction of its own', async () => {
    const payment = await paid(true);
    const first = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 3000 });
    expect(first.json().data).toMatchObject({ amount: 3000, status: 'refunded', provider_refund_id: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(lastRefundCall().json).toMatchObject({ uuid: payment.uuid, amount: 3000, currency: 'PEN', resolutionMode: 'REFUND_ONLY' });
    const credit = double.transactions.get(first.json().data.provider_refund_id)!;
    expect(credit).toMatchObject({ operationType: 'CREDIT', amount: 3000, transactionDetails: { parentTransactionUuid: payment.uuid } });
    expect(await read(payment.id)).toMatchObject({ status: 'partially_refunded', refunded_amount: 3000 });
    // The refund's transaction cannot pay anything.
    const asPayment = await pay(admin, { id: payment.order_id, total: 3000, currency: 'PEN' }, { uuid: credit.uuid, krAnswer: double.browserReturn(credit.uuid).krAnswer });
    expect(asPayment.json().data).toMatchObject({ status: 'failed', failure_reason: `Izipay transaction ${credit.uuid} is a CREDIT operation, not a payment` });

    const rest = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 });
    expect(rest.json().data).toMatchObject({ amount: 7000, status: 'refunded' });
    expect(lastRefundCall().json).toMatchObject({ amount: 7000, resolutionMode: 'REFUND_ONLY' });
    expect(await read(payment.id)).toMatchObject({ status: 'refunded', refunded_amount: 10000 });
    expect(double.transactions.get(payment.uuid)!.refunded).toBe(10000);
    expect(await outbox(t, 'payments.refund.refunded', payment.id)).toHaveLength(2);
    expect((await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 })).statusCode).toBe(409);
  });

  it('the whole amount after remittance: AUTO refunds it', async () => {
    const payment = await paid(true);
    const res = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 10000 });
    expect(res.json().data).toMatchObject({ amount: 10000, status: 'refunded', provider_refund_id: expect.not.stringMatching(payment.uuid) });
    expect(lastRefundCall().json).toMatchObject({ resolutionMode: 'AUTO' });
    expect(double.transactions.get(payment.uuid)).toMatchObject({ status: 'PAID', detailedStatus: 'CAPTURED', refunded: 10000 });
  });

  it('409 over the refundable amount or for a failed payment', async () => {
    const payment = await paid(true);
    const over = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 10001 });
    expect(over.statusCode).toBe(409);
    expect(over.json().error.code).toBe('REFUND_EXCEEDS_AMOUNT');
    const { payment: failed } = await checkout(admin, double, await createOrder(admin), 'refused');
    expect((await admin('POST', `${PAYMENTS}/${failed.id}/refund`, { amount: 100 })).json().error.code).toBe('PAYMENT_NOT_REFUNDABLE');
  });

  it('refunds fired at once never exceed the amount, in Qhatu or on Izipay', async () => {
    const payment = await paid(true);
    const answers = await Promise.all(Array.from({ length: 6 }, () => admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 3000 })));
    const accepted = answers.filter((r) => r.statusCode === 201);
    expect(accepted).toHaveLength(3);
    expect(answers.filter((r) => r.statusCode === 409).every((r) => r.json().error.code === 'REFUND_EXCEEDS_AMOUNT')).toBe(true);
    expect(accepted.every((r) => r.json().data.status === 'refunded')).toBe(true);
    const after = await read(payment.id);
    expect(after).toMatchObject({ status: 'partially_refunded', refunded_amount: 9000 });
    expect(after.refunds.reduce((sum: number, r: { amount: number; status: string }) => sum + (r.status === 'failed' ? 0 : r.amount), 0)).toBe(9000);
    expect(double.transactions.get(payment.uuid)!.refunded).toBe(9000);
  });

  it('a refund Izipay leaves running is processing; reading the payment re-reads it until refunded', async () => {
    const payment = await paid(true);
    double.holdRefunds = true;
    try {
      const res = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 2500 });
      expect(res.json().data).toMatchObject({ status: 'processing', provider_refund_id: expect.stringMatching(/^[0-9a-f]{32}$/) });
      const creditId = res.json().data.provider_refund_id;
      expect(await read(payment.id)).toMatchObject({ status: 'paid', refunded_amount: 0, refunds: [expect.objectContaining({ status: 'processing' })] });
      double.settleRefund(creditId);
      expect(await read(payment.id)).toMatchObject({ status: 'partially_refunded', refunded_amount: 2500, refunds: [expect.objectContaining({ status: 'refunded' })] });
      expect(sent('Transaction/Get').at(-1)!.json).toEqual({ uuid: creditId });
    } finally {
      double.holdRefunds = false;
    }
  });
});
