import type { TestApp, TestTenant } from '@qhatu/core/testing';
import {
  caller, createOrder, expectUnverified, gatewayStores, notificationsRecorded, outbox, PAYMENTS, storedStatus, type Caller, type GatewayStores,
} from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuthHeader } from '../src/basic-auth.js';
import culqi from '../src/index.js';
import { CulqiDouble } from '../src/testing.js';
import { auth, BASE_URL_VARIABLE, configure, newAccount, notify, pay, type CulqiAccount } from './helpers.js';

// Culqi's events at /webhooks/culqi/<tenant id>: Basic auth with that store's CulqiPanel pair checked
// before anything is read, the charge re-read from Culqi, each event id taken once.
let w: GatewayStores<CulqiDouble>;
let double: CulqiDouble;
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let admin: Caller;
let account: CulqiAccount;
let otherAccount: CulqiAccount;
beforeAll(async () => {
  account = newAccount();
  otherAccount = newAccount();
  w = await gatewayStores(culqi, BASE_URL_VARIABLE, await new CulqiDouble(new Set([account.secret_key, otherAccount.secret_key])).start());
  ({ double, t, shop, other, admin } = w);
  await configure(admin, account);
  await configure(caller(t, other), otherAccount);
});
afterAll(() => w?.close());

/** A payment whose Culqi charge has no verdict yet. */
async function held(api: Caller = admin) {
  const payment = (await pay(api, await createOrder(api), 'tkn_test_held')).json().data;
  expect(payment.status).toBe('processing');
  return payment as { id: string; provider_payment_id: string; order_id: string };
}

