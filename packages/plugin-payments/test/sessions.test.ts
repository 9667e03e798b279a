import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import catalog from '@qhatu/plugin-catalog';
import customers from '@qhatu/plugin-customers';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import orders from '@qhatu/plugin-orders';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import payments from '../src/index.js';
import { caller, createOrder, ok, outbox, until, type Caller } from '../src/testing.js';
import { AcmeDouble, acmePlugin } from './fixtures/acme.js';
import { AcmeFormDouble, acmeFormPlugin } from './fixtures/acme-form.js';

const BASE = [media, catalog, customers, inventory, orders, payments];
const SESSIONS = '/api/v1/payments/sessions';
const PAYMENTS = '/api/v1/payments';
const PUBLIC_URL = 'https://shop-api.example.com';

let form: AcmeFormDouble;
let acme: AcmeDouble;
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let admin: Caller;
let store: Caller;
beforeAll(async () => {
  form = await new AcmeFormDouble('form_key').start();
  acme = await new AcmeDouble('acme_key').start();
  t = await createTestApp({
    plugins: [...BASE, acmePlugin, acmeFormPlugin],
    env: { QHATU_GATEWAY_ACME_FORM_BASE_URL: form.url, QHATU_GATEWAY_ACME_BASE_URL: acme.url, QHATU_PUBLIC_URL: PUBLIC_URL },
  });
  shop = await t.createTenant({ currency: 'PEN' });
  other = await t.createTenant({ currency: 'PEN' });
  admin = caller(t, shop);
  store = caller(t, shop, shop.storefrontToken);
  for (const tenant of [shop, other]) {
    await ok(await caller(t, tenant)('PUT', '/api/v1/payments/gateways/acme-form', { credentials: { api_key: 'form_key' } }), 200);
    await ok(await caller(t, tenant)('PUT', '/api/v1/payments/gateways/acme', { credentials: { api_key: 'acme_key', signing_key: 'k' } }), 200);
  }
});
afterAll(async () => {
  await t?.close();
  await form?.close();
  await acme?.close();
});

const open = async (api: Caller, orderId: string, extra: Record<string, unknown> = {}) =>
  ok(await api('POST', SESSIONS, { order_id: orderId, gateway: 'acme-form', ...extra }), 201);
const pay = (api: Caller, order: { id: string; total: number }, fields: Record<string, unknown>) =>
  api('POST', PAYMENTS, { order_id: order.id, gateway: 'acme-form', amount: order.total, currency: 'PEN', ...fields });
