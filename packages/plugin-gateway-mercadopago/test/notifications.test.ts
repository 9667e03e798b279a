import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { expectUnverified, caller, createOrder, gatewayStores, notificationsRecorded, outbox, PAYMENTS, storedStatus, type Caller, type GatewayStores } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mercadopago from '../src/index.js';
import { manifest, signatureHeader } from '../src/signature.js';
import { MercadoPagoDouble } from '../src/testing.js';
import { BASE_URL_VARIABLE, configure, newAccount, notify, pay, type MpAccount } from './helpers.js';

// Notifications at /webhooks/mercadopago/<tenant id>: x-signature over the manifest with that store's
// secret, checked before anything moves; the payment re-read from Mercado Pago; each event taken once.
let w: GatewayStores<MercadoPagoDouble>;
let double: MercadoPagoDouble;
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let admin: Caller;
let account: MpAccount;
let otherAccount: MpAccount;
beforeAll(async () => {
  account = newAccount();
  otherAccount = newAccount();
  w = await gatewayStores(mercadopago, BASE_URL_VARIABLE, await new MercadoPagoDouble(new Set([account.access_token, otherAccount.access_token])).start());
  ({ double, t, shop, other, admin } = w);
  await configure(admin, account);
  await configure(caller(t, other), otherAccount);
});
afterAll(() => w?.close());

async function held(api: Caller = admin) {
  const payment = (await pay(api, await createOrder(api), 'tok_in_process')).json().data;
  expect(payment.status).toBe('processing');
  return payment as { id: string; provider_payment_id: string };
}

describe('the signed manifest', () => {
  it('is id;request-id;ts; with a trailing ;, alphanumeric ids lower-cased, missing pairs dropped', () => {
    expect(manifest('123456', 'req-1', '1700000000')).toBe('id:123456;request-id:req-1;ts:1700000000;');
    expect(manifest('ABC123', 'req-1', '1')).toBe('id:abc123;request-id:req-1;ts:1;');
    expect(manifest(null, 'req-1', '1')).toBe('request-id:req-1;ts:1;');
    expect(manifest('1', undefined, '1')).toBe('id:1;ts:1;');
  });
});

