import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { expectUnverified, caller, createOrder, gatewayStores, outbox, PAYMENTS, type Caller, type GatewayStores } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import niubiz from '../src/index.js';
import { NiubizDouble, type NiubizMerchant } from '../src/testing.js';
import { BASE_URL_VARIABLE, configure, formPost, newMerchant, paidInForm } from './helpers.js';

// The checkout form posts `transactionToken` to the session's action URL,
// /webhooks/niubiz/<tenant id>?session=<id>. Niubiz signs nothing: the post only names a token,
// and the authorization Qhatu then asks Niubiz for (for that session's purchase number and amount)
// is the proof. The shopper's browser goes on to the store's return_url.
let w: GatewayStores<NiubizDouble>;
let double: NiubizDouble;
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let store: Caller;
let otherStore: Caller;
let merchant: NiubizMerchant;
let otherMerchant: NiubizMerchant;
const RETURN_URL = 'https://shop.example.pe/gracias?from=niubiz';
beforeAll(async () => {
  merchant = newMerchant();
  otherMerchant = newMerchant();
  w = await gatewayStores(niubiz, BASE_URL_VARIABLE, await new NiubizDouble([merchant, otherMerchant]).start());
  ({ double, t, shop, other, store } = w);
  otherStore = caller(t, other, other.storefrontToken);
  await configure(caller(t, shop), merchant);
  await configure(caller(t, other), otherMerchant);
});
afterAll(() => w?.close());

const authorizations = () => double.requests.filter((r) => r.path.startsWith('/api.authorization/v3/authorization/')).length;
const paymentsOf = async (sessionId: string) =>
  t.app.orm.em.getConnection().execute<Array<{ id: string; status: string }>>(`select id, status from payments_payment where session_id = ?`, [sessionId]);
const orderStatus = async (id: string) => (await caller(t, shop)('GET', `/api/v1/orders/${id}`)).json().data.status as string;

describe('POST /webhooks/niubiz/:tenant?session=<id> (the checkout form’s post)', () => {
  it('pays the order with the posted token and sends the browser to return_url with payment_id and status (303)', async () => {
    const order = await createOrder(caller(t, shop));
    const { session, token } = await paidInForm(store, double, order.id, 'approved', { return_url: RETURN_URL });
    const res = await formPost(t, session.client.action, token);
    expect(res.statusCode).toBe(303);
    const location = new URL(res.headers.location as string);
    expect(`${location.origin}${location.pathname}`).toBe('https://shop.example.pe/gracias');
    expect(location.searchParams.get('from')).toBe('niubiz');
    expect(location.searchParams.get('status')).toBe('paid');
    const payment = (await store('GET', `${PAYMENTS}/${location.searchParams.get('payment_id')}`)).json().data;
    expect(payment).toMatchObject({ order_id: order.id, gateway: 'niubiz', status: 'paid', amount: order.total, provider_payment_id: expect.stringMatching(/^\d+$/) });
    expect(double.requests.at(-1)!.json).toMatchObject({ order: { tokenId: token, purchaseNumber: Number(session.client.purchase_number), amount: order.total / 100 } });
  });

  it('without a return_url it answers 200 with the payment', async () => {
    const order = await createOrder(caller(t, shop));
    const { session, token } = await paidInForm(store, double, order.id);
    const res = await formPost(t, session.client.action, token);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ received: true, outcome: 'processed', payment_id: expect.any(String), status: 'paid' });
  });

  it('a replayed post (or two at once) changes nothing: one payment, one authorization, one capture', async () => {
    const order = await createOrder(caller(t, shop));
    const { session, token } = await paidInForm(store, double, order.id, 'approved', { return_url: RETURN_URL });
    const before = authorizations();
    const [a, b] = await Promise.all([formPost(t, session.client.action, token), formPost(t, session.client.action, token)]);
    expect([a.statusCode, b.statusCode]).toEqual([303, 303]);
    const named = (res: typeof a) => new URL(res.headers.location as string).searchParams;
    // The post that lost the race names the same payment (still pending while the other one charges).
    expect(named(a).get('payment_id')).toBe(named(b).get('payment_id'));
    expect([named(a).get('status'), named(b).get('status')]).toContain('paid');
    const again = await formPost(t, session.client.action, token);
    expect(named(again).get('payment_id')).toBe(named(a).get('payment_id'));
    expect(named(again).get('status')).toBe('paid');
    const payments = await paymentsOf(session.id);
    expect(payments).toEqual([{ id: expect.any(String), status: 'paid' }]);
    expect(authorizations() - before).toBe(1);
    expect(await outbox(t, 'payments.payment.captured', payments[0].id)).toHaveLength(1);
  });

  it('a denied card ends in a failed payment, and the browser is told so', async () => {
    const order = await createOrder(caller(t, shop));
    const { session, token } = await paidInForm(store, double, order.id, 'denied', { return_url: RETURN_URL });
    const res = await formPost(t, session.client.action, token);
    expect(new URL(res.headers.location as string).searchParams.get('status')).toBe('failed');
    expect(await paymentsOf(session.id)).toEqual([{ id: expect.any(String), status: 'failed' }]);
    expect(await orderStatus(order.id)).toBe('pending');
  });

  it('a forged post with an invented token ends in a failed payment, never paid; a later post cannot pay that session', async () => {
    const order = await createOrder(caller(t, shop));
    const { session, token } = await paidInForm(store, double, order.id, 'approved', { return_url: RETURN_URL });
    const forged = await formPost(t, session.client.action, '00000000000000000000000000FORGED');
    expect(forged.statusCode).toBe(303);
    expect(new URL(forged.headers.location as string).searchParams.get('status')).toBe('failed');
    const [payment] = await paymentsOf(session.id);
    expect(payment.status).toBe('failed');
    expect((await store('GET', `${PAYMENTS}/${payment.id}`)).json().data.failure_reason).toBe('El token de transacción no es válido');
    // The session is spent by the failed payment: the real token posted afterwards changes nothing.
    const before = authorizations();
    const real = await formPost(t, session.client.action, token);
    expect(new URL(real.headers.location as string).searchParams.get('status')).toBe('failed');
    expect(authorizations()).toBe(before);
    expect(await orderStatus(order.id)).toBe('pending');
  });

  it('a token paid for one session cannot pay another: Niubiz refuses it, the payment fails', async () => {
    const first = await paidInForm(store, double, (await createOrder(caller(t, shop))).id);
    const second = await paidInForm(store, double, (await createOrder(caller(t, shop))).id);
    const res = await formPost(t, second.session.client.action, first.token);
    expect(res.json().data).toMatchObject({ outcome: 'processed', status: 'failed' });
    expect((await store('GET', `${PAYMENTS}/${res.json().data.payment_id}`)).json().data.failure_reason).toBe('purchaseNumber does not match the transaction');
  });

  it('another store’s session posted to this store’s address (or the reverse) finds nothing and calls nothing', async () => {
    const theirs = await paidInForm(otherStore, double, (await createOrder(caller(t, other))).id);
    const mine = await paidInForm(store, double, (await createOrder(caller(t, shop))).id);
    const before = authorizations();
    const toMine = await formPost(t, theirs.session.client.action.replace(other.id, shop.id), theirs.token);
    expect(toMine.statusCode).toBe(404);
    expect(toMine.json().error.code).toBe('PAYMENT_SESSION_NOT_FOUND');
    const toTheirs = await formPost(t, mine.session.client.action.replace(shop.id, other.id), mine.token);
    expect(toTheirs.statusCode).toBe(404);
    expect(authorizations()).toBe(before);
    expect(await paymentsOf(theirs.session.id)).toEqual([]);
    expect(await paymentsOf(mine.session.id)).toEqual([]);
    // Both still pay at their own address.
    expect((await formPost(t, mine.session.client.action, mine.token)).json().data.status).toBe('paid');
    expect((await formPost(t, theirs.session.client.action, theirs.token)).json().data.status).toBe('paid');
  });

  it('an unknown store is 401 (as on the bare path); a post without a token or without a session is 400', async () => {
    const { session, token } = await paidInForm(store, double, (await createOrder(caller(t, shop))).id);
    const unknown = await formPost(t, session.client.action.replace(shop.id, '00000000-0000-4000-8000-000000000009'), token);
    expect(unknown.statusCode).toBe(401);
    const path = new URL(session.client.action).pathname;
    const headers = { 'content-type': 'application/x-www-form-urlencoded' };
    const noToken = await t.request({ method: 'POST', url: `${path}?session=${session.id}`, headers, payload: 'customerEmail=rosa%40example.com&channel=web' });
    expect(noToken.statusCode).toBe(400);
    const noSession = await t.request({ method: 'POST', url: path, headers, payload: `transactionToken=${token}` });
    expect(noSession.statusCode).toBe(400);
    expect(await paymentsOf(session.id)).toEqual([]);
  });
});