/** The provider's checkout form posting back to the session's action address, as a browser does. */
const post = (action: string, body: string) => {
  const url = new URL(action);
  return t.request({ method: 'POST', url: `${url.pathname}${url.search}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: body });
};

describe('payment sessions', () => {
  it('are listed per gateway, and opened for the order total on the provider', async () => {
    const gateways = (await store('GET', '/api/v1/payments/gateways')).json().data;
    expect(gateways.find((g: { id: string }) => g.id === 'acme-form').session).toEqual({ field: 'session_key', required: true });
    expect(gateways.find((g: { id: string }) => g.id === 'acme').session).toBeNull();

    const order = await createOrder(admin, 2500, 2);
    const session = await open(store, order.id, { client_ip: '190.2.3.4', return_url: 'https://shop.example.com/thanks?x=1' });
    expect(session).toMatchObject({ gateway: 'acme-form', order_id: order.id, amount: 5000, currency: 'PEN', payment_id: null, return_url: 'https://shop.example.com/thanks?x=1' });
    expect(session.reference).toMatch(/^sk_/);
    expect(session.client).toMatchObject({ session_key: session.reference, action: `${PUBLIC_URL}/webhooks/acme-form/${shop.id}?session=${session.id}` });
    expect(form.sessions.get(session.reference)).toMatchObject({ amount: 5000 });
    expect(new Date(session.expires_at).getTime()).toBeGreaterThan(Date.now());
    expect(await ok(await store('GET', `${SESSIONS}/${session.id}`), 200)).toEqual(session);
  });

  it('are numbered from one sequence: sessions opened at once never share a purchase number', async () => {
    const orders = await Promise.all([1, 2, 3].map(() => createOrder(admin)));
    const sessions = await Promise.all([...orders, ...orders].map((order) => open(store, order.id)));
    const numbers = sessions.map((session) => session.client.purchase_number as string);
    expect(new Set(numbers).size).toBe(6);
    for (const number of numbers) {
      expect(number).toMatch(/^\d{7,}$/);
      expect(form.sessions.get(sessions[numbers.indexOf(number)].reference)).toMatchObject({ purchase: number });
    }
  });

  it('refuse what cannot be opened, each with a precise error', async () => {
    const order = await createOrder(admin);
    const unsupported = await store('POST', SESSIONS, { order_id: order.id, gateway: 'acme' });
    expect(unsupported.statusCode).toBe(422);
    expect(unsupported.json().error.code).toBe('GATEWAY_SESSION_UNSUPPORTED');
    const unknown = await store('POST', SESSIONS, { order_id: order.id, gateway: 'nope' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.details[0].path).toBe('body.gateway');
    const noOrder = await store('POST', SESSIONS, { order_id: '00000000-0000-4000-8000-000000000009', gateway: 'acme-form' });
    expect(noOrder.statusCode).toBe(404);
    expect(noOrder.json().error.code).toBe('ORDER_NOT_FOUND');
    const badUrl = await store('POST', SESSIONS, { order_id: order.id, gateway: 'acme-form', return_url: 'javascript:alert(1)' });
    expect(badUrl.statusCode).toBe(400);
    expect(badUrl.json().error.details[0].path).toBe('body.return_url');
    // Another store's order is not found, and another store's session is not there.
    const foreign = await caller(t, other, other.storefrontToken)('POST', SESSIONS, { order_id: order.id, gateway: 'acme-form' });
    expect(foreign.statusCode).toBe(404);
    const mine = await open(store, order.id);
    expect((await caller(t, other)('GET', `${SESSIONS}/${mine.id}`)).statusCode).toBe(404);
    // A free order has nothing to pay (it is paid as it is placed).
    const free = await createOrder(admin, 0, 1);
    const nothing = await store('POST', SESSIONS, { order_id: free.id, gateway: 'acme-form' });
    expect(nothing.statusCode).toBe(409);
    expect(nothing.json().error).toMatchObject({ code: 'ORDER_NOT_PAYABLE', message: expect.stringMatching(/^The order (totals nothing|is paid): there is nothing to pay$/) });
    // A cancelled order has nothing left to pay.
    await ok(await admin('POST', `/api/v1/orders/${order.id}/cancel`, {}), 200);
    const cancelled = await store('POST', SESSIONS, { order_id: order.id, gateway: 'acme-form' });
    expect(cancelled.statusCode).toBe(409);
    expect(cancelled.json().error.code).toBe('ORDER_NOT_PAYABLE');
  });

  it('pay once: the payment must name a session of this store, for the same order and amount', async () => {
    const order = await createOrder(admin);
    const session = await open(store, order.id);
    const token = form.pay(session.reference);

    const missing = await pay(store, order, { form_token: token });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.details).toEqual([{ path: 'body.session_key', message: 'is required by Acme Form' }]);
    const unknown = await pay(store, order, { session_key: 'sk_invented', form_token: token });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().error).toMatchObject({ code: 'PAYMENT_SESSION_INVALID', details: [{ path: 'body.session_key', message: 'unknown session' }] });
    const elsewhere = await createOrder(admin);
    const wrongOrder = await pay(store, elsewhere, { session_key: session.reference, form_token: token });
    expect(wrongOrder.statusCode).toBe(422);
    expect(wrongOrder.json().error.message).toMatch(/another order/);
    const wrongAmount = await store('POST', PAYMENTS, { order_id: order.id, gateway: 'acme-form', amount: 1, currency: 'PEN', session_key: session.reference, form_token: token });
    expect(wrongAmount.statusCode).toBe(422);
    expect(wrongAmount.json().error.message).toMatch(/opened for 5000 PEN, not 1 PEN/);
    // Another store cannot pay with this store's session.
    const foreignOrder = await createOrder(caller(t, other));
    const foreign = await pay(caller(t, other, other.storefrontToken), foreignOrder, { session_key: session.reference, form_token: token });
    expect(foreign.statusCode).toBe(422);
    expect(form.authorizations).toHaveLength(0);

    // Three at once: one pays, the others find the session used.
    const tries = await Promise.all([1, 2, 3].map(() => pay(store, order, { session_key: session.reference, form_token: token })));
    expect(tries.map((r) => r.statusCode).sort()).toEqual([201, 409, 409]);
    const paid = tries.find((r) => r.statusCode === 201)!.json().data;
    expect(paid).toMatchObject({ status: 'paid', amount: 5000 });
    expect(tries.find((r) => r.statusCode === 409)!.json().error.code).toBe('PAYMENT_SESSION_USED');
    expect(form.authorizations).toHaveLength(1);
    expect(form.authorizations[0]).toMatchObject({ token, amount: 5000, purchase: session.client.purchase_number });
    expect((await ok(await store('GET', `${SESSIONS}/${session.id}`), 200)).payment_id).toBe(paid.id);
  });

  it('expire when the provider says so', async () => {
    const order = await createOrder(admin);
    form.expiresIn = -1;
    const session = await open(store, order.id).finally(() => {
      form.expiresIn = 900;
    });
    const res = await pay(store, order, { session_key: session.reference, form_token: form.pay(session.reference) });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.message).toMatch(/expired/);
  });
});

describe("a provider form's post back (the redirect callback)", () => {
  it('charges on the provider, then sends the browser on to the return_url; a replay changes nothing', async () => {
    const order = await createOrder(admin);
    const session = await open(store, order.id, { return_url: 'https://shop.example.com/thanks?ref=7' });
    const token = form.pay(session.reference);
    const before = form.authorizations.length;

    const res = await post(session.client.action, `formToken=${token}&channel=web`);
    expect(res.statusCode).toBe(303);
    const to = new URL(res.headers.location as string);
    expect(`${to.origin}${to.pathname}`).toBe('https://shop.example.com/thanks');
    expect(to.searchParams.get('ref')).toBe('7');
    expect(to.searchParams.get('status')).toBe('paid');
    const paymentId = to.searchParams.get('payment_id')!;
    expect(await ok(await store('GET', `${PAYMENTS}/${paymentId}`), 200)).toMatchObject({ order_id: order.id, amount: 5000, status: 'paid', gateway: 'acme-form' });
    expect((await outbox(t, 'payments.payment.confirmed', paymentId))).toHaveLength(1);

    const replay = await post(session.client.action, `formToken=${token}&channel=web`);
    expect(replay.statusCode).toBe(303);
    expect(replay.headers.location).toBe(res.headers.location);
    expect(form.authorizations.length).toBe(before + 1);
    expect((await outbox(t, 'payments.payment.confirmed', paymentId))).toHaveLength(1);
  });

  it('trusts nothing in the post: an invented token ends in a failed payment, never paid', async () => {
    const order = await createOrder(admin);
    const session = await open(store, order.id);
    const res = await post(session.client.action, 'formToken=ft_invented');
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ received: true, outcome: 'processed', status: 'failed' });
    const payment = await ok(await store('GET', `${PAYMENTS}/${res.json().data.payment_id}`), 200);
    expect(payment).toMatchObject({ status: 'failed', failure_reason: 'invalid token (400)' });
    expect(await outbox(t, 'payments.payment.confirmed', payment.id)).toHaveLength(0);
  });

  it('a declined card fails the payment and says so to the return_url', async () => {
    const order = await createOrder(admin);
    const session = await open(store, order.id, { return_url: 'https://shop.example.com/thanks' });
    const res = await post(session.client.action, `formToken=${form.pay(session.reference, false)}`);
    expect(res.statusCode).toBe(303);
    expect(new URL(res.headers.location as string).searchParams.get('status')).toBe('failed');
  });

  it('answers 4xx and changes nothing for a post to the wrong store, an unknown session or a malformed post', async () => {
    const order = await createOrder(admin);
    const session = await open(store, order.id);
    const token = form.pay(session.reference);
    const toOther = await t.request({ method: 'POST', url: `/webhooks/acme-form/${other.id}?session=${session.id}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `formToken=${token}` });
    expect(toOther.statusCode).toBe(404);
    expect(toOther.json().error.code).toBe('PAYMENT_SESSION_NOT_FOUND');
    const unknownStore = await t.request({ method: 'POST', url: `/webhooks/acme-form/00000000-0000-4000-8000-00000000abcd?session=${session.id}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `formToken=${token}` });
    expect(unknownStore.statusCode).toBe(401);
    const noSession = await t.request({ method: 'POST', url: `/webhooks/acme-form/${shop.id}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `formToken=${token}` });
    expect(noSession.statusCode).toBe(400);
    const badSession = await t.request({ method: 'POST', url: `/webhooks/acme-form/${shop.id}?session=nope`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `formToken=${token}` });
    expect(badSession.statusCode).toBe(400);
    expect((await ok(await store('GET', `${SESSIONS}/${session.id}`), 200)).payment_id).toBeNull();
    expect(form.tokens.get(token)!.used).toBe(false);
  });
});

