import { randomUUID } from 'node:crypto';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { caller, createOrder, gatewayStores, notificationsRecorded, ok, outbox, PAYMENTS, storedStatus, type Caller, type GatewayStores } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import paypal from '../src/index.js';
import { PayPalDouble, type Delivery, type PayPalAccount } from '../src/testing.js';
import { BASE_URL_VARIABLE, configure, newAccount, notify, openSession, pay } from './helpers.js';

// PayPal's webhooks at /webhooks/paypal/<tenant id>: PayPal itself vouches for each delivery
// (verify-webhook-signature with that store's webhook id) before anything is read, the order is
// re-read from PayPal, each event id is taken once.
let w: GatewayStores<PayPalDouble>;
let double: PayPalDouble;
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let admin: Caller;
let account: PayPalAccount;
let otherAccount: PayPalAccount;
beforeAll(async () => {
  account = newAccount();
  otherAccount = newAccount();
  w = await gatewayStores(paypal, BASE_URL_VARIABLE, await new PayPalDouble([account, otherAccount]).start(), { currency: 'USD' });
  ({ double, t, shop, other, admin } = w);
  await configure(admin, account);
  await configure(caller(t, other), otherAccount);
});
afterAll(() => w?.close());

/** A payment whose PayPal capture is pending review. */
async function held(api: Caller = admin, acc: PayPalAccount = account) {
  const paypalOrder = double.approve(double.clientOrder('50.00', 'USD', { clientId: acc.client_id }).id, 'PENDING');
  const payment = (await pay(api, await createOrder(api), paypalOrder.id)).json().data;
  expect(payment.status).toBe('processing');
  return payment as { id: string; provider_payment_id: string; order_id: string };
}
const verifications = () => double.requests.filter((r) => r.path === '/v1/notifications/verify-webhook-signature');