describe('POST /webhooks/mercadopago/:tenant', () => {
  it('in_process → notification → paid once; the same delivery again (a replay) changes nothing', async () => {
    const payment = await held();
    double.settle(payment.provider_payment_id, 'approved');
    const n = double.notification(account.webhook_secret, payment.provider_payment_id);
    const before = double.requests.length;
    const res = await notify(t, shop.id, n, payment.provider_payment_id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ received: true, outcome: 'processed' });
    expect(await storedStatus(t, payment.id)).toBe('paid');
    expect(double.requests.slice(before)).toEqual([expect.objectContaining({ method: 'GET', path: `/v1/payments/${payment.provider_payment_id}`, authorization: `Bearer ${account.access_token}` })]);
    expect((await notify(t, shop.id, n, payment.provider_payment_id)).json().data.outcome).toBe('duplicate');
    expect(await outbox(t, 'payments.payment.captured', payment.id)).toHaveLength(1);
    expect(await notificationsRecorded(t, n.eventId)).toBe(1);
  });

  it('checks the signature against the query string’s data.id, the value Mercado Pago signs', async () => {
    const payment = await held();
    double.settle(payment.provider_payment_id, 'approved');
    const n = double.notification(account.webhook_secret, payment.provider_payment_id);
    const swapped = await notify(t, shop.id, n, 'another-payment-id');
    expect(swapped.statusCode).toBe(401);
    expect(await storedStatus(t, payment.id)).toBe('processing');
    expect((await notify(t, shop.id, n, payment.provider_payment_id)).statusCode).toBe(200);
    expect(await storedStatus(t, payment.id)).toBe('paid');
  });

  it('re-reads the payment: a notification for a payment still in_process moves nothing; rejected → failed', async () => {
    const payment = await held();
    expect((await notify(t, shop.id, double.notification(account.webhook_secret, payment.provider_payment_id))).statusCode).toBe(200);
    expect(await storedStatus(t, payment.id)).toBe('processing');
    double.settle(payment.provider_payment_id, 'rejected');
    expect((await notify(t, shop.id, double.notification(account.webhook_secret, payment.provider_payment_id))).json().data.outcome).toBe('processed');
    expect(await storedStatus(t, payment.id)).toBe('failed');
    expect((await admin('GET', `${PAYMENTS}/${payment.id}`)).json().data.failure_reason).toBe('Mercado Pago rejected the payment: cc_rejected_high_risk');
  });

  it('forged, tampered, expired and future notifications are 401 and record nothing', async () => {
    const payment = await held();
    double.settle(payment.provider_payment_id, 'approved');
    const good = double.notification(account.webhook_secret, payment.provider_payment_id);
    const now = Math.floor(Date.now() / 1000);
    const sig = (secret: string, id: string | null, req: string | null, ts: number | string) => signatureHeader(secret, id, req, ts);
    const attempts: Array<{ signature?: string; requestId?: string }> = [
      {},
      { signature: '', requestId: good.requestId },
      { signature: 'garbage', requestId: good.requestId },
      { signature: `ts=${now}`, requestId: good.requestId },
      { signature: `ts=${now},v1=${'0'.repeat(64)}`, requestId: good.requestId },
      { signature: sig('guessed', payment.provider_payment_id, good.requestId, now), requestId: good.requestId },
      { signature: sig(account.webhook_secret, '999', good.requestId, now), requestId: good.requestId },
      { signature: good.signature, requestId: 'another-request' },
      { signature: good.signature },
      { signature: good.signature.replace(/ts=\d+/, `ts=${now + 1}`), requestId: good.requestId },
      { signature: sig(account.webhook_secret, payment.provider_payment_id, good.requestId, now - 330), requestId: good.requestId },
      { signature: sig(account.webhook_secret, payment.provider_payment_id, good.requestId, now + 330), requestId: good.requestId },
      { signature: sig(account.access_token, payment.provider_payment_id, good.requestId, now), requestId: good.requestId },
    ];
    for (const attempt of attempts) {
      const res = await notify(t, shop.id, { body: good.body, ...attempt }, payment.provider_payment_id);
      expect(res.statusCode, JSON.stringify(attempt)).toBe(401);
      expect(res.json().error.code).toBe('INVALID_SIGNATURE');
    }
    // The body names another payment than the one signed.
    const tampered = { ...good, body: good.body.replace(payment.provider_payment_id, '999') };
    expect((await notify(t, shop.id, tampered)).statusCode).toBe(401);
    expect(await storedStatus(t, payment.id)).toBe('processing');
    expect(await notificationsRecorded(t, good.eventId)).toBe(0);
    // A replay an hour later is refused by its age, even with the right secret.
    const old = double.notification(account.webhook_secret, payment.provider_payment_id, { ts: now - 3600 });
    expect((await notify(t, shop.id, old)).statusCode).toBe(401);
    // Milliseconds in ts are read as well.
    const ms = double.notification(account.webhook_secret, payment.provider_payment_id, { ts: Date.now() });
    expect((await notify(t, shop.id, ms)).json().data.outcome).toBe('processed');
    expect(await storedStatus(t, payment.id)).toBe('paid');
  });

  it('cross-tenant: another store’s secret is refused here; another store cannot move this store’s payment', async () => {
    const mine = await held();
    double.settle(mine.provider_payment_id, 'approved');
    expect((await notify(t, shop.id, double.notification(otherAccount.webhook_secret, mine.provider_payment_id))).statusCode).toBe(401);
    expect((await notify(t, other.id, double.notification(account.webhook_secret, mine.provider_payment_id))).statusCode).toBe(401);
    const theirs = await notify(t, other.id, double.notification(otherAccount.webhook_secret, mine.provider_payment_id));
    expect(theirs.json().data.outcome).toBe('ignored');
    expect(await storedStatus(t, mine.id)).toBe('processing');
  });

  it('other topics and unknown payments are ignored; bodies it cannot read are 400; unknown store 404', async () => {
    const other1 = double.notification(account.webhook_secret, '42', { type: 'merchant_order', action: 'merchant_order.updated' });
    expect((await notify(t, shop.id, other1)).json().data.outcome).toBe('ignored');
    expect((await notify(t, shop.id, double.notification(account.webhook_secret, '77777'))).json().data.outcome).toBe('ignored');
    const now = Math.floor(Date.now() / 1000);
    for (const body of ['not json', '{}', '[]', 'null']) {
      const res = await notify(t, shop.id, { body, requestId: 'r-1', signature: signatureHeader(account.webhook_secret, null, 'r-1', now) });
      expect(res.statusCode, body).toBe(400);
    }
    const n = double.notification(account.webhook_secret, '1');
    expect((await notify(t, '00000000-0000-4000-8000-000000000009', n)).statusCode).toBe(401);
    expect((await notify(t, 'not-a-tenant', n)).statusCode).toBe(400);
  });

  it('when Mercado Pago cannot confirm the payment the answer is 502 and nothing is recorded', async () => {
    const payment = await held();
    double.settle(payment.provider_payment_id, 'approved');
    const n = double.notification(account.webhook_secret, payment.provider_payment_id);
    double.tokens.delete(account.access_token);
    try {
      expect((await notify(t, shop.id, n)).statusCode).toBe(502);
    } finally {
      double.tokens.add(account.access_token);
    }
    expect(await notificationsRecorded(t, n.eventId)).toBe(0);
    expect((await notify(t, shop.id, n)).json().data.outcome).toBe('processed');
  });
});