describe('the sweep', () => {
  let swept: TestApp;
  const clock = { offsetMs: 0, now: () => new Date(Date.now() + clock.offsetMs) };
  beforeAll(async () => {
    swept = await createTestApp({
      plugins: [...BASE, acmePlugin],
      workers: true,
      clock,
      env: { QHATU_GATEWAY_ACME_BASE_URL: acme.url, QHATU_PAYMENTS_SWEEP_SECONDS: '1', QHATU_PAYMENTS_SWEEP_AFTER_SECONDS: '1' },
    });
  });
  afterAll(async () => swept?.close());

  it('re-reads a payment the provider left processing when no notification comes', async () => {
    const tenant = await swept.createTenant({ currency: 'PEN' });
    const api = caller(swept, tenant);
    await ok(await api('PUT', '/api/v1/payments/gateways/acme', { credentials: { api_key: 'acme_key', signing_key: 'k' } }), 200);
    const order = await createOrder(api);
    const payment = await ok(await api('POST', PAYMENTS, { order_id: order.id, gateway: 'acme', amount: order.total, currency: 'PEN', acme_token: 'tok_review', installments: 1 }), 201);
    expect(payment.status).toBe('processing');
    acme.charges.get(payment.provider_payment_id)!.status = 'paid';
    // Nobody reads the payment: only the sweep can find out.
    await until(async () => (await outbox(swept, 'payments.payment.confirmed', payment.id)).length === 1);
    const [row] = await swept.app.orm.em.getConnection().execute(`select status from payments_payment where id = ?`, [payment.id]);
    expect(row.status).toBe('paid');
    await until(async () => (await api('GET', `/api/v1/orders/${order.id}`)).json().data.status !== 'pending');
  });

  it('fails a payment still waiting for the browser a day later; the order can be paid again', async () => {
    const tenant = await swept.createTenant({ currency: 'PEN' });
    const api = caller(swept, tenant);
    await ok(await api('PUT', '/api/v1/payments/gateways/acme', { credentials: { api_key: 'acme_key', signing_key: 'k' } }), 200);
    const order = await createOrder(api);
    const pay = (token: string) => api('POST', PAYMENTS, { order_id: order.id, gateway: 'acme', amount: order.total, currency: 'PEN', acme_token: token, installments: 1 });
    const waiting = await ok(await pay('tok_action'), 201);
    expect(waiting).toMatchObject({ status: 'pending', provider_payment_id: null, next_action: { type: 'acme_verify' } });
    // An hour on, it still waits.
    clock.offsetMs = 3_600_000;
    await new Promise((r) => setTimeout(r, 2500));
    expect((await ok(await api('GET', `${PAYMENTS}/${waiting.id}`), 200)).status).toBe('pending');

    clock.offsetMs = 25 * 3_600_000;
    await until(async () => (await ok(await api('GET', `${PAYMENTS}/${waiting.id}`), 200)).status === 'failed');
    expect(await ok(await api('GET', `${PAYMENTS}/${waiting.id}`), 200)).toMatchObject({
      next_action: null, failure_reason: 'The payment was not completed within 24 hours: the shopper did not finish the next action',
    });
    expect(await outbox(swept, 'payments.payment.failed', waiting.id)).toHaveLength(1);
    expect((await ok(await pay('tok_ok'), 201)).status).toBe('paid');
  });

  it('voids at the provider a payment the shopper left halfway a day later; the order can be paid again', async () => {
    const tenant = await swept.createTenant({ currency: 'PEN' });
    const api = caller(swept, tenant);
    await ok(await api('PUT', '/api/v1/payments/gateways/acme', { credentials: { api_key: 'acme_key', signing_key: 'k' } }), 200);
    const order = await createOrder(api);
    const pay = (token: string) => api('POST', PAYMENTS, { order_id: order.id, gateway: 'acme', amount: order.total, currency: 'PEN', acme_token: token, installments: 1 });
    const left = await ok(await pay('tok_challenge'), 201);
    expect(left).toMatchObject({ status: 'pending', provider_payment_id: expect.stringMatching(/^ch_/), next_action: { type: 'acme_challenge' } });
    const voids = () => acme.requests.filter((r) => r.url === `/charges/${left.provider_payment_id}/void`);
    // Re-read while the shopper may still finish, never voided.
    clock.offsetMs += 3_600_000;
    await until(async () => acme.requests.some((r) => r.url === `/charges/${left.provider_payment_id}`));
    await new Promise((r) => setTimeout(r, 1500));
    expect(voids()).toHaveLength(0);
    expect((await ok(await api('GET', `${PAYMENTS}/${left.id}`), 200)).status).toBe('pending');

    clock.offsetMs += 24 * 3_600_000;
    await until(async () => (await ok(await api('GET', `${PAYMENTS}/${left.id}`), 200)).status === 'failed');
    expect(await ok(await api('GET', `${PAYMENTS}/${left.id}`), 200)).toMatchObject({
      next_action: null, failure_reason: 'The shopper did not finish the next action within 24 hours: Acme Pay cancelled the payment',
    });
    expect(acme.charges.get(left.provider_payment_id)!.status).toBe('voided');
    expect(voids()).toHaveLength(1);
    expect(await outbox(swept, 'payments.payment.failed', left.id)).toHaveLength(1);
    expect((await ok(await pay('tok_ok'), 201)).status).toBe('paid');
  });
});
