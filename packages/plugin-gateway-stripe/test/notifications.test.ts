import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { caller, createOrder, expectUnverified, gatewayStores, notificationsRecorded, outbox, PAYMENTS, storedStatus, type Caller, type GatewayStores } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import stripe from '../src/index.js';
import { signStripePayload } from '../src/signature.js';
import { StripeDouble } from '../src/testing.js';
import { BASE_URL_VARIABLE, configure, newAccount, notify, pay, type StripeAccount } from './helpers.js';

// Stripe's signed events at /webhooks/stripe/<tenant id>: verified with that store's endpoint
// secret before anything is read, the intent re-read from Stripe, each event id taken once.
let w: GatewayStores<StripeDouble>;
let double: StripeDouble;
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let admin: Caller;
let account: StripeAccount;
let otherAccount: StripeAccount;
beforeAll(async () => {
  account = newAccount();
  otherAccount = newAccount();
  w = await gatewayStores(stripe, BASE_URL_VARIABLE, await new StripeDouble(new Set([account.secret_key, otherAccount.secret_key])).start());
  ({ double, t, shop, other, admin } = w);
  await configure(admin, account);
  await configure(caller(t, other), otherAccount);
});
afterAll(() => w?.close());

/** A payment Stripe is still processing, and its intent. */
async function processing(api: Caller = admin) {
  const payment = (await pay(api, await createOrder(api), 'pm_card_processing')).json().data;
  expect(payment.status).toBe('processing');
  return payment as { id: string; provider_payment_id: string; order_id: string };
}
const read = async (id: string, api: Caller = admin) => (await api('GET', `${PAYMENTS}/${id}`)).json().data;

describe('POST /webhooks/stripe/:tenant', () => {
  it('payment_intent.succeeded moves processing → paid once; the same event again changes nothing', async () => {
    const payment = await processing();
    const intent = double.settle(payment.provider_payment_id, 'succeeded');
    const event = double.event('payment_intent.succeeded', intent, account.webhook_secret);
    const res = await notify(t, shop.id, event);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ received: true, outcome: 'processed' });
    expect(await storedStatus(t, payment.id)).toBe('paid');
    expect(await read(payment.id)).toMatchObject({ status: 'paid', captured_at: expect.any(String) });
    const again = await notify(t, shop.id, event);
    expect(again.statusCode).toBe(200);
    expect(again.json().data.outcome).toBe('duplicate');
    expect(await outbox(t, 'payments.payment.captured', payment.id)).toHaveLength(1);
    expect(await outbox(t, 'payments.payment.confirmed', payment.id)).toHaveLength(1);
  });

  it('re-reads the intent from Stripe: an event claiming success for an intent still processing moves nothing', async () => {
    const payment = await processing();
    const forgedClaim = { ...double.intents.get(payment.provider_payment_id)!, status: 'succeeded' };
    const res = await notify(t, shop.id, double.event('payment_intent.succeeded', forgedClaim, account.webhook_secret));
    expect(res.statusCode).toBe(200);
    expect((await read(payment.id)).status).toBe('processing');
  });

  it('payment_intent.payment_failed moves it to failed with Stripe’s reason', async () => {
    const payment = await processing();
    const intent = double.settle(payment.provider_payment_id, 'requires_payment_method');
    expect((await notify(t, shop.id, double.event('payment_intent.payment_failed', intent, account.webhook_secret))).statusCode).toBe(200);
    expect(await storedStatus(t, payment.id)).toBe('failed');
    expect(await read(payment.id)).toMatchObject({ status: 'failed', failure_reason: 'Your card was declined.' });
    expect(await outbox(t, 'payments.payment.failed', payment.id)).toHaveLength(1);
  });

  it('a forged, unsigned, tampered or stale notification is 401 and changes nothing', async () => {
    const payment = await processing();
    const intent = double.settle(payment.provider_payment_id, 'succeeded');
    const good = double.event('payment_intent.succeeded', intent, account.webhook_secret);
    const now = Math.floor(Date.now() / 1000);
    const attempts = [
      { body: good.body },
      { body: good.body, signature: '' },
      { body: good.body, signature: 'garbage' },
      { body: good.body, signature: signStripePayload(good.body, 'whsec_guessed', now) },
      { body: good.body.replace('payment_intent.succeeded', 'payment_intent.succeeded '), signature: good.signature },
      { body: good.body, signature: good.signature.replace(/v1=(.)/, (_m, c: string) => `v1=${c === 'a' ? 'b' : 'a'}`) },
      // Signed correctly, but 10 minutes old: a captured request replayed later.
      { body: good.body, signature: signStripePayload(good.body, account.webhook_secret, now - 600) },
    ];
    for (const attempt of attempts) {
      const res = await notify(t, shop.id, attempt);
      expect(res.statusCode, JSON.stringify(attempt.signature)).toBe(401);
      expect(res.json().error.code).toBe('INVALID_SIGNATURE');
    }
    expect(await storedStatus(t, payment.id)).toBe('processing');
    const [{ count }] = await t.app.orm.em.getConnection().execute(`select count(*)::int as count from payments_notification where event_id = ?`, [good.eventId]);
    expect(count).toBe(0);
    // The genuine one still works afterwards.
    expect((await notify(t, shop.id, good)).json().data.outcome).toBe('processed');
    expect(await storedStatus(t, payment.id)).toBe('paid');
  });

  it('a cross-tenant notification changes nothing: another store’s secret, or another store’s intent', async () => {
    const mine = await processing();
    const intent = double.settle(mine.provider_payment_id, 'succeeded');
    // Signed with the other store's secret, sent to this store's address.
    const signedByOther = double.event('payment_intent.succeeded', intent, otherAccount.webhook_secret);
    expect((await notify(t, shop.id, signedByOther)).statusCode).toBe(401);
    // Signed correctly for the other store, about this store's intent: the other store has no such payment.
    const res = await notify(t, other.id, signedByOther);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.outcome).toBe('ignored');
    expect(await storedStatus(t, mine.id)).toBe('processing');
  });

  it('an unknown gateway, store or malformed address is 4xx', async () => {
    const payment = await processing();
    const event = double.event('payment_intent.succeeded', double.intents.get(payment.provider_payment_id)!, account.webhook_secret);
    expect((await t.request({ method: 'POST', url: `/webhooks/acme/${shop.id}`, payload: event.body, headers: { 'content-type': 'application/json' } })).statusCode).toBe(404);
    expect((await notify(t, '00000000-0000-4000-8000-000000000009', event)).statusCode).toBe(401);
    expect((await notify(t, 'not-a-tenant', event)).statusCode).toBe(400);
    // Verified but not an event: 400.
    const junk = 'not json';
    const signed = { body: junk, signature: signStripePayload(junk, account.webhook_secret, Math.floor(Date.now() / 1000)) };
    expect((await notify(t, shop.id, signed)).statusCode).toBe(400);
  });

  it('events about something else are acknowledged and ignored', async () => {
    const event = double.event('customer.created', { id: 'cus_1', object: 'customer' }, account.webhook_secret);
    const res = await notify(t, shop.id, event);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.outcome).toBe('ignored');
  });
});

