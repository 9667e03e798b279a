import { fileURLToPath } from 'node:url';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { createOrder, gatewayStores, outbox, PAYMENTS, spawnStoreProcess, until, type Caller, type GatewayStores, type SpawnedStoreProcess } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import stripe from '../src/index.js';
import { StripeDouble } from '../src/testing.js';
import { BASE_URL_VARIABLE, configure, newAccount, pay } from './helpers.js';

/**
 * The API process killed (SIGKILL) after Stripe charged and before its answer arrived: the payment
 * was committed with everything a repeat needs before Stripe was called, so another API process (this
 * one, which also runs the jobs) asks Stripe again with the same Idempotency-Key and records what
 * Stripe did. One charge, one payment.
 */
const STRIPE_PLUGIN = fileURLToPath(new URL('../src/index.ts', import.meta.url));
/** Seconds a charge without an answer is left alone before it is asked again. */
const QUIET_SECONDS = 5;
const account = newAccount();
let w: GatewayStores<StripeDouble>;
let double: StripeDouble;
let t: TestApp;
let shop: TestTenant;
let admin: Caller;
let api: SpawnedStoreProcess;
const intentsOf = (orderId: string) => [...double.intents.values()].filter((i) => i.metadata.order_id === orderId);
const paymentsOf = (orderId: string) =>
  t.app.orm.em.getConnection().execute<Array<{ id: string; status: string; provider_payment_id: string | null; sealed: boolean; awaiting_answer: string | null }>>(
    `select id, status, provider_payment_id, retry_fields is not null as sealed, awaiting_answer from payments_payment where order_id = ? order by created_at`,
    [orderId],
  );

beforeAll(async () => {
  // The API process loads while this one prepares the database.
  api = spawnStoreProcess({ plugins: [STRIPE_PLUGIN] });
  // This process runs the jobs (the order's follow-up); its sweep waits an hour, so only the reads below ask Stripe.
  w = await gatewayStores(stripe, BASE_URL_VARIABLE, await new StripeDouble(new Set([account.secret_key])).start(), {
    workers: true,
    env: { QHATU_PAYMENTS_ASK_AGAIN_AFTER_SECONDS: String(QUIET_SECONDS), QHATU_PAYMENTS_SWEEP_SECONDS: '3600', QHATU_PAYMENTS_SWEEP_AFTER_SECONDS: '3600' },
  });
  ({ double, t, shop, admin } = w);
  await configure(admin, account);
});
afterAll(async () => {
  await api?.kill();
  await w?.close();
});

describe('an API process killed between the charge and its answer', () => {
  it('settles to what Stripe did, with one charge: another process repeats the charge with the same key once nothing can be under way', async () => {
    const order = await createOrder(admin);
    // Two API processes, as behind a load balancer: the one in a child process is killed, this one stays.
    const apiProcess = await api.start(t);
    double.holdAnswers(1, (req) => req.method === 'POST' && req.url === '/v1/payment_intents');
    const body = { order_id: order.id, gateway: 'stripe', amount: order.total, currency: order.currency, payment_method_id: 'pm_card_visa' };
    const posting = apiProcess.request(shop, 'POST', PAYMENTS, body, shop.storefrontToken).catch((error: unknown) => error);
    // Stripe received the charge and made it; its answer is held back.
    await until(async () => intentsOf(order.id).length === 1);
    const [recorded] = await paymentsOf(order.id);
    expect(recorded).toMatchObject({ status: 'pending', provider_payment_id: null, sealed: true, awaiting_answer: 'charge' });
    await apiProcess.kill();
    expect(await posting).toBeInstanceOf(Error);

    // Its outcome unknown, its amount still counts: a second payment of the order is refused before Stripe is asked.
    const second = await pay(admin, order);
    expect(second.statusCode, second.body).toBe(422);
    expect(second.json().error.code).toBe('PAYMENT_EXCEEDS_BALANCE');
    // Read at once, nothing is asked: the first call might still be under way.
    const asked = double.requests.length;
    expect((await admin('GET', `${PAYMENTS}/${recorded.id}`)).json().data).toMatchObject({ status: 'pending', provider_payment_id: null, failure_reason: null });
    expect(double.requests.length).toBe(asked);

    // Untouched for the quiet time, reading it asks Stripe again.
    await until(async () => (await admin('GET', `${PAYMENTS}/${recorded.id}`)).json().data.status === 'paid', 20_000);
    const [intent] = intentsOf(order.id);
    expect((await admin('GET', `${PAYMENTS}/${recorded.id}`)).json().data).toMatchObject({ status: 'paid', provider_payment_id: intent.id, amount: order.total });
    // The repeat carried the same key, and Stripe answered it with the first charge.
    expect(intentsOf(order.id)).toHaveLength(1);
    expect(double.requests.filter((r) => r.idempotencyKey === `qhatu-payment-${recorded.id}`)).toHaveLength(2);
    expect(await outbox(t, 'payments.payment.captured', recorded.id)).toHaveLength(1);

    // The order took the payment once, and takes no other.
    await until(async () => (await admin('GET', `/api/v1/orders/${order.id}`)).json().data.amount_paid === order.total);
    const again = await pay(admin, order);
    expect([409, 422]).toContain(again.statusCode);
    expect(['ORDER_NOT_PAYABLE', 'PAYMENT_EXCEEDS_BALANCE']).toContain(again.json().error.code);
    expect(intentsOf(order.id)).toHaveLength(1);
    expect(await paymentsOf(order.id)).toHaveLength(1);
  }, 60_000);
});
