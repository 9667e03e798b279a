import { fileURLToPath } from 'node:url';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { createOrder, gatewayStores, outbox, PAYMENTS, spawnStoreProcess, storedStatus, until, type Caller, type GatewayStores, type SpawnedStoreProcess } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import culqi from '../src/index.js';
import { CulqiDouble } from '../src/testing.js';
import { BASE_URL_VARIABLE, configure, newAccount, pay } from './helpers.js';

/**
 * The API process killed (SIGKILL) after Culqi charged and before its answer arrived. A Culqi
 * charge is not idempotent, so it is never repeated: the sweep of a worker (this process, which runs
 * the jobs as `qhatu worker` does) looks it up at Culqi by the payment id in its metadata, once
 * nothing can still be under way, and records what Culqi did.
 */
const CULQI_PLUGIN = fileURLToPath(new URL('../src/index.ts', import.meta.url));
const QUIET_SECONDS = 5;
const account = newAccount();
let w: GatewayStores<CulqiDouble>;
let double: CulqiDouble;
let t: TestApp;
let shop: TestTenant;
let admin: Caller;
let api: SpawnedStoreProcess;
const chargesOf = (orderId: string) => [...double.charges.values()].filter((c) => c.metadata.order_id === orderId);

beforeAll(async () => {
  // The API process loads while this one prepares the database.
  api = spawnStoreProcess({ plugins: [CULQI_PLUGIN] });
  // The worker, sweeping every second; the API runs in a child process.
  w = await gatewayStores(culqi, BASE_URL_VARIABLE, await new CulqiDouble(new Set([account.secret_key])).start(), {
    workers: true,
    env: { QHATU_PAYMENTS_ASK_AGAIN_AFTER_SECONDS: String(QUIET_SECONDS), QHATU_PAYMENTS_SWEEP_SECONDS: '1', QHATU_PAYMENTS_SWEEP_AFTER_SECONDS: '3600' },
  });
  ({ double, t, shop, admin } = w);
  await configure(admin, account);
});
afterAll(async () => {
  await api?.kill();
  await w?.close();
});

describe('an API process killed between a Culqi charge and its answer', () => {
  it('settles to what Culqi did through the look-up by a worker’s sweep; never charged twice, the order paid once', async () => {
    const order = await createOrder(admin);
    const apiProcess = await api.start(t);
    double.holdAnswers(1, (req) => req.method === 'POST' && req.url === '/v2/charges');
    const body = { order_id: order.id, gateway: 'culqi', amount: order.total, currency: order.currency, token_id: 'tkn_test_visa', email: 'rosa@example.com' };
    const posting = apiProcess.request(shop, 'POST', PAYMENTS, body, shop.storefrontToken).catch((error: unknown) => error);
    await until(async () => chargesOf(order.id).length === 1);
    await apiProcess.kill();
    expect(await posting).toBeInstanceOf(Error);
    const [charge] = chargesOf(order.id);
    const paymentId = charge.metadata.qhatu_payment_id;
    expect(await storedStatus(t, paymentId)).toBe('pending');
    // Meanwhile the order cannot take a second payment.
    expect((await pay(admin, order)).json().error.code).toBe('PAYMENT_EXCEEDS_BALANCE');

    await until(async () => (await storedStatus(t, paymentId)) === 'paid', 20_000);
    expect((await admin('GET', `${PAYMENTS}/${paymentId}`)).json().data).toMatchObject({ status: 'paid', provider_payment_id: charge.id, failure_reason: null });
    // Looked up, never charged again.
    expect(chargesOf(order.id)).toHaveLength(1);
    expect(double.requests.filter((r) => r.method === 'POST' && r.path === '/v2/charges' && (r.json.metadata as { order_id?: string } | undefined)?.order_id === order.id)).toHaveLength(1);
    expect(double.requests.some((r) => r.method === 'GET' && r.path === '/v2/charges')).toBe(true);
    expect(await outbox(t, 'payments.payment.captured', paymentId)).toHaveLength(1);
    // The worker ran the order's follow-up: paid once, and no other payment taken.
    await until(async () => (await admin('GET', `/api/v1/orders/${order.id}`)).json().data.amount_paid === order.total, 20_000);
    const again = await pay(admin, order);
    expect(['ORDER_NOT_PAYABLE', 'PAYMENT_EXCEEDS_BALANCE']).toContain(again.json().error.code);
    expect(chargesOf(order.id)).toHaveLength(1);
  }, 60_000);
});

describe('an API process killed between a Culqi refund and its answer', () => {
  it('keeps the refund pending with its amount counted; the sweep marks it unconfirmed, never asks Culqi again, and the store records what Culqi did', async () => {
    const order = await createOrder(admin);
    const payment = (await pay(admin, order)).json().data as { id: string; provider_payment_id: string; amount: number };
    const refundsAtCulqi = () => [...double.refunds.values()].filter((r) => r.charge_id === payment.provider_payment_id);
    const refundCalls = () => double.requests.filter((r) => r.method === 'POST' && r.path === '/v2/refunds' && r.json.charge_id === payment.provider_payment_id);
    const second = spawnStoreProcess({ plugins: [CULQI_PLUGIN] });
    try {
      const apiProcess = await second.start(t);
      double.holdAnswers(1, (req) => req.method === 'POST' && req.url === '/v2/refunds');
      const refunding = apiProcess.request(shop, 'POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0, reason: 'requested_by_customer' }).catch((error: unknown) => error);
      await until(async () => refundsAtCulqi().length === 1);
      await apiProcess.kill();
      expect(await refunding).toBeInstanceOf(Error);
    } finally {
      await second.kill();
    }
    // Its amount still counts: the same money cannot be refunded again meanwhile.
    const again = await admin('POST', `${PAYMENTS}/${payment.id}/refund`, { amount: 0 });
    expect(again.json().error.code).toBe('REFUND_EXCEEDS_AMOUNT');
    const read = async () => (await admin('GET', `${PAYMENTS}/${payment.id}`)).json().data as { status: string; refunds: Array<{ id: string; status: string; unconfirmed: boolean; failure_reason: string | null }> };
    await until(async () => (await read()).refunds[0]?.unconfirmed === true, 20_000);
    const [refund] = (await read()).refunds;
    expect(refund).toMatchObject({ status: 'pending', unconfirmed: true });
    expect(refund.failure_reason).toMatch(/dashboard/);
    // Culqi refunds are not idempotent: never repeated.
    expect(refundCalls()).toHaveLength(1);

    const [atCulqi] = refundsAtCulqi();
    const recorded = await admin('POST', `${PAYMENTS}/${payment.id}/refunds/${refund.id}/outcome`, { status: 'refunded', provider_refund_id: atCulqi.id });
    expect(recorded.statusCode, recorded.body).toBe(200);
    expect(recorded.json().data).toMatchObject({ status: 'refunded', provider_refund_id: atCulqi.id, unconfirmed: false });
    expect(await read()).toMatchObject({ status: 'refunded' });
    expect(refundCalls()).toHaveLength(1);
  }, 60_000);
});
