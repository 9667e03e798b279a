import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import catalog from '@qhatu/plugin-catalog';
import customers from '@qhatu/plugin-customers';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import orders from '@qhatu/plugin-orders';
import payments from '@qhatu/plugin-payments';
import { caller, createOrder, outbox, PAYMENTS, until, type Caller } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import stripe from '../src/index.js';
import { StripeDouble } from '../src/testing.js';
import { BASE_URL_VARIABLE, configure, newAccount, pay } from './helpers.js';

/**
 * Stripe charged or refunded, but its answer never arrived (the connection dropped after the work
 * was done, on the SDK's call and on its retry). Stripe may have done it, so the payment or refund
 * stays pending, and asking again with the same idempotency key gets Stripe's first answer: one
 * charge, one refund, never two.
 */
const account = newAccount();
const clock = { offsetMs: 0, now: () => new Date(Date.now() + clock.offsetMs) };
let double: StripeDouble;
let t: TestApp;
let shop: TestTenant;
let admin: Caller;
const charges = (paymentId: string) => [...double.intents.values()].filter((i) => i.metadata.qhatu_payment_id === paymentId);
const toStripe = (path: string) => (req: { method?: string; url?: string }) => req.method === 'POST' && req.url === path;

beforeAll(async () => {
  double = await new StripeDouble(new Set([account.secret_key])).start();
  t = await createTestApp({
    plugins: [media, catalog, customers, inventory, orders, payments, stripe],
    workers: true,
    clock,
    env: { [BASE_URL_VARIABLE]: double.url, QHATU_PAYMENTS_SWEEP_SECONDS: '1', QHATU_PAYMENTS_SWEEP_AFTER_SECONDS: '3600' },
  });
  shop = await t.createTenant({ currency: 'PEN' });
  admin = caller(t, shop);
  await configure(admin, account);
});
afterAll(async () => {
  await t?.close();
  await double?.close();
});

describe('an answer of Stripe that is lost', () => {
  it('leaves the payment pending; reading it asks Stripe again and gets the one PaymentIntent', async () => {
    const order = await createOrder(admin);
    double.loseAnswers(2, toStripe('/v1/payment_intents'));
    const payment = (await pay(admin, order)).json().data;
    expect(payment).toMatchObject({ status: 'pending', provider_payment_id: null, failure_reason: null });
    // Stripe did charge, once: the SDK's own retry carried the same key.
    expect(charges(payment.id)).toHaveLength(1);
    const read = (await admin('GET', `${PAYMENTS}/${payment.id}`)).json().data;
    expect(read).toMatchObject({ status: 'paid', provider_payment_id: charges(payment.id)[0].id, failure_reason: null });
    expect(charges(payment.id)).toHaveLength(1);
    expect(double.requests.filter((r) => r.path === '/v1/payment_intents').map((r) => r.idempotencyKey)).toContain(`qhatu-payment-${payment.id}`);
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

  it('is asked again by the sweep when nobody reads the payment; six hours unanswered, it is failed', async () => {
    const order = await createOrder(admin);
    double.loseAnswers(2, toStripe('/v1/payment_intents'));
    const payment = (await pay(admin, order)).json().data;
    expect(payment.status).toBe('pending');
    const status = async () => (await t.app.orm.em.getConnection().execute<Array<{ status: string }>>(`select status from payments_payment where id = ?`, [payment.id]))[0].status;
    // Past the sweep's wait, the sweep asks Stripe again.
    clock.offsetMs += 2 * 3_600_000;
    await until(async () => (await status()) === 'paid');
    expect(charges(payment.id)).toHaveLength(1);

    // A Stripe that never answers again: after six hours the payment is failed, and says why.
    double.loseAnswers(1_000, toStripe('/v1/payment_intents'));
    const lost = (await pay(admin, await createOrder(admin))).json().data;
    expect(lost.status).toBe('pending');
    const asked = double.requests.length;
    clock.offsetMs += 2 * 3_600_000;
    await until(async () => double.requests.length >= asked + 2);
    const [waiting] = await t.app.orm.em.getConnection().execute<Array<{ status: string }>>(`select status from payments_payment where id = ?`, [lost.id]);
    expect(waiting.status).toBe('pending');
    clock.offsetMs += 5 * 3_600_000;
    await until(async () => (await t.app.orm.em.getConnection().execute<Array<{ status: string }>>(`select status from payments_payment where id = ?`, [lost.id]))[0].status === 'failed');
    const failed = (await admin('GET', `${PAYMENTS}/${lost.id}`)).json().data;
    expect(failed.failure_reason).toMatch(/^The payment provider could not be reached: .* \(for 6 hours\); check the provider's dashboard before charging again$/);
    double.loseAnswers(0);
  });
});
