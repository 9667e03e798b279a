import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import catalog from '@qhatu/plugin-catalog';
import customers from '@qhatu/plugin-customers';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import orders from '@qhatu/plugin-orders';
import payments from '@qhatu/plugin-payments';
import { caller, createOrder, PAYMENTS, until, type Caller } from '@qhatu/plugin-payments/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import stripe from '../src/index.js';
import { StripeDouble } from '../src/testing.js';
import { BASE_URL_VARIABLE, configure, newAccount } from './helpers.js';

/**
 * A burst of payments while the database keeps cutting the app's connections (the API's, the
 * relay's and the workers'): no answer is a 500, and every payment the provider took ends with
 * its order paid and in the order's ledger (decisions 0050, 0051, 0052).
 */
const account = newAccount();
let double: StripeDouble;
let t: TestApp;
let shop: TestTenant;
let admin: Caller;
let store: Caller;
let killer: pg.Client;
beforeAll(async () => {
  double = await new StripeDouble(new Set([account.secret_key])).start();
  t = await createTestApp({
    plugins: [media, catalog, customers, inventory, orders, payments, stripe],
    workers: true,
    env: { [BASE_URL_VARIABLE]: double.url, QHATU_PAYMENTS_ASK_AGAIN_AFTER_SECONDS: '1', QHATU_PAYMENTS_SWEEP_SECONDS: '2', QHATU_PAYMENTS_SWEEP_AFTER_SECONDS: '1', QHATU_JOB_LOCK_SECONDS: '3' },
  });
  shop = await t.createTenant({ currency: 'PEN' });
  admin = caller(t, shop);
  store = caller(t, shop, shop.storefrontToken);
  await configure(admin, account);
  killer = new pg.Client({ connectionString: t.databaseUrl, application_name: 'connection-killer' });
  await killer.connect();
});
afterAll(async () => {
  await killer?.end();
  await t?.close();
  await double?.close();
});

/** Terminates every other connection to the test database every `everyMs` until `stop()`; how many it cut. */
function cutConnections(everyMs: number): { stop(): Promise<number> } {
  let cut = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const { rows } = await killer.query<{ n: number }>(
        `select count(*) filter (where pg_terminate_backend(pid))::int as n from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid()`,
      );
      cut += rows[0]!.n;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return cut;
    },
  };
}

const pay = (order: { id: string; total: number; currency: string }) =>
  store('POST', PAYMENTS, { order_id: order.id, gateway: 'stripe', amount: order.total, currency: order.currency, payment_method_id: 'pm_card_visa' });

describe('payments while connections are cut', () => {
  it('no 500; every payment the provider took leaves its order paid, with its ledger row', async () => {
    const placed = await Promise.all(Array.from({ length: 48 }, () => createOrder(admin, 1200, 1)));
    const tookAny = () => [...double.intents.values()].some((intent) => intent.status === 'succeeded');
    const cutter = cutConnections(150);
    // At least three waves, so payments meet connections cut before, during and after their commits;
    // up to six while the provider has taken none (on a busy machine every payment of a wave can be cut off).
    const answers: Array<{ statusCode: number; body: string; headers: Record<string, unknown> }> = [];
    for (let wave = 0; wave < 6 && (wave < 3 || !tookAny()); wave++) {
      answers.push(...(await Promise.all(placed.slice(wave * 8, wave * 8 + 8).map((order) => pay(order)))));
    }
    const cut = await cutter.stop();
    expect(cut).toBeGreaterThan(0);
    for (const answer of answers) {
      expect([201, 503], answer.body).toContain(answer.statusCode);
      if (answer.statusCode === 503) expect(answer.headers['retry-after']).toBeDefined();
    }

    // What the provider took, by order: each of those orders must end paid with the payment in its ledger.
    const succeeded = new Map<string, number>();
    for (const intent of double.intents.values()) {
      if (intent.status === 'succeeded') succeeded.set(String(intent.metadata.order_id), (succeeded.get(String(intent.metadata.order_id)) ?? 0) + intent.amount);
    }
    expect(succeeded.size).toBeGreaterThan(0);
    const ledger = async (orderId: string) =>
      (await killer.query<{ payment_id: string; amount: string }>('select payment_id, amount from orders_payment where order_id = $1', [orderId])).rows;
    await until(async () => {
      for (const orderId of succeeded.keys()) {
        const order = (await admin('GET', `/api/v1/orders/${orderId}`)).json().data;
        if (order.status !== 'paid') return false;
      }
      return true;
    }, 75_000);
    for (const [orderId, amount] of succeeded) {
      const order = (await admin('GET', `/api/v1/orders/${orderId}`)).json().data;
      expect(order).toMatchObject({ status: 'paid', amount_paid: amount });
      const rows = await ledger(orderId);
      expect(rows.map((r) => Number(r.amount)).reduce((s, x) => s + x, 0)).toBe(amount);
      const paid = ((await admin('GET', `${PAYMENTS}?filter[order_id]=${orderId}`)).json().data as Array<{ id: string; status: string }>).filter((p) => p.status === 'paid');
      expect(paid.map((p) => p.id).sort()).toEqual(rows.map((r) => r.payment_id).sort());
    }
    // No order was charged twice.
    for (const [orderId, amount] of succeeded) expect({ orderId, amount }).toEqual({ orderId, amount: placed.find((o) => o.id === orderId)!.total });
  }, 180_000);
});
