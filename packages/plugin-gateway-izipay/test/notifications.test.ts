import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { expectUnverified, caller, createOrder, gatewayStores, outbox, PAYMENTS, storedStatus, type Caller, type GatewayStores } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import izipay from '../src/index.js';
import { IzipayDouble, type Account } from '../src/testing.js';
import { BASE_URL_VARIABLE, checkout, configure, krPost, newAccount, notify, sign } from './helpers.js';

// Izipay's IPN at /webhooks/izipay/<tenant id>: the kr-hash checked with that store's key before anything
// is read, the transaction re-read from Izipay, each kr-answer taken once.
let w: GatewayStores<IzipayDouble>;
let double: IzipayDouble;
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let admin: Caller;
let otherAdmin: Caller;
let account: Account;
let otherAccount: Account;
beforeAll(async () => {
  account = newAccount();
  otherAccount = newAccount();
  w = await gatewayStores(izipay, BASE_URL_VARIABLE, await new IzipayDouble([account, otherAccount]).start());
  ({ double, t, shop, other, admin } = w);
  otherAdmin = caller(t, other);
  await configure(admin, account);
  await configure(otherAdmin, otherAccount);
});
afterAll(() => w?.close());

/** A payment whose Izipay transaction waits for authorisation. */
async function running(api: Caller = admin) {
  const { payment, uuid } = await checkout(api, double, await createOrder(api), 'review');
  expect(payment.status).toBe('processing');
  return { id: payment.id, uuid };
}
const recorded = async (tenantId: string) =>
  (await t.app.orm.em.getConnection().execute<Array<{ count: number }>>(`select count(*)::int as count from payments_notification where tenant_id = ? and gateway = 'izipay'`, [tenantId]))[0].count;
const url = (tenantId: string) => `/webhooks/izipay/${tenantId}`;

