import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answersMatch, listOf } from '@qhatu/core';
import type { JobContext } from '@qhatu/core';
import { indexesOf, nodesOf, seqScans, type PlanNode, type TestApp, type TestTenant } from '@qhatu/core/testing';
import orders, { PRUNE_CHANGES_JOB } from '../src/index.js';
import { OrderOut } from '../src/schemas/order.js';
import { caller, createOrder, createVariants, ORDERS, ordersApp } from './helpers.js';

/**
 * The staff's order pages kept with the snapshot they were read at (decision 0101): asked again,
 * the page's one statement only checks that no transaction changed the store's orders since, and
 * any change committed by anyone (the app, another process, plain SQL, a transaction open while
 * the page was read) is in the next page.
 */
let t: TestApp;
let store: TestTenant;
let client: pg.Client;

beforeAll(async () => {
  t = await ordersApp();
  store = await t.createTenant();
  client = await t.owner();
  const [variant] = await createVariants(t, store, [1500]);
  for (let i = 0; i < 3; i++) await createOrder(t, store, [{ variant_id: variant.id, quantity: 1 }]);
}, 60_000);

afterAll(async () => t?.close());

const page = async (tenant = store) => {
  const { result, statements } = await t.countQueries(() => caller(t, tenant)('GET', `${ORDERS}?limit=10`));
  expect(result.statusCode, result.body).toBe(200);
  return { body: result.body, data: result.json().data as Array<{ id: string; status: string; customer_email: string }>, statements };
};

describe("the staff's kept order pages", () => {
  it('are sent again after one statement that finds no change, and are the answer the list gives', async () => {
    const first = await page();
    expect(first.statements).toHaveLength(1);
    expect(answersMatch(listOf(OrderOut), JSON.parse(first.body))).toBe(true);
    const again = await page();
    expect(again.statements).toHaveLength(1);
    // The kept page's snapshot is in the statement: only the changes since are looked for.
    expect(again.statements[0]).toMatch(/'\d+:\d+:[\d,]*'::pg_snapshot is not null/);
    expect(again.body).toBe(first.body);
  });

  it('show a change made through the API at once', async () => {
    const before = await page();
    const id = before.data[0].id;
    expect((await caller(t, store)('POST', `${ORDERS}/${id}/cancel`, { reason: 'kept-page test' })).statusCode).toBe(200);
    expect((await page()).data.find((o) => o.id === id)?.status).toBe('cancelled');
  });

  it('show a change written in SQL by another connection, which tells the app nothing', async () => {
    const before = await page();
    const id = before.data[1].id;
    await page();
    await client.query(`update orders_order set customer_email = 'otra@correo.pe' where tenant_id = $1 and id = $2`, [store.id, id]);
    expect((await page()).data.find((o) => o.id === id)?.customer_email).toBe('otra@correo.pe');
  });

  it('show a change whose transaction was open while the page was read and committed after', async () => {
    const id = (await page()).data[2].id;
    await client.query('begin');
    await client.query(`update orders_order set customer_email = 'abierta@correo.pe' where tenant_id = $1 and id = $2`, [store.id, id]);
    // Read (and kept) while the change is not committed: the page does not have it.
    expect((await page()).data.find((o) => o.id === id)?.customer_email).not.toBe('abierta@correo.pe');
    await client.query('commit');
    expect((await page()).data.find((o) => o.id === id)?.customer_email).toBe('abierta@correo.pe');
  });

  it("are never another store's: its staff reads its own orders", async () => {
    await page();
    const neighbour = await t.createTenant();
    expect((await page(neighbour)).data).toEqual([]);
  });

  it("look for the changes since the kept page on the primary key, not through the store's whole hour of them", async () => {
    // A busy hour: thousands of transactions that changed the store's orders, all older than the
    // kept page, and statistics that know it (as autovacuum would have them).
    await client.query(
      `insert into orders_change (tenant_id, xid, changed_at) select $1, g::text::xid8, now() from generate_series(3, 20002) g on conflict do nothing`,
      [store.id],
    );
    await client.query('analyze orders_change');
    await page();
    const { statements } = await page();
    // The statement as the app prepares it (its snapshot and store as parameters), planned once for any of them.
    const snapshot = /'(\d+:\d+:[\d,]*)'::pg_snapshot/.exec(statements[0])![1];
    const [, statement] = /^BEGIN READ ONLY; select set_config\('role', '[a-z_]+', true\), set_config\('app\.tenant_id', '[0-9a-f-]+', true\); (.*); COMMIT$/s.exec(statements[0]) ?? [];
    const prepared = statement.replaceAll(`'${snapshot}'::pg_snapshot`, '$1::pg_snapshot').replaceAll(`'${store.id}'`, '$2::uuid');
    await client.query('begin');
    try {
      await client.query(`select set_config('role', 'qhatu_app', true), set_config('app.tenant_id', $1, true), set_config('plan_cache_mode', 'force_generic_plan', true)`, [store.id]);
      await client.query(`prepare kept_check (text, text) as ${prepared}`);
      const { rows } = await client.query(`explain (analyze, format json) execute kept_check ('${snapshot}', '${store.id}')`);
      const plan = nodesOf(rows[0]['QUERY PLAN'][0].Plan) as Array<PlanNode & { 'Rows Removed by Filter'?: number }>;
      const reads = plan.filter((n) => n['Relation Name'] === 'orders_change');
      expect(reads.length).toBeGreaterThan(0);
      expect(seqScans(reads)).toEqual([]);
      expect(indexesOf(plan).filter((name) => name.startsWith('orders_change'))).toEqual(['orders_change_pkey']);
      for (const read of reads) expect(read['Rows Removed by Filter'] ?? 0).toBeLessThan(100);
    } finally {
      await client.query('rollback');
      await client.query(`delete from orders_change where tenant_id = $1 and xid < '20003'::xid8`, [store.id]);
    }
  });

  it('record one change a store and transaction, and forget those of an hour ago', async () => {
    const count = async () => Number((await client.query('select count(*) from orders_change where tenant_id = $1', [store.id])).rows[0].count);
    const before = await count();
    // One transaction changing three orders of the store: one row.
    await client.query(`update orders_order set updated_at = now() where tenant_id = $1`, [store.id]);
    expect(await count()).toBe(before + 1);
    await client.query(`update orders_change set changed_at = now() - interval '2 hours' where tenant_id = $1 and xid = (select min(xid) from orders_change where tenant_id = $1)`, [store.id]);
    await orders.jobs![PRUNE_CHANGES_JOB].handler(undefined, { container: t.app.container } as JobContext);
    expect(await count()).toBe(before);
  });
});