describe('POST /webhooks/culqi/:tenant', () => {
  it('charge.status.changed moves processing → paid once; the same event again (a replay) changes nothing', async () => {
    const payment = await held();
    const charge = double.settle(payment.provider_payment_id, 'sale');
    const event = double.event('charge.status.changed', charge);
    const res = await notify(t, shop.id, event, auth(account));
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ received: true, outcome: 'processed' });
    expect(await storedStatus(t, payment.id)).toBe('paid');
    expect(double.requests.at(-1)).toMatchObject({ method: 'GET', path: `/v2/charges/${payment.provider_payment_id}`, authorization: `Bearer ${account.secret_key}` });
    const again = await notify(t, shop.id, event, auth(account));
    expect(again.json().data.outcome).toBe('duplicate');
    expect(await outbox(t, 'payments.payment.captured', payment.id)).toHaveLength(1);
    expect(await outbox(t, 'payments.payment.confirmed', payment.id)).toHaveLength(1);
    expect(await notificationsRecorded(t, event.eventId)).toBe(1);
  });

  it('an event without an id is identified by its body: the same delivery twice is one event', async () => {
    const payment = await held();
    const charge = double.settle(payment.provider_payment_id, 'sale');
    const body = JSON.stringify({ object: 'event', type: 'charge.status.changed', data: JSON.stringify(charge) });
    expect((await notify(t, shop.id, { body }, auth(account))).json().data.outcome).toBe('processed');
    expect((await notify(t, shop.id, { body }, auth(account))).json().data.outcome).toBe('duplicate');
    expect(await storedStatus(t, payment.id)).toBe('paid');
  });

  it('re-reads the charge from Culqi: an event claiming a sale for a charge still without verdict moves nothing', async () => {
    const payment = await held();
    const claim = { ...double.charges.get(payment.provider_payment_id)!, outcome: { type: 'venta_exitosa', code: 'AUT0000', merchant_message: 'ok', user_message: 'ok' } };
    const res = await notify(t, shop.id, double.event('charge.status.changed', claim), auth(account));
    expect(res.statusCode).toBe(200);
    expect(await storedStatus(t, payment.id)).toBe('processing');
  });

  it('a denied verdict moves it to failed with Culqi’s message', async () => {
    const payment = await held();
    const charge = double.settle(payment.provider_payment_id, 'denied');
    expect((await notify(t, shop.id, double.event('charge.status.changed', charge), auth(account))).json().data.outcome).toBe('processed');
    expect(await storedStatus(t, payment.id)).toBe('failed');
    expect((await admin('GET', `${PAYMENTS}/${payment.id}`)).json().data.failure_reason).toBe('La operación fue denegada por el sistema antifraude. — DEN0001');
    expect(await outbox(t, 'payments.payment.failed', payment.id)).toHaveLength(1);
  });

  it('forged notifications are 401 and record nothing: no credential, wrong pair, wrong scheme, garbage', async () => {
    const payment = await held();
    const good = double.event('charge.status.changed', double.settle(payment.provider_payment_id, 'sale'));
    const attempts: Array<string | { username: string; password: string } | undefined> = [
      undefined,
      '',
      'Basic',
      'Basic !!!not-base64!!!',
      `Basic ${Buffer.from(account.webhook_username).toString('base64')}`,
      { username: account.webhook_username, password: 'guessed' },
      { username: 'admin', password: account.webhook_password },
      { username: account.webhook_username, password: `${account.webhook_password}x` },
      { username: account.webhook_username, password: '' },
      `Bearer ${account.webhook_password}`,
      `Bearer ${account.secret_key}`,
      basicAuthHeader(account.webhook_username, account.webhook_password).toLowerCase(),
    ];
    for (const attempt of attempts) {
      const res = await notify(t, shop.id, good, attempt);
      expect(res.statusCode, JSON.stringify(attempt)).toBe(401);
      expect(res.json().error.code).toBe('INVALID_SIGNATURE');
    }
    expect(await storedStatus(t, payment.id)).toBe('processing');
    expect(await notificationsRecorded(t, good.eventId)).toBe(0);
    expect((await notify(t, shop.id, good, auth(account))).json().data.outcome).toBe('processed');
    expect(await storedStatus(t, payment.id)).toBe('paid');
  });

  it('cross-tenant: another store’s pair is refused here; another store cannot move this store’s charge', async () => {
    const mine = await held();
    const event = double.event('charge.status.changed', double.settle(mine.provider_payment_id, 'sale'));
    expect((await notify(t, shop.id, event, auth(otherAccount))).statusCode).toBe(401);
    expect((await notify(t, other.id, event, auth(account))).statusCode).toBe(401);
    const theirs = await notify(t, other.id, event, auth(otherAccount));
    expect(theirs.statusCode).toBe(200);
    expect(theirs.json().data.outcome).toBe('ignored');
    expect(await storedStatus(t, mine.id)).toBe('processing');
  });

  it('a refund event re-reads its charge; an event about something else is ignored', async () => {
    const payment = (await pay(admin, await createOrder(admin))).json().data;
    const refund = (await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 1000 })).json().data;
    const created = double.refunds.get(refund.provider_refund_id)!;
    const before = double.requests.length;
    expect((await notify(t, shop.id, double.event('refund.creation.succeeded', created), auth(account))).json().data.outcome).toBe('processed');
    expect(double.requests.slice(before)).toEqual([expect.objectContaining({ method: 'GET', path: `/v2/charges/${payment.provider_payment_id}` })]);
    expect((await admin('GET', `${PAYMENTS}/${payment.id}`)).json().data).toMatchObject({ status: 'partially_refunded', refunded_amount: 1000 });
    const customer = double.event('customer.creation.succeeded', { object: 'customer', id: 'cus_test_1', email: 'rosa@example.com' });
    expect((await notify(t, shop.id, customer, auth(account))).json().data.outcome).toBe('ignored');
    const unknownCharge = double.event('charge.status.changed', { object: 'charge', id: 'chr_test_unknown' });
    expect((await notify(t, shop.id, unknownCharge, auth(account))).json().data.outcome).toBe('ignored');
  });

  it('when Culqi cannot confirm the charge the answer is 502 and nothing is recorded, so Culqi retries', async () => {
    const payment = await held();
    const event = double.event('charge.status.changed', double.settle(payment.provider_payment_id, 'sale'));
    double.keys.delete(account.secret_key);
    try {
      const res = await notify(t, shop.id, event, auth(account));
      expect(res.statusCode).toBe(502);
      expect(res.json().error.code).toBe('GATEWAY_UNAVAILABLE');
    } finally {
      double.keys.add(account.secret_key);
    }
    expect(await notificationsRecorded(t, event.eventId)).toBe(0);
    expect((await notify(t, shop.id, event, auth(account))).json().data.outcome).toBe('processed');
  });

  it('verified but not a Culqi event is 400; unknown store 404; malformed address 400', async () => {
    for (const body of ['not json', '{}', JSON.stringify({ object: 'event', id: 'evt_test_x', type: 'charge.status.changed', data: '{broken' }), '[]', 'null']) {
      const res = await notify(t, shop.id, { body }, auth(account));
      expect(res.statusCode, body).toBe(400);
    }
    const event = double.event('charge.status.changed', { object: 'charge', id: 'chr_test_x' });
    expect((await notify(t, '00000000-0000-4000-8000-000000000009', event, auth(account))).statusCode).toBe(401);
    expect((await notify(t, 'not-a-tenant', event, auth(account))).statusCode).toBe(400);
    // data as an object instead of a string is read the same.
    const objectData = JSON.stringify({ object: 'event', id: 'evt_test_obj', type: 'charge.status.changed', data: { object: 'charge', id: 'chr_test_x' } });
    expect((await notify(t, shop.id, { body: objectData }, auth(account))).json().data.outcome).toBe('ignored');
  });
});

