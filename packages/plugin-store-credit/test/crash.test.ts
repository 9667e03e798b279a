import { fileURLToPath } from 'node:url';
import { APP_ROLE } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { spawnStoreProcess, type SpawnedStoreProcess } from '@qhatu/plugin-payments/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, createCustomer, createProduct, creditApp, enableStoreCredit, grant, ledgerOf, PAYMENTS, payWithCredit, placeOrder, until, type Caller } from './helpers.js';

/**
 * A spend cut in the middle: after the balance was lowered and the debit written, before the
 * ledger's answer to the payment and COMMIT. A test trigger holds the spend there (pg_sleep after
 * the debit's insert) while the process is killed or its connection cut. Nothing of it may stay.
 */
const STORE_CREDIT_PLUGIN = fileURLToPath(new URL('../src/index.ts', import.meta.url));
let t: TestApp;
let shop: TestTenant;
let admin: Caller;
let db: pg.Client;
let variantId: string;
let api: SpawnedStoreProcess;

beforeAll(async () => {
  // The API process that will be killed loads while this one prepares the database.
  api = spawnStoreProcess({ plugins: [STORE_CREDIT_PLUGIN] });
  t = await creditApp();
  shop = await t.createTenant({ currency: 'USD' });
  admin = caller(t, shop);
  await enableStoreCredit(admin);
  variantId = await createProduct(admin, 1000);
  db = new pg.Client({ connectionString: t.databaseUrl, application_name: 'spend-cutter' });
  await db.connect();
  await db.query(`
    create table probe_pause (paused boolean not null);
    insert into probe_pause values (false);
    grant select on probe_pause to ${APP_ROLE};
    create function probe_pause_spend() returns trigger language plpgsql as $$
    begin if (select paused from probe_pause) then perform pg_sleep(30); end if; return null; end $$;
    create trigger probe_pause_spend after insert on store_credit_entry for each row when (new.kind = 'spend') execute function probe_pause_spend();`);
}, 120_000);
afterAll(async () => {
  await api?.kill();
  await db?.end();
  await t?.close();
});

/** The backend held in the middle of a spend (asleep right after the debit's insert): its pid. */
async function pausedSpend(ms = 20_000): Promise<number> {
  const end = Date.now() + ms;
  for (;;) {
    const { rows } = await db.query<{ pid: number }>(
      `select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and wait_event = 'PgSleep' and query like '%store_credit_entry%' limit 1`,
    );
    if (rows[0]) return rows[0].pid;
    if (Date.now() > end) throw new Error('no spend reached the pause');
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function gone(pid: number): Promise<void> {
  await until(async () => (await db.query('select 1 from pg_stat_activity where pid = $1', [pid])).rowCount === 0);
}

const paymentRow = async (orderId: string) =>
  (await db.query<{ id: string; status: string; awaiting_answer: string | null }>(`select id, status, awaiting_answer from payments_payment where order_id = $1`, [orderId])).rows;

describe('a spend cut in the middle', () => {
  it('leaves nothing when its process is killed: the balance, the ledger and the payment stay whole, and the payment is settled failed', async () => {
    const rosa = await createCustomer(t, shop);
    await grant(admin, rosa.id, 3000);
    const { order } = await placeOrder(rosa.api, variantId, 2);
    const apiProcess = await api.start(t);
    await db.query('update probe_pause set paused = true');
    const posting = apiProcess.request(shop, 'POST', PAYMENTS, { order_id: order.id, gateway: 'store-credit', amount: order.total, currency: 'USD' }, rosa.token).catch((e: unknown) => e);
    const pid = await pausedSpend();
    // The balance is lowered and the debit written inside the spend's transaction: no one else sees either.
    expect(await ledgerOf(t, shop.id, rosa.id)).toMatchObject({ balance: 3000, sum: 3000 });
    await apiProcess.kill();
    expect(await posting).toBeInstanceOf(Error);
    await db.query('update probe_pause set paused = false');
    await db.query('select pg_terminate_backend($1)', [pid]);
    await gone(pid);

    const ledger = await ledgerOf(t, shop.id, rosa.id);
    expect(ledger).toMatchObject({ balance: 3000, sum: 3000 });
    expect(ledger.entries.map((e) => e.kind)).toEqual(['grant']);
    const [recorded] = await paymentRow(order.id);
    expect(recorded).toMatchObject({ status: 'pending', awaiting_answer: 'charge' });

    // Read again, the payment is looked up in the ledger: no debit, so it fails and is closed to a late one.
    const read = await admin('GET', `${PAYMENTS}/${recorded.id}`);
    expect(read.json().data).toMatchObject({ status: 'failed', failure_reason: expect.stringContaining('no charge') });
    expect(await ledgerOf(t, shop.id, rosa.id)).toMatchObject({ balance: 3000, sum: 3000 });
    // The customer pays again, once.
    const again = await payWithCredit(rosa.api, order);
    expect(again.json().data.status).toBe('paid');
    expect(await ledgerOf(t, shop.id, rosa.id)).toMatchObject({ balance: 500, sum: 500 });
  }, 90_000);

  it('runs again whole when its connection is cut: one debit, the payment paid', async () => {
    const rosa = await createCustomer(t, shop);
    await grant(admin, rosa.id, 3000);
    const { order } = await placeOrder(rosa.api, variantId, 2);
    await db.query('update probe_pause set paused = true');
    const paying = payWithCredit(rosa.api, order);
    const pid = await pausedSpend();
    // The run that follows the cut finds no pause.
    await db.query('update probe_pause set paused = false');
    await db.query('select pg_terminate_backend($1)', [pid]);
    const res = await paying;
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ status: 'paid', amount: 2500 });
    const ledger = await ledgerOf(t, shop.id, rosa.id);
    expect(ledger).toMatchObject({ balance: 500, sum: 500 });
    expect(ledger.entries.filter((e) => e.kind === 'spend')).toEqual([expect.objectContaining({ amount: -2500, paymentId: res.json().data.id })]);
  }, 60_000);
});
