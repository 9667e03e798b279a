import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import catalog from '@qhatu/plugin-catalog';
import customers from '@qhatu/plugin-customers';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import orders from '@qhatu/plugin-orders';
import payments from '@qhatu/plugin-payments';
import { caller, createOrder, outbox, PAYMENTS, storedStatus, until, type Caller } from '@qhatu/plugin-payments/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import stripe from '../src/index.js';
import { StripeDouble } from '../src/testing.js';
import { BASE_URL_VARIABLE, configure, newAccount, pay } from './helpers.js';

/**
 * Stripe charged or refunded, but its answer never arrived (the connection dropped after the work
 * was done, or Stripe kept silent past the timeout, on the SDK's call and on its retry). Stripe may
 * have done it, so the payment or refund stays pending, its amount counted, and is asked again with
 * the same idempotency key once nothing can still be under way: Stripe's first answer, one charge,
 * one refund, never two, and never a payment failed without Stripe's word however long it takes.
 */
const account = newAccount();
const clock = { offsetMs: 0, now: () => new Date(Date.now() + clock.offsetMs) };
/** A charge is asked again a minute after its payment was last touched (the app's clock). */
const QUIET_MS = 60_000;
let double: StripeDouble;
let t: TestApp;
let shop: TestTenant;
let admin: Caller;
const charges = (paymentId: string) => [...double.intents.values()].filter((i) => i.metadata.qhatu_payment_id === paymentId);
const keyed = (paymentId: string) => double.requests.filter((r) => r.idempotencyKey === `qhatu-payment-${paymentId}`);
const toStripe = (path: string) => (req: { method?: string; url?: string }) => req.method === 'POST' && req.url === path;

beforeAll(async () => {
  double = await new StripeDouble(new Set([account.secret_key])).start();
  t = await createTestApp({
    plugins: [media, catalog, customers, inventory, orders, payments, stripe],
    workers: true,
    clock,
    env: {
      [BASE_URL_VARIABLE]: double.url, QHATU_GATEWAY_TIMEOUT_MS: '400', QHATU_PAYMENTS_ASK_AGAIN_AFTER_SECONDS: String(QUIET_MS / 1000),
      QHATU_PAYMENTS_SWEEP_SECONDS: '1', QHATU_PAYMENTS_SWEEP_AFTER_SECONDS: '3600',
    },
  });
  shop = await t.createTenant({ currency: 'PEN' });
  admin = caller(t, shop);
  await configure(admin, account);
});
// A test that failed half-way leaves no lost answers to the next.
afterEach(() => double.loseAnswers(0));
afterAll(async () => {
  await t?.close();
  await double?.close();
});

describe('an answer of Stripe that is lost', () => {
  it('leaves the payment pending and counted; it is asked again only once nothing can still be under way, and gets the one PaymentIntent', async () => {
    const order = await createOrder(admin);
    double.loseAnswers(2, toStripe('/v1/payment_intents'));
    const payment = (await pay(admin, order)).json().data;
    expect(payment).toMatchObject({ status: 'pending', provider_payment_id: null, failure_reason: null });
    // Stripe did charge, once: the SDK's own retry carried the same key.
    expect(charges(payment.id)).toHaveLength(1);
    const second = await pay(admin, order);
    expect(second.statusCode).toBe(422);
    expect(second.json().error.code).toBe('PAYMENT_EXCEEDS_BALANCE');
    // Read at once: the first call might still be under way, so Stripe is not asked.
    const asked = double.requests.length;
    expect((await admin('GET', `${PAYMENTS}/${payment.id}`)).json().data.status).toBe('pending');
    expect(double.requests.length).toBe(asked);

    clock.offsetMs += QUIET_MS;
    const read = (await admin('GET', `${PAYMENTS}/${payment.id}`)).json().data;
    expect(read).toMatchObject({ status: 'paid', provider_payment_id: charges(payment.id)[0].id, failure_reason: null });
    expect(charges(payment.id)).toHaveLength(1);
    expect(keyed(payment.id).length).toBeGreaterThanOrEqual(3);
    expect(await outbox(t, 'payments.payment.captured', payment.id)).toHaveLength(1);
  });

  it('leaves a refund pending and counted (a second one cannot take the same money); asking again refunds once', async () => {
    const payment = (await pay(admin, await createOrder(admin))).json().data;
    expect(payment.status).toBe('paid');
    double.loseAnswers(2, toStripe('/v1/refunds'));
    const refund = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 });
    expect(refund.statusCode).toBe(201);
    expect(refund.json().data).toMatchObject({ status: 'pending', provider_refund_id: null });
    const again = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('REFUND_EXCEEDS_AMOUNT');
    const read = (await admin('GET', `${PAYMENTS}/${payment.id}`)).json().data;
    expect(read).toMatchObject({ status: 'refunded', refunds: [{ id: refund.json().data.id, status: 'refunded', amount: payment.amount }] });
    expect([...double.refunds.values()].filter((r) => r.payment_intent === payment.provider_payment_id)).toHaveLength(1);
  });

  it('a Stripe that stays silent: the payment waits pending and counted, for days if need be, asked again by the sweep, and is paid once Stripe answers', async () => {
    double.loseAnswers(1_000, toStripe('/v1/payment_intents'));
    const order = await createOrder(admin);
    const lost = (await pay(admin, order)).json().data;
    expect(lost.status).toBe('pending');
    // Each ask touches the payment, and the next waits a quiet minute of the app's clock: time moves
    // on a minute at each look, so the sweep keeps asking whatever answer of the SDK's retry was lost.
    const askedTwiceMore = async () => {
      const asked = keyed(lost.id).length;
      await until(async () => {
        clock.offsetMs += QUIET_MS;
        return keyed(lost.id).length >= asked + 2;
      }, 60_000);
    };
    clock.offsetMs += 2 * 3_600_000;
    await askedTwiceMore();
    // Past the old six-hour and one-day limits: still pending, nothing failed without Stripe's word.
    clock.offsetMs += 30 * 3_600_000;
    await askedTwiceMore();
    expect(await storedStatus(t, lost.id)).toBe('pending');
    expect((await pay(admin, order)).json().error.code).toBe('PAYMENT_EXCEEDS_BALANCE');
    double.loseAnswers(0);
    clock.offsetMs += QUIET_MS;
    await until(async () => (await storedStatus(t, lost.id)) === 'paid', 60_000);
    expect(charges(lost.id)).toHaveLength(1);
    expect(await outbox(t, 'payments.payment.failed', lost.id)).toHaveLength(0);
    // Each ask waits out the gateway's timeout twice (the SDK's retry): a busy machine takes its time.
  }, 240_000);
});