describe('POST /webhooks/culqi (the specification’s path)', () => {
  it('finds the store by the address’s tenant or by the charge, checks its Basic auth pair, and processes once', async () => {
    expect((await admin('GET', '/api/v1/payments/gateways/culqi')).json().data.notification_url).toMatch(new RegExp(`/webhooks/culqi\\?tenant=${shop.id}$`));
    const mine = await held();
    const event = double.event('charge.status.changed', double.settle(mine.provider_payment_id, 'sale'));
    expect((await notify(t, `/webhooks/culqi?tenant=${shop.id}`, event, auth(account))).json().data).toEqual({ received: true, outcome: 'processed' });
    expect(await storedStatus(t, mine.id)).toBe('paid');
    const theirs = await held(caller(t, other));
    const second = double.event('charge.status.changed', double.settle(theirs.provider_payment_id, 'sale'));
    expect((await notify(t, '/webhooks/culqi', second, auth(otherAccount))).json().data.outcome).toBe('processed');
    expect(await storedStatus(t, theirs.id)).toBe('paid');
    expect((await notify(t, '/webhooks/culqi', second, auth(otherAccount))).json().data.outcome).toBe('duplicate');
  });

  it('a forged or tampered authorization, or a store that cannot be found, is 401 and changes nothing', async () => {
    const payment = await held();
    const event = double.event('charge.status.changed', double.settle(payment.provider_payment_id, 'sale'));
    for (const url of ['/webhooks/culqi', `/webhooks/culqi?tenant=${shop.id}`]) {
      expectUnverified(await notify(t, url, event, auth(otherAccount)));
      expectUnverified(await notify(t, url, event, { ...auth(account), password: `${account.webhook_password}x` }));
      expectUnverified(await notify(t, url, event));
    }
    expectUnverified(await notify(t, `/webhooks/culqi?tenant=${other.id}`, event, auth(account)));
    expectUnverified(await notify(t, '/webhooks/culqi?tenant=00000000-0000-4000-8000-000000000009', event, auth(account)));
    const nobody = double.event('charge.status.changed', { ...double.charges.get(payment.provider_payment_id)!, id: 'chr_test_nobody' });
    expectUnverified(await notify(t, '/webhooks/culqi', nobody, auth(account)));
    expect(await storedStatus(t, payment.id)).toBe('processing');
    expect(await notificationsRecorded(t, JSON.parse(event.body).id)).toBe(0);
    expect((await notify(t, '/webhooks/culqi', { body: 'not json' }, auth(account))).statusCode).toBe(400);
  });
});