describe('POST /webhooks/izipay/:tenant (IPN)', () => {
  it('the IPN moves processing → paid after the transaction is re-read; the same IPN again changes nothing', async () => {
    const payment = await running();
    double.settle(payment.uuid, 'accepted');
    const ipn = double.ipn(payment.uuid);
    expect(ipn.url).toMatch(new RegExp(`^/webhooks/izipay/${shop.id}\\?session=[0-9a-f-]{36}$`));
    const before = double.requests.length;
    const res = await notify(t, ipn.url, ipn.body);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ received: true, outcome: 'processed' });
    expect(await storedStatus(t, payment.id)).toBe('paid');
    expect(double.requests.slice(before)).toEqual([expect.objectContaining({ path: '/api-payment/V4/Transaction/Get', json: { uuid: payment.uuid } })]);
    const notes = await recorded(shop.id);
    const again = await notify(t, ipn.url, ipn.body);
    expect(again.json().data.outcome).toBe('duplicate');
    expect(await recorded(shop.id)).toBe(notes);
    expect(await outbox(t, 'payments.payment.captured', payment.id)).toHaveLength(1);
    expect(await outbox(t, 'payments.payment.confirmed', payment.id)).toHaveLength(1);
  });

  it('a refused verdict moves it to failed with Izipay’s reason', async () => {
    const payment = await running();
    double.settle(payment.uuid, 'refused');
    expect((await notify(t, url(shop.id), double.ipn(payment.uuid).body)).json().data.outcome).toBe('processed');
    expect(await storedStatus(t, payment.id)).toBe('failed');
    expect((await admin('GET', `${PAYMENTS}/${payment.id}`)).json().data.failure_reason).toBe('Izipay REFUSED the transaction: payment refused (ACQ_001/51)');
  });

  it('the answer is a claim: a signed kr-answer saying PAID for a transaction Izipay still has running moves nothing', async () => {
    const payment = await running();
    const claim = double.ipn(payment.uuid).krAnswer.replace(/"status":"RUNNING","detailedStatus":"WAITING_AUTHORISATION"/, '"status":"PAID","detailedStatus":"AUTHORISED"');
    expect(claim).toContain('"detailedStatus":"AUTHORISED"');
    const res = await notify(t, url(shop.id), krPost(claim, sign(account.password, claim)));
    expect(res.statusCode).toBe(200);
    expect(await storedStatus(t, payment.id)).toBe('processing');
  });

  it('forged posts are 401 and record nothing: no hash, wrong key, wrong key name, other algorithm, the answer touched', async () => {
    const payment = await running();
    double.settle(payment.uuid, 'accepted');
    const { krAnswer } = double.ipn(payment.uuid);
    const good = sign(account.password, krAnswer);
    const attempts: Array<[string, string]> = [
      ['no hash', new URLSearchParams({ 'kr-hash-algorithm': 'sha256_hmac', 'kr-hash-key': 'password', 'kr-answer': krAnswer }).toString()],
      ['empty body', ''],
      ['guessed hash', krPost(krAnswer, 'a'.repeat(64))],
      ['short hash', krPost(krAnswer, good.slice(0, 63))],
      ['signed with the HMAC key, named password', krPost(krAnswer, sign(account.hmac_key, krAnswer), 'password')],
      ['signed with the password, named sha256_hmac', krPost(krAnswer, good, 'sha256_hmac')],
      ['unknown key name', krPost(krAnswer, good, 'shop_id')],
      ['other algorithm', krPost(krAnswer, good, 'password', 'sha1_hmac')],
      ['no algorithm', new URLSearchParams({ 'kr-hash': good, 'kr-hash-key': 'password', 'kr-answer': krAnswer }).toString()],
      ['slashes unescaped', krPost(krAnswer.replace(/\\\//g, '/'), good)],
      ['another store’s password', krPost(krAnswer, sign(otherAccount.password, krAnswer))],
      ['hash of an empty key', krPost(krAnswer, sign('', krAnswer))],
    ];
    for (const [name, body] of attempts) {
      const res = await notify(t, url(shop.id), body);
      expect(res.statusCode, name).toBe(401);
      expect(res.json().error.code).toBe('INVALID_SIGNATURE');
    }
    const json = await notify(t, url(shop.id), JSON.stringify({ 'kr-hash': good, 'kr-hash-algorithm': 'sha256_hmac', 'kr-hash-key': 'password', 'kr-answer': krAnswer }), 'application/json');
    expect(json.statusCode).toBe(401);
    expect(await storedStatus(t, payment.id)).toBe('processing');
    expect((await notify(t, url(shop.id), krPost(krAnswer, good))).json().data.outcome).toBe('processed');
    expect(await storedStatus(t, payment.id)).toBe('paid');
  });

  it('the browser return (kr-hash-key sha256_hmac) is accepted with the HMAC key and only with it', async () => {
    const payment = await running();
    double.settle(payment.uuid, 'accepted');
    const { krAnswer, krHash } = double.browserReturn(payment.uuid);
    expect(krHash).toBe(sign(account.hmac_key, krAnswer));
    expect((await notify(t, url(shop.id), krPost(krAnswer, sign(account.password, krAnswer), 'sha256_hmac'))).statusCode).toBe(401);
    expect((await notify(t, url(shop.id), krPost(krAnswer, krHash, 'password'))).statusCode).toBe(401);
    const res = await notify(t, url(shop.id), krPost(krAnswer, krHash, 'sha256_hmac'));
    expect(res.json().data.outcome).toBe('processed');
    expect(await storedStatus(t, payment.id)).toBe('paid');
  });

  it('cross-tenant: another store’s password is refused here; another store cannot move this store’s payment', async () => {
    const mine = await running();
    double.settle(mine.uuid, 'accepted');
    const { krAnswer } = double.ipn(mine.uuid);
    expect((await notify(t, url(shop.id), krPost(krAnswer, sign(otherAccount.password, krAnswer)))).statusCode).toBe(401);
    expect((await notify(t, url(other.id), krPost(krAnswer, sign(account.password, krAnswer)))).statusCode).toBe(401);
    const theirs = await notify(t, url(other.id), krPost(krAnswer, sign(otherAccount.password, krAnswer)));
    expect(theirs.statusCode).toBe(200);
    expect(theirs.json().data.outcome).toBe('ignored');
    expect(await storedStatus(t, mine.id)).toBe('processing');
  });

  it('a refund’s IPN re-reads the refund: processing → refunded', async () => {
    const { payment, uuid } = await checkout(admin, double, await createOrder(admin));
    double.remit(uuid);
    double.holdRefunds = true;
    const refund = (await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 1000 })).json().data;
    double.holdRefunds = false;
    expect(refund.status).toBe('processing');
    const credit: string = refund.provider_refund_id;
    double.settleRefund(credit);
    const before = double.requests.length;
    const res = await notify(t, url(shop.id), double.ipn(credit).body);
    expect(res.json().data.outcome).toBe('processed');
    expect(double.requests.slice(before)).toEqual([expect.objectContaining({ path: '/api-payment/V4/Transaction/Get', json: { uuid: credit } })]);
    const refunds = await t.app.orm.em.getConnection().execute(`select status from payments_refund where provider_refund_id = ?`, [credit]);
    expect(refunds).toEqual([{ status: 'refunded' }]);
    expect(await storedStatus(t, payment.id)).toBe('partially_refunded');
  });

  it('when Izipay cannot confirm the transaction the answer is 502 and nothing is recorded, so Izipay retries', async () => {
    const payment = await running();
    double.settle(payment.uuid, 'accepted');
    const ipn = double.ipn(payment.uuid);
    double.accounts.delete(account.shop_id);
    const notes = await recorded(shop.id);
    try {
      const res = await notify(t, ipn.url, ipn.body);
      expect(res.statusCode).toBe(502);
      expect(res.json().error.code).toBe('GATEWAY_UNAVAILABLE');
    } finally {
      double.accounts.set(account.shop_id, account);
    }
    expect(await recorded(shop.id)).toBe(notes);
    expect((await notify(t, ipn.url, ipn.body)).json().data.outcome).toBe('processed');
  });

  it('verified but not understood is 400; a transaction of no payment here is ignored; unknown store 404; malformed address 400', async () => {
    for (const answer of ['not json', '{}', '[]', 'null', '{"transactions":[{"amount":1}]}']) {
      const res = await notify(t, url(shop.id), krPost(answer, sign(account.password, answer)));
      expect(res.statusCode, answer).toBe(400);
    }
    const unknown = JSON.stringify({ orderStatus: 'PAID', transactions: [{ uuid: 'f'.repeat(32), status: 'PAID' }], _type: 'V4/Payment' });
    expect((await notify(t, url(shop.id), krPost(unknown, sign(account.password, unknown)))).json().data.outcome).toBe('ignored');
    const none = JSON.stringify({ orderStatus: 'UNPAID', transactions: [], _type: 'V4/Payment' });
    expect((await notify(t, url(shop.id), krPost(none, sign(account.password, none)))).json().data.outcome).toBe('ignored');
    expect((await notify(t, url('00000000-0000-4000-8000-000000000009'), krPost(unknown, sign(account.password, unknown)))).statusCode).toBe(401);
    expect((await notify(t, url('not-a-tenant'), krPost(unknown, sign(account.password, unknown)))).statusCode).toBe(400);
  });
});