describe('POST /webhooks/niubiz?session=<id> (the specification’s path)', () => {
  /** The form's post to the bare path with `query`. */
  const postBare = (query: string, token: string) =>
    t.request({ method: 'POST', url: `/webhooks/niubiz?${query}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ transactionToken: token, customerEmail: 'rosa@example.com', channel: 'web' }).toString() });

  it('finds the store by the address’s tenant or by the session, and pays once', async () => {
    const byTenant = await paidInForm(store, double, (await createOrder(caller(t, shop))).id);
    const paid = await postBare(`tenant=${shop.id}&session=${byTenant.session.id}`, byTenant.token);
    expect(paid.json().data).toEqual({ received: true, outcome: 'processed', payment_id: expect.any(String), status: 'paid' });
    const bySession = await paidInForm(otherStore, double, (await createOrder(caller(t, other))).id, 'approved', { return_url: RETURN_URL });
    const redirected = await postBare(`session=${bySession.session.id}`, bySession.token);
    expect(redirected.statusCode).toBe(303);
    expect(new URL(redirected.headers.location as string).searchParams.get('status')).toBe('paid');
    expect(await paymentsOf(bySession.session.id)).toEqual([{ id: expect.any(String), status: 'paid' }]);
    // The form posting again: the same payment.
    expect((await postBare(`session=${bySession.session.id}`, bySession.token)).statusCode).toBe(303);
    expect(await paymentsOf(bySession.session.id)).toHaveLength(1);
  });

  it('a store that cannot be found is 401 and calls nothing; an invented token fails at Niubiz', async () => {
    const { session, token } = await paidInForm(store, double, (await createOrder(caller(t, shop))).id);
    const before = authorizations();
    expectUnverified(await postBare(`tenant=00000000-0000-4000-8000-000000000009&session=${session.id}`, token));
    expectUnverified(await postBare('session=00000000-0000-4000-8000-000000000009', token));
    expectUnverified(await postBare(`tenant=not-a-store&session=${session.id}`, token));
    expectUnverified(await postBare(`session=not-a-session`, token));
    expect(authorizations()).toBe(before);
    expect(await paymentsOf(session.id)).toEqual([]);
    // Another store's address does not hold this session.
    expect((await postBare(`tenant=${other.id}&session=${session.id}`, token)).json().error.code).toBe('PAYMENT_SESSION_NOT_FOUND');
    const forged = await postBare(`session=${session.id}`, 'invented-token');
    expect(forged.json().data).toMatchObject({ outcome: 'processed', status: 'failed' });
    expect(await orderStatus(session.order_id)).toBe('pending');
  });
});
