import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answersMatch, listOf } from '@qhatu/core';
import { seqScans, type PlanNode, type TestApp, type TestTenant } from '@qhatu/core/testing';
import { CustomerOut } from '../src/schemas/customer.js';
import { caller, createCustomer, customersApp, type CustomerJson } from './helpers.js';

/** Customer search with 30,000 customers in the store: the answers, and the plans under row-level security. */

const CUSTOMERS = 30_000;
const BASE = '/api/v1/customers';
let t: TestApp;
let store: TestTenant;
let other: TestTenant;
let client: pg.Client;

beforeAll(async () => {
  t = await customersApp();
  store = await t.createTenant();
  other = await t.createTenant();
  client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  await client.query(
    `insert into customers_customer (tenant_id, id, email, first_name, last_name, phone, status, created_at, updated_at)
     select $1, gen_random_uuid(), 'cliente' || i || '@correo.pe', 'Nombre' || (i % 997), 'Apellido' || i, '+5190' || lpad(i::text, 7, '0'), 'active',
            timestamptz '2026-01-01' + i * interval '1 minute', timestamptz '2026-01-01' + i * interval '1 minute'
     from generate_series(1, ${CUSTOMERS}) as i`,
    [store.id],
  );
  // As autovacuum leaves it: the trigram index's pending list merged, statistics fresh.
  await client.query('vacuum analyze customers_customer');
  await createCustomer(t, store, { email: 'nunez@andes.pe', first_name: 'Íñigo', last_name: 'Núñez', phone: '+14155550100' });
  await createCustomer(t, other, { email: 'secreto@otra.pe', first_name: 'Íñigo', last_name: 'Secreto' });
}, 180_000);

afterAll(async () => {
  await client?.end();
  await t?.close();
});

const emails = async (q: string) => ((await caller(t, store)('GET', `${BASE}?q=${encodeURIComponent(q)}&sort=email`)).json().data as CustomerJson[]).map((c) => c.email);

describe(`customer search with ${CUSTOMERS.toLocaleString('en')} customers in the store`, () => {
  it('finds words whatever their case and accents, phones by their digits, only in the caller’s store', async () => {
    expect(await emails('inigo NUNEZ')).toEqual(['nunez@andes.pe']);
    expect(await emails('Íñigo')).toEqual(['nunez@andes.pe']);
    expect(await emails('+1 (415) 555')).toEqual(['nunez@andes.pe']);
    expect(await emails('apellido29999')).toEqual(['cliente29999@correo.pe']);
    expect(await emails('secreto')).toEqual([]);
    expect(await emails('nadie-asi')).toEqual([]);
  });

  it('reads indexes under row-level security, never the whole table, whatever the words and the sort', async () => {
    for (const words of ['nadie-asi', 'núñez', 'ñu', 'cliente2999', 'correo', 'nombre1 2']) {
      for (const sort of ['-created_at', 'email', 'first_name']) {
        expect(seqScans(await listPlan(`${BASE}?q=${encodeURIComponent(words)}&sort=${sort}`)), `${words} ${sort}`).toEqual([]);
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

describe('a customer search keeps the list\'s order and pages like it, however many customers match', () => {
  const columns: Record<string, string> = { created_at: 'created_at', email: 'email', first_name: 'first_name' };
  const expected = async (words: string, sort: string) => {
    const column = columns[sort.replace(/^-/, '')];
    const dir = sort.startsWith('-') ? 'desc' : 'asc';
    const { rows } = await client.query(
      `select email from customers_customer where tenant_id = $1 and search_text like all (qhatu_search_patterns($2)) order by ${column} ${dir}, id ${dir} limit 200`,
      [store.id, words],
    );
    return rows.map((r) => r.email as string);
  };
  const pages = async (words: string, sort: string) => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 4; i++) {
      const url = `${BASE}?limit=50&sort=${sort}&q=${encodeURIComponent(words)}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await caller(t, store)('GET', url);
      expect(res.statusCode, url).toBe(200);
      expect(answersMatch(listOf(CustomerOut), res.json()), url).toBe(true);
      seen.push(...(res.json().data as CustomerJson[]).map((c) => c.email));
      cursor = res.json().meta.pagination.cursor;
      if (!cursor) break;
    }
    return seen;
  };
  // "correo" is in every seeded customer (walked), "apellido2999" in 11 (sorted), "cliente1 correo" in
  // 11,111 that all come after the 10,000 newest (walked, then sorted from the index).
  for (const [words, sort] of [['correo', '-created_at'], ['correo', 'email'], ['correo', 'first_name'], ['apellido2999', '-created_at'], ['cliente1 correo', '-created_at'], ['nombre5', '-first_name']]) {
    it(`"${words}" sorted by ${sort}: the customers the table gives, in its order, page after page`, async () => {
      const want = await expected(words, sort);
      expect(want.length).toBeGreaterThan(0);
      expect(await pages(words, sort)).toEqual(want);
    }, 60_000);
  }

  it('lists each customer exactly as reading it shows it', async () => {
    const listed = (await caller(t, store)('GET', `${BASE}?limit=5`)).json().data as CustomerJson[];
    for (const customer of [...listed, ...(await caller(t, store)('GET', `${BASE}?q=nunez`)).json().data]) {
      expect(customer).toEqual((await caller(t, store)('GET', `${BASE}/${customer.id}`)).json().data);
    }
  });

  it('finds none of another store\'s customers, and none of this store\'s from the other', async () => {
    expect((await caller(t, other)('GET', `${BASE}?q=correo`)).json().data).toEqual([]);
    expect((await caller(t, other)('GET', `${BASE}?q=secreto`)).json().data.map((c: CustomerJson) => c.email)).toEqual(['secreto@otra.pe']);
  });
});