describe('POST /webhooks/izipay (the specification’s path)', () => {
  it('finds the store by the address’s tenant or by the transaction, checks the kr-hash with its password, and processes once', async () => {
    expect((await admin('GET', '/api/v1/payments/gateways/izipay')).json().data.notification_url).toMatch(new RegExp(`/webhooks/izipay\\?tenant=${shop.id}$`));
    const mine = await running();
    double.settle(mine.uuid, 'accepted');
    expect((await notify(t, `/webhooks/izipay?tenant=${shop.id}`, double.ipn(mine.uuid).body)).json().data).toEqual({ received: true, outcome: 'processed' });
    expect(await storedStatus(t, mine.id)).toBe('paid');
    const theirs = await running(otherAdmin);
    double.settle(theirs.uuid, 'accepted');
    const ipn = double.ipn(theirs.uuid);
    expect((await notify(t, '/webhooks/izipay', ipn.body)).json().data.outcome).toBe('processed');
    expect(await storedStatus(t, theirs.id)).toBe('paid');
    expect((await notify(t, '/webhooks/izipay', ipn.body)).json().data.outcome).toBe('duplicate');
  });

  it('a forged or tampered kr-hash, or a store that cannot be found, is 401 and changes nothing', async () => {
    const payment = await running();
    double.settle(payment.uuid, 'accepted');
    const { krAnswer } = double.ipn(payment.uuid);
    const good = sign(account.password, krAnswer);
    const before = await recorded(shop.id);
    const touched = krAnswer.replace('"PAID"', '"UNPAID"');
    expect(touched).not.toBe(krAnswer);
    for (const url of ['/webhooks/izipay', `/webhooks/izipay?tenant=${shop.id}`]) {
      expectUnverified(await notify(t, url, krPost(krAnswer, sign(otherAccount.password, krAnswer))));
      expectUnverified(await notify(t, url, krPost(touched, good)));
      expectUnverified(await notify(t, url, krPost(krAnswer, 'a'.repeat(64))));
    }
    expectUnverified(await notify(t, `/webhooks/izipay?tenant=${other.id}`, krPost(krAnswer, good)));
    expectUnverified(await notify(t, '/webhooks/izipay?tenant=00000000-0000-4000-8000-000000000009', krPost(krAnswer, good)));
    expect(await storedStatus(t, payment.id)).toBe('processing');
    expect(await recorded(shop.id)).toBe(before);
    expect((await notify(t, '/webhooks/izipay', 'kr-answer=not%20json')).statusCode).toBe(400);
  });
});