describe('POST /webhooks/mercadopago (the specification’s path)', () => {
  it('finds the store by the address’s tenant or by the payment, verifies with its secret, and processes once', async () => {
    expect((await admin('GET', '/api/v1/payments/gateways/mercadopago')).json().data.notification_url).toMatch(new RegExp(`/webhooks/mercadopago\\?tenant=${shop.id}$`));
    const mine = await held();
    double.settle(mine.provider_payment_id, 'approved');
    const n = double.notification(account.webhook_secret, mine.provider_payment_id);
    expect((await notify(t, `/webhooks/mercadopago?tenant=${shop.id}`, n, mine.provider_payment_id)).json().data).toEqual({ received: true, outcome: 'processed' });
    expect(await storedStatus(t, mine.id)).toBe('paid');
    const theirs = await held(caller(t, other));
    double.settle(theirs.provider_payment_id, 'approved');
    const second = double.notification(otherAccount.webhook_secret, theirs.provider_payment_id);
    expect((await notify(t, '/webhooks/mercadopago', second, theirs.provider_payment_id)).json().data.outcome).toBe('processed');
    expect(await storedStatus(t, theirs.id)).toBe('paid');
    expect((await notify(t, '/webhooks/mercadopago', second, theirs.provider_payment_id)).json().data.outcome).toBe('duplicate');
  });

  it('a forged or tampered signature, or a store that cannot be found, is 401 and changes nothing', async () => {
    const payment = await held();
    double.settle(payment.provider_payment_id, 'approved');
    const good = double.notification(account.webhook_secret, payment.provider_payment_id);
    const forged = double.notification(otherAccount.webhook_secret, payment.provider_payment_id);
    const tampered = { ...good, signature: good.signature.replace(/v1=([0-9a-f])/, (_m, c: string) => `v1=${c === '0' ? '1' : '0'}`) };
    for (const url of ['/webhooks/mercadopago', `/webhooks/mercadopago?tenant=${shop.id}`]) {
      expectUnverified(await notify(t, url, forged, payment.provider_payment_id));
      expectUnverified(await notify(t, url, tampered, payment.provider_payment_id));
      expectUnverified(await notify(t, url, { body: good.body }, payment.provider_payment_id));
    }
    expectUnverified(await notify(t, `/webhooks/mercadopago?tenant=${other.id}`, good, payment.provider_payment_id));
    expectUnverified(await notify(t, '/webhooks/mercadopago?tenant=00000000-0000-4000-8000-000000000009', good, payment.provider_payment_id));
    expectUnverified(await notify(t, '/webhooks/mercadopago', double.notification(account.webhook_secret, '987654321'), '987654321'));
    expect(await storedStatus(t, payment.id)).toBe('processing');
    expect(await notificationsRecorded(t, good.eventId)).toBe(0);
  });
});