describe('POST /payments/:id/refund', () => {
  async function paid(amount = 2500, qty = 4) {
    const res = await pay(admin, await createOrder(admin, amount, qty));
    expect(res.json().data.status).toBe('paid');
    return res.json().data as { id: string; amount: number; provider_payment_id: string; order_id: string };
  }

  it('partial, then the remainder with 0: partially_refunded → refunded, on the original intent', async () => {
    const payment = await paid();
    const first = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 3000, reason: 'requested_by_customer' });
    expect(first.statusCode).toBe(201);
    expect(first.json().data).toMatchObject({ payment_id: payment.id, amount: 3000, reason: 'requested_by_customer', status: 'refunded', provider_refund_id: expect.stringMatching(/^re_/) });
    const sent = double.requests.filter((r) => r.path === '/v1/refunds').at(-1)!;
    expect(sent).toMatchObject({ authorization: `Bearer ${account.secret_key}`, idempotencyKey: `qhatu-refund-${first.json().data.id}` });
    expect(sent.form).toMatchObject({ payment_intent: payment.provider_payment_id, amount: '3000', reason: 'requested_by_customer' });
    expect(await read(payment.id)).toMatchObject({ status: 'partially_refunded', refunded_amount: 3000 });

    const rest = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0, reason: 'other' });
    expect(rest.statusCode).toBe(201);
    expect(rest.json().data).toMatchObject({ amount: 7000, reason: 'other', status: 'refunded' });
    // Stripe has no "other" reason: none is sent.
    expect(double.requests.filter((r) => r.path === '/v1/refunds').at(-1)!.form.reason).toBeUndefined();
    const after = await read(payment.id);
    expect(after).toMatchObject({ status: 'refunded', refunded_amount: 10000 });
    expect(after.refunds.map((r: { amount: number }) => r.amount)).toEqual([3000, 7000]);
    expect((await admin('GET', `/api/v1/orders/${payment.order_id}`)).json().data.status).toBe('pending');
    expect(await outbox(t, 'payments.refund.refunded', payment.id)).toHaveLength(2);
  });

  it('409 when the amount exceeds what is left, or the payment is not refundable', async () => {
    const payment = await paid();
    const over = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 10001 });
    expect(over.statusCode).toBe(409);
    expect(over.json().error).toMatchObject({ code: 'REFUND_EXCEEDS_AMOUNT', details: [expect.objectContaining({ refundable: 10000 })] });
    expect((await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 })).statusCode).toBe(201);
    const again = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('PAYMENT_NOT_REFUNDABLE');
    const failed = (await pay(admin, await createOrder(admin), 'pm_card_chargeDeclined')).json().data;
    const refuse = await admin('POST', `${PAYMENTS}/${failed.id}/refund`, { amount: 100 });
    expect(refuse.statusCode).toBe(409);
    expect(refuse.json().error.code).toBe('PAYMENT_NOT_REFUNDABLE');
    const pending = await processing();
    expect((await admin('POST', `${PAYMENTS}/${pending.id}/refund`, { amount: 100 })).statusCode).toBe(409);
  });

  it('refuses bad input', async () => {
    const payment = await paid();
    for (const body of [{}, { amount: -1 }, { amount: 1.5 }, { amount: '100' }, { amount: 100, reason: 'whim' }, { amount: 100, extra: 1 }]) {
      const res = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    expect((await admin('POST', `${PAYMENTS}/nope/refund`, { amount: 0 })).statusCode).toBe(400);
    expect((await admin('POST', `${PAYMENTS}/00000000-0000-4000-8000-000000000001/refund`, { amount: 0 })).statusCode).toBe(404);
  });

  it('concurrent refunds never exceed the amount', async () => {
    const payment = await paid(2500, 4);
    const results = await Promise.all(Array.from({ length: 8 }, () => admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 3000 })));
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes.filter((c) => c === 201)).toHaveLength(3);
    expect(codes.filter((c) => c === 409)).toHaveLength(5);
    const after = await read(payment.id);
    expect(after).toMatchObject({ status: 'partially_refunded', refunded_amount: 9000 });
    const fullAtOnce = await paid(2500, 4);
    const zeros = await Promise.all(Array.from({ length: 5 }, () => admin('POST', `${PAYMENTS}/${fullAtOnce.id}/refund`, { amount: 0 })));
    expect(zeros.filter((r) => r.statusCode === 201)).toHaveLength(1);
    expect(await read(fullAtOnce.id)).toMatchObject({ status: 'refunded', refunded_amount: 10000 });
    const onStripe = [...double.refunds.values()].filter((r) => r.payment_intent === fullAtOnce.provider_payment_id);
    expect(onStripe.reduce((s, r) => s + r.amount, 0)).toBe(10000);
  });

  it('a refund Stripe leaves pending stays processing (still counted) until refund.updated settles it', async () => {
    const payment = await paid();
    double.refundStatus = 'pending';
    try {
      const first = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 6000 });
      const second = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 4000 });
      expect(first.json().data).toMatchObject({ status: 'processing', provider_refund_id: expect.stringMatching(/^re_/) });
      expect(second.json().data.status).toBe('processing');
      expect((await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 1 })).json().error.code).toBe('REFUND_EXCEEDS_AMOUNT');
      expect(await read(payment.id)).toMatchObject({ status: 'paid', refunded_amount: 0 });

      const ok = double.settleRefund(first.json().data.provider_refund_id, 'succeeded');
      const event = double.event('refund.updated', ok, account.webhook_secret);
      expect((await notify(t, shop.id, event)).json().data.outcome).toBe('processed');
      expect((await notify(t, shop.id, event)).json().data.outcome).toBe('duplicate');
      expect(await read(payment.id)).toMatchObject({ status: 'partially_refunded', refunded_amount: 6000 });

      const bad = double.settleRefund(second.json().data.provider_refund_id, 'failed');
      expect((await notify(t, shop.id, double.event('refund.failed', bad, account.webhook_secret))).json().data.outcome).toBe('processed');
      const after = await read(payment.id);
      expect(after).toMatchObject({ status: 'partially_refunded', refunded_amount: 6000 });
      expect(after.refunds.map((r: { status: string }) => r.status)).toEqual(['refunded', 'failed']);
      // The failed refund's 4000 may be refunded again.
      double.refundStatus = 'succeeded';
      expect((await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 })).json().data).toMatchObject({ amount: 4000, status: 'refunded' });
      expect(await read(payment.id)).toMatchObject({ status: 'refunded', refunded_amount: 10000 });
    } finally {
      double.refundStatus = 'succeeded';
    }
  });

  it('a refund Stripe refuses is recorded failed and frees its amount', async () => {
    const payment = await paid();
    // Refunded behind Qhatu's back on Stripe: Stripe refuses the next one.
    double.refunds.set('re_outside', { id: 're_outside', object: 'refund', amount: 10000, payment_intent: payment.provider_payment_id, status: 'succeeded', reason: null, metadata: {} });
    const res = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 1000 });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ status: 'failed', failure_reason: expect.stringContaining('greater than unrefunded amount') });
    expect(await read(payment.id)).toMatchObject({ status: 'paid', refunded_amount: 0 });
    expect(await outbox(t, 'payments.refund.failed', res.json().data.id)).toHaveLength(1);
  });
});