describe('giving up a payment whose charge has no answer', () => {
  it('a cancel while the first call may be under way is 409 PAYMENT_IN_PROGRESS; later it asks Stripe first, which had charged: the payment is paid', async () => {
    const order = await createOrder(admin);
    double.loseAnswers(2, toStripe('/v1/payment_intents'));
    const payment = (await pay(admin, order)).json().data;
    const early = await admin('POST', `${PAYMENTS}/${payment.id}/cancel`);
    expect(early.statusCode).toBe(409);
    expect(early.json().error).toMatchObject({ code: 'PAYMENT_IN_PROGRESS', details: [{ payment_id: payment.id, retry_after_seconds: QUIET_MS / 1000 }] });
    // Cancelling the order is refused as well: its payment is in flight.
    const order409 = await admin('POST', `/api/v1/orders/${order.id}/cancel`, {});
    expect(order409.json().error).toMatchObject({ code: 'PAYMENT_IN_PROGRESS', details: [{ payment_id: payment.id, status: 'pending' }] });
    clock.offsetMs += QUIET_MS;
    const late = await admin('POST', `${PAYMENTS}/${payment.id}/cancel`);
    expect(late.statusCode, late.body).toBe(200);
    expect(late.json().data).toMatchObject({ status: 'paid', provider_payment_id: charges(payment.id)[0].id });
    expect(charges(payment.id)).toHaveLength(1);
  });

  it('a 3-D Secure payment left halfway is cancelled at Stripe, and the order takes a new payment at once', async () => {
    const order = await createOrder(admin);
    const left = (await pay(admin, order, 'pm_card_threeDSecure')).json().data;
    expect(left).toMatchObject({ status: 'pending', next_action: { type: 'stripe_handle_next_action' } });
    const cancelled = await admin('POST', `${PAYMENTS}/${left.id}/cancel`);
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(cancelled.json().data).toMatchObject({ status: 'failed', next_action: null, failure_reason: 'Cancelled by the shopper: Stripe cancelled the payment' });
    expect(double.intents.get(left.provider_payment_id)).toMatchObject({ status: 'canceled', cancellation_reason: 'abandoned' });
    expect((await pay(admin, order)).json().data).toMatchObject({ status: 'paid', amount: order.total });
  });
});

describe('a Stripe that times out', () => {
  it('keeps its answer past the timeout: the payment is recorded pending and counted, then asked again and paid with the one charge', async () => {
    const order = await createOrder(admin);
    // Stripe charges but holds its answer, to the SDK's call and to its retry.
    double.holdAnswers(2, toStripe('/v1/payment_intents'));
    const started = Date.now();
    const res = await pay(admin, order);
    expect(res.statusCode).toBe(201);
    const payment = res.json().data;
    expect(payment).toMatchObject({ status: 'pending', provider_payment_id: null, failure_reason: null });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(charges(payment.id)).toHaveLength(1);
    expect((await pay(admin, order)).json().error.code).toBe('PAYMENT_EXCEEDS_BALANCE');

    clock.offsetMs += QUIET_MS;
    await until(async () => (await storedStatus(t, payment.id)) === 'paid');
    expect(charges(payment.id)).toHaveLength(1);
    const answered = double.requests.filter((r) => r.idempotencyKey === `qhatu-payment-${payment.id}`);
    expect(answered.length).toBeGreaterThanOrEqual(3);
    double.releaseAnswers();
    expect((await admin('GET', `${PAYMENTS}/${payment.id}`)).json().data).toMatchObject({ status: 'paid', provider_payment_id: charges(payment.id)[0].id });
    expect(await outbox(t, 'payments.payment.captured', payment.id)).toHaveLength(1);
  });
});