describe('POST /webhooks/paypal/:tenant', () => {
  it('PAYMENT.CAPTURE.COMPLETED, verified by PayPal, moves processing → paid after a re-read; the same event again is a duplicate', async () => {
    const payment = await held();
    double.settleCapture(payment.provider_payment_id, 'COMPLETED');
    const delivery = double.captureEvent(account.webhook_id, 'PAYMENT.CAPTURE.COMPLETED', payment.provider_payment_id);
    const before = double.requests.length;
    const res = await notify(t, shop.id, delivery);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ received: true, outcome: 'processed' });
    expect(await storedStatus(t, payment.id)).toBe('paid');
    const calls = double.requests.slice(before);
    expect(calls.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/notifications/verify-webhook-signature', `GET /v2/checkout/orders/${payment.provider_payment_id}`]);
    expect(calls[0].json).toEqual({
      auth_algo: 'SHA256withRSA', cert_url: delivery.headers['paypal-cert-url'], transmission_id: delivery.headers['paypal-transmission-id'],
      transmission_sig: delivery.headers['paypal-transmission-sig'], transmission_time: delivery.headers['paypal-transmission-time'],
      webhook_id: account.webhook_id, webhook_event: JSON.parse(delivery.body),
    });
    // The event travels back to PayPal as the exact bytes received.
    expect(calls[0].raw.endsWith(`"webhook_event":${delivery.body}}`)).toBe(true);
    const again = await notify(t, shop.id, delivery);
    expect(again.json().data.outcome).toBe('duplicate');
    expect(await outbox(t, 'payments.payment.captured', payment.id)).toHaveLength(1);
    expect(await outbox(t, 'payments.payment.confirmed', payment.id)).toHaveLength(1);
    expect(await notificationsRecorded(t, JSON.parse(delivery.body).id)).toBe(1);
  });

  it('CHECKOUT.ORDER.APPROVED for a session’s pending payment: re-read, captured once, paid', async () => {
    const order = await createOrder(admin);
    const session = await ok(await openSession(admin, order), 201);
    const payment = await ok(await pay(admin, order, session.reference), 201);
    expect(payment.status).toBe('pending');
    double.approve(session.reference);
    const res = await notify(t, shop.id, double.orderEvent(account.webhook_id, 'CHECKOUT.ORDER.APPROVED', session.reference));
    expect(res.json().data.outcome).toBe('processed');
    expect(await storedStatus(t, payment.id)).toBe('paid');
    const capture = double.requests.filter((r) => r.path.endsWith('/capture')).at(-1)!;
    expect(capture).toMatchObject({ path: `/v2/checkout/orders/${session.reference}/capture`, requestId: `qhatu-capture-${session.reference}` });
    const completed = await notify(t, shop.id, double.orderEvent(account.webhook_id, 'CHECKOUT.ORDER.COMPLETED', session.reference));
    expect(completed.json().data.outcome).toBe('processed');
    expect(double.orders.get(session.reference)!.order.purchase_units[0].payments!.captures).toHaveLength(1);
    expect(await outbox(t, 'payments.payment.captured', payment.id)).toHaveLength(1);
  });

  it('the event’s claims are not trusted: a capture PayPal still holds pending stays processing', async () => {
    const payment = await held();
    const capture = double.orders.get(payment.provider_payment_id)!.order.purchase_units[0].payments!.captures[0];
    const claim = double.deliver(account.webhook_id, 'PAYMENT.CAPTURE.COMPLETED', { ...capture, status: 'COMPLETED' });
    expect((await notify(t, shop.id, claim)).json().data.outcome).toBe('processed');
    expect(await storedStatus(t, payment.id)).toBe('processing');
  });

  it('PAYMENT.CAPTURE.DENIED moves processing → failed with PayPal’s reason', async () => {
    const payment = await held();
    double.settleCapture(payment.provider_payment_id, 'DECLINED');
    expect((await notify(t, shop.id, double.captureEvent(account.webhook_id, 'PAYMENT.CAPTURE.DENIED', payment.provider_payment_id))).json().data.outcome).toBe('processed');
    expect(await storedStatus(t, payment.id)).toBe('failed');
    expect(await outbox(t, 'payments.payment.failed', payment.id)).toHaveLength(1);
  });

  it('deliveries PayPal does not vouch for are 401 and change nothing', async () => {
    const payment = await held();
    double.settleCapture(payment.provider_payment_id, 'COMPLETED');
    const good = double.captureEvent(account.webhook_id, 'PAYMENT.CAPTURE.COMPLETED', payment.provider_payment_id);
    const elsewhere = double.captureEvent(account.webhook_id, 'PAYMENT.CAPTURE.COMPLETED', payment.provider_payment_id);
    const { 'paypal-transmission-sig': _sig, ...unsigned } = good.headers;
    const attempts: Array<[string, Pick<Delivery, 'headers' | 'body'>]> = [
      ['no PayPal headers', { headers: { 'content-type': 'application/json' }, body: good.body }],
      ['no signature', { headers: unsigned, body: good.body }],
      ['another signature', { headers: { ...good.headers, 'paypal-transmission-sig': elsewhere.headers['paypal-transmission-sig'] }, body: good.body }],
      ['another transmission', { headers: { ...good.headers, 'paypal-transmission-id': elsewhere.headers['paypal-transmission-id'] }, body: good.body }],
      ['another time', { headers: { ...good.headers, 'paypal-transmission-time': new Date(Date.now() + 1000).toISOString() }, body: good.body }],
      ['a body changed', { headers: good.headers, body: good.body.replace('"PAYMENT.CAPTURE.COMPLETED"', '"PAYMENT.CAPTURE.DENIED"') }],
      ['another delivery’s body', { headers: good.headers, body: elsewhere.body }],
      ['a cert off paypal.com', { headers: { ...good.headers, 'paypal-cert-url': 'https://attacker.example/cert.pem' }, body: good.body }],
      ['a body that is not JSON', { headers: good.headers, body: 'not json' }],
      ['a delivery PayPal never made', { headers: { ...good.headers, 'paypal-transmission-id': randomUUID() }, body: good.body }],
    ];
    for (const [what, attempt] of attempts) {
      const res = await notify(t, shop.id, attempt);
      expect(res.statusCode, what).toBe(401);
      expect(res.json().error.code).toBe('INVALID_SIGNATURE');
    }
    expect(await storedStatus(t, payment.id)).toBe('processing');
    expect(await notificationsRecorded(t, JSON.parse(good.body).id)).toBe(0);
    expect((await notify(t, shop.id, good)).json().data.outcome).toBe('processed');
    expect(await storedStatus(t, payment.id)).toBe('paid');
  });

  it('cross-tenant: store B’s webhook id does not verify store A’s delivery; B’s own delivery cannot move A’s payment', async () => {
    const mine = await held();
    double.settleCapture(mine.provider_payment_id, 'COMPLETED');
    const toMe = double.captureEvent(account.webhook_id, 'PAYMENT.CAPTURE.COMPLETED', mine.provider_payment_id);
    const before = verifications().length;
    expect((await notify(t, other.id, toMe)).statusCode).toBe(401);
    expect(verifications().slice(before).map((r) => r.json.webhook_id)).toEqual([otherAccount.webhook_id]);
    const toThem = double.captureEvent(otherAccount.webhook_id, 'PAYMENT.CAPTURE.COMPLETED', mine.provider_payment_id);
    expect((await notify(t, shop.id, toThem)).statusCode).toBe(401);
    const theirs = await notify(t, other.id, toThem);
    expect(theirs.statusCode).toBe(200);
    expect(theirs.json().data.outcome).toBe('ignored');
    expect(await storedStatus(t, mine.id)).toBe('processing');
  });

  it('a store without webhook_id refuses every webhook (401) without asking PayPal; polling still works', async () => {
    const tenant = await t.createTenant({ currency: 'USD' });
    const api = caller(t, tenant);
    const acc = newAccount();
    double.addAccount(acc);
    await configure(api, acc, ['client_id', 'client_secret']);
    const payment = await held(api, acc);
    double.settleCapture(payment.provider_payment_id, 'COMPLETED');
    const before = verifications().length;
    const res = await notify(t, tenant.id, double.captureEvent(acc.webhook_id, 'PAYMENT.CAPTURE.COMPLETED', payment.provider_payment_id));
    expect(res.statusCode).toBe(401);
    expect(verifications()).toHaveLength(before);
    expect((await api('GET', `${PAYMENTS}/${payment.id}`)).json().data.status).toBe('paid');
  });

  it('a refund event re-reads the refund: a pending PayPal refund becomes refunded', async () => {
    const paypalOrder = double.approve(double.clientOrder('50.00', 'USD').id);
    const payment = (await pay(admin, await createOrder(admin), paypalOrder.id)).json().data;
    double.refundOutcome = 'PENDING';
    const refund = (await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 1000 })).json().data;
    double.refundOutcome = 'COMPLETED';
    expect(refund.status).toBe('processing');
    double.settleRefund(refund.provider_refund_id, 'COMPLETED');
    const before = double.requests.length;
    const res = await notify(t, shop.id, double.refundEvent(account.webhook_id, 'PAYMENT.CAPTURE.REFUNDED', refund.provider_refund_id));
    expect(res.json().data.outcome).toBe('processed');
    expect(double.requests.slice(before).map((r) => `${r.method} ${r.path}`)).toContain(`GET /v2/payments/refunds/${refund.provider_refund_id}`);
    const [row] = await t.app.orm.em.getConnection().execute(`select status, refunded_amount from payments_payment where id = ?`, [payment.id]);
    expect(row).toEqual({ status: 'partially_refunded', refunded_amount: '1000' });
  });

  it('events about nothing Qhatu tracks are ignored', async () => {
    const dispute = double.deliver(account.webhook_id, 'CUSTOMER.DISPUTE.CREATED', { dispute_id: 'PP-D-1234', status: 'OPEN' });
    expect((await notify(t, shop.id, dispute)).json().data.outcome).toBe('ignored');
    const unknownOrder = double.deliver(account.webhook_id, 'CHECKOUT.ORDER.APPROVED', { id: '0VF52814937998046', status: 'APPROVED' });
    expect((await notify(t, shop.id, unknownOrder)).json().data.outcome).toBe('ignored');
    const unknownRefund = double.deliver(account.webhook_id, 'PAYMENT.CAPTURE.REFUNDED', { id: '1JU08902781691411', status: 'COMPLETED' });
    expect((await notify(t, shop.id, unknownRefund)).json().data.outcome).toBe('ignored');
  });

  it('when PayPal cannot confirm the order the answer is 502 and nothing is recorded, so PayPal delivers again', async () => {
    const payment = await held();
    double.settleCapture(payment.provider_payment_id, 'COMPLETED');
    const delivery = double.captureEvent(account.webhook_id, 'PAYMENT.CAPTURE.COMPLETED', payment.provider_payment_id);
    double.unavailable = /^\/v2\/checkout\/orders\//;
    try {
      const res = await notify(t, shop.id, delivery);
      expect(res.statusCode).toBe(502);
      expect(res.json().error.code).toBe('GATEWAY_UNAVAILABLE');
    } finally {
      double.unavailable = null;
    }
    expect(await notificationsRecorded(t, JSON.parse(delivery.body).id)).toBe(0);
    expect((await notify(t, shop.id, delivery)).json().data.outcome).toBe('processed');
    expect(await storedStatus(t, payment.id)).toBe('paid');
  });

  it('PayPal’s verification unreachable is 401 (PayPal delivers again); unknown store 404; malformed address 400', async () => {
    const delivery = double.deliver(account.webhook_id, 'CUSTOMER.DISPUTE.CREATED', { dispute_id: 'PP-D-5678' });
    double.unavailable = /^\/v1\/notifications\//;
    try {
      expect((await notify(t, shop.id, delivery)).statusCode).toBe(401);
    } finally {
      double.unavailable = null;
    }
    expect((await notify(t, shop.id, delivery)).statusCode).toBe(200);
    expect((await notify(t, '00000000-0000-4000-8000-000000000009', delivery)).statusCode).toBe(401);
    expect((await notify(t, 'not-a-tenant', delivery)).statusCode).toBe(400);
  });
});
