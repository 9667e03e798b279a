import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answersMatch, listOf } from '@qhatu/core';
import { indexesOf, seqScans, type PlanNode, type TestApp, type TestTenant } from '@qhatu/core/testing';
import { OrderOut } from '../src/schemas/order.js';
import { caller, ORDERS, ordersApp } from './helpers.js';

/**
 * Order search with 30,000 orders in the store: the customer's e-mail and name (accents and case
 * folded), the order's number, only the caller's store; and the plans under row-level security.
 */

const ORDER_COUNT = 30_000;
let t: TestApp;
let store: TestTenant;
let other: TestTenant;
let client: pg.Client;

const insertOrders = (tenantId: string, from: number, to: number, email: string, name: string) =>
  client.query(
    `insert into orders_order (tenant_id, id, number, status, customer_email, customer_name, currency, subtotal, total, created_at, updated_at)
     select $1, gen_random_uuid(), 1000 + i, 'pending', replace($2, '#', i::text), replace($3, '#', i::text), 'PEN', 1000, 1000,
            timestamptz '2026-01-01' + i * interval '1 minute', timestamptz '2026-01-01' + i * interval '1 minute'
     from generate_series($4::int, $5::int) as i`,
    [tenantId, email, name, from, to],
  );

beforeAll(async () => {
  t = await ordersApp();
  store = await t.createTenant();
  other = await t.createTenant();
  client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  await insertOrders(store.id, 1, ORDER_COUNT, 'comprador#@correo.pe', 'Cliente #');
  await insertOrders(store.id, ORDER_COUNT + 1, ORDER_COUNT + 1, 'rosa@andes.pe', 'Rosa Quispe Mamani');
  await insertOrders(other.id, 1, 1, 'secreto@otra.pe', 'Rosa Secreta');
  // As autovacuum leaves it: the trigram index's pending list merged, statistics fresh.
  await client.query('vacuum analyze orders_order');
}, 180_000);

afterAll(async () => {
  await client?.end();
  await t?.close();
});

const numbers = async (q: string) =>
  ((await caller(t, store)('GET', `${ORDERS}?q=${encodeURIComponent(q)}`)).json().data as Array<{ number: number }>).map((o) => o.number);

describe(`order search with ${ORDER_COUNT.toLocaleString('en')} orders in the store`, () => {
  it('finds the customer’s words whatever their case and accents, and an order by its number', async () => {
    expect(await numbers('ROSA quispe')).toEqual([1000 + ORDER_COUNT + 1]);
    expect(await numbers('mamaní')).toEqual([1000 + ORDER_COUNT + 1]);
    expect(await numbers('comprador29999@')).toEqual([1000 + 29_999]);
    expect(await numbers('#1042')).toEqual([1042]);
    expect(await numbers('1042')).toContain(1042); // and the orders of customers with 1042 in their e-mail or name
    expect(await numbers('secreta')).toEqual([]);
    expect(await numbers('nadie-asi')).toEqual([]);
  });

  it('reads indexes under row-level security, never the whole table (and the number’s index for a number)', async () => {
    for (const words of ['nadie-asi', 'rosa quispe', 'ma', '1042', 'correo']) {
      for (const sort of ['-created_at', 'number', '-total']) {
        const plan = await listPlan(`${ORDERS}?q=${encodeURIComponent(words)}&sort=${sort}`);
        const where = `${words} ${sort}`;
        expect(seqScans(plan), where).toEqual([]);
        if (words === '1042') expect(indexesOf(plan), where).toContain('orders_order_number');
      }
    }
  }, 60_000);
});

/** Every node of the plan of the one statement a list sent, explained under row-level security in the store. */
async function listPlan(url: string): Promise<PlanNode[]> {
  const { statements } = await t.countQueries(() => caller(t, store)('GET', url));
  const [, statement] = /^BEGIN READ ONLY; select set_config\('role', '[a-z_]+', true\), set_config\('app\.tenant_id', '[0-9a-f-]+', true\); (.*); COMMIT$/s.exec(statements[0]) ?? [];
  if (!statement || statements.length !== 1) throw new Error(`Not one round trip: ${statements.join('\n')}`);
  await client.query('begin');
  try {
    await client.query(`select set_config('role', 'qhatu_app', true), set_config('app.tenant_id', $1, true)`, [store.id]);
    const { rows } = await client.query(`explain (format json) ${statement}`);
    const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];
    return nodes(rows[0]['QUERY PLAN'][0].Plan);
  } finally {
    await client.query('rollback');
  }
}

describe('an order search keeps the list\'s order and pages like it, however many orders match', () => {
  const expected = async (words: string, sort: string, number?: number) => {
    const column = sort.replace(/^-/, '');
    const dir = sort.startsWith('-') ? 'desc' : 'asc';
    const { rows } = await client.query(
      `select number from orders_order where tenant_id = $1 and (search_text like all (qhatu_search_patterns($2)) or number = $3)
       order by ${column} ${dir}, id ${dir} limit 150`,
      [store.id, words, number ?? -1],
    );
    return rows.map((r) => r.number as number);
  };
  const pages = async (words: string, sort: string) => {
    const seen: number[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 3; i++) {
      const url = `${ORDERS}?limit=50&sort=${sort}&q=${encodeURIComponent(words)}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await caller(t, store)('GET', url);
      expect(res.statusCode, url).toBe(200);
      expect(answersMatch(listOf(OrderOut), res.json()), url).toBe(true);
      seen.push(...(res.json().data as Array<{ number: number }>).map((o) => o.number));
      cursor = res.json().meta.pagination.cursor;
      if (!cursor) break;
    }
    return seen;
  };
  // "correo" is in every order but one (walked), "rosa" in one (sorted), "comprador1 correo" in 11,111
  // that all come after the 10,000 newest (walked, then sorted from the index), "12" also by its number.
  for (const [words, sort, number] of [['correo', '-created_at'], ['correo', 'number'], ['correo', '-total'], ['rosa', '-created_at'], ['comprador1 correo', '-created_at'], ['12', '-created_at', 12]] as Array<[string, string, number?]>) {
    it(`"${words}" sorted by ${sort}: the orders the table gives, in its order, page after page`, async () => {
      const want = await expected(words, sort, number);
      expect(want.length).toBeGreaterThan(0);
      expect(await pages(words, sort)).toEqual(want);
    }, 60_000);
  }

  it('lists a page of 25 orders with their lines in one round trip, searched or not', async () => {
    for (const url of [`${ORDERS}?limit=25`, `${ORDERS}?limit=25&q=correo`, `${ORDERS}?limit=25&q=%231042`]) {
      const { count } = await t.countQueries(() => caller(t, store)('GET', url));
      expect(count, url).toBe(1);
    }
  });

  it('finds none of another store\'s orders', async () => {
    expect((await caller(t, other)('GET', `${ORDERS}?q=correo`)).json().data).toEqual([]);
    expect((await caller(t, other)('GET', `${ORDERS}?q=1042`)).json().data).toEqual([]);
    expect((await caller(t, other)('GET', `${ORDERS}?q=secreta`)).json().data.map((o: { number: number }) => o.number)).toEqual([1001]);
  });
});