describe('POST /webhooks/stripe (the specification’s path)', () => {
  it('finds the store by the address’s tenant or by the intent, verifies with its secret, and processes once', async () => {
    const listed = (await admin('GET', '/api/v1/payments/gateways/stripe')).json().data;
    expect(listed.notification_url).toMatch(new RegExp(`/webhooks/stripe\\?tenant=${shop.id}$`));
    const byTenant = await processing();
    const first = double.event('payment_intent.succeeded', double.settle(byTenant.provider_payment_id, 'succeeded'), account.webhook_secret);
    const res = await notify(t, `/webhooks/stripe?tenant=${shop.id}`, first);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ received: true, outcome: 'processed' });
    expect(await storedStatus(t, byTenant.id)).toBe('paid');
    // The other store's intent, no tenant in the address: found through the provider's payment id.
    const theirs = await processing(caller(t, other));
    const second = double.event('payment_intent.succeeded', double.settle(theirs.provider_payment_id, 'succeeded'), otherAccount.webhook_secret);
    expect((await notify(t, '/webhooks/stripe', second)).json().data.outcome).toBe('processed');
    expect(await storedStatus(t, theirs.id)).toBe('paid');
    expect((await notify(t, '/webhooks/stripe', second)).json().data.outcome).toBe('duplicate');
  });

  it('a forged or tampered event, or one for no known store, is 401 and changes nothing', async () => {
    const payment = await processing();
    const intent = double.settle(payment.provider_payment_id, 'succeeded');
    const genuine = double.event('payment_intent.succeeded', intent, account.webhook_secret);
    const forged = double.event('payment_intent.succeeded', intent, otherAccount.webhook_secret);
    const tampered = { body: genuine.body.replace('"livemode":false', '"livemode":true '), signature: genuine.signature };
    expect(tampered.body).not.toBe(genuine.body);
    for (const url of ['/webhooks/stripe', `/webhooks/stripe?tenant=${shop.id}`]) {
      expectUnverified(await notify(t, url, forged));
      expectUnverified(await notify(t, url, tampered));
      expectUnverified(await notify(t, url, { body: genuine.body }));
    }
    // Another store's address: that store's secret does not verify this store's event.
    expectUnverified(await notify(t, `/webhooks/stripe?tenant=${other.id}`, genuine));
    // No such store, a malformed one, and an intent no store has.
    expectUnverified(await notify(t, '/webhooks/stripe?tenant=00000000-0000-4000-8000-000000000009', genuine));
    expectUnverified(await notify(t, '/webhooks/stripe?tenant=not-a-store', genuine));
    const unknown = double.event('payment_intent.succeeded', { ...intent, id: 'pi_nobody_has_this' }, account.webhook_secret);
    expectUnverified(await notify(t, '/webhooks/stripe', unknown));
    expect(await storedStatus(t, payment.id)).toBe('processing');
    expect(await notificationsRecorded(t, JSON.parse(genuine.body).id)).toBe(0);
    // A body that cannot be read is a 400.
    const unreadable = await notify(t, '/webhooks/stripe', { body: 'not json', signature: genuine.signature });
    expect(unreadable.statusCode).toBe(400);
    expect(unreadable.json().error.code).toBe('VALIDATION_ERROR');
  });
});
