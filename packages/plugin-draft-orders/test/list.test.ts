import pg from 'pg';
import { APP_ROLE, Database } from '@qhatu/core';
import { indexesOf, searchPlan, seqScans, type PlanNode, type TestApp, type TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, customer, draftApp, DRAFTS, expectError, ok, taxedStore, type Caller, type Draft } from './helpers.js';

// The list: filters by status, customer and created range, search by e-mail and draft number,
// keyset pages in each sort; and, with 20,000 drafts in the store, an index behind every one.
let t: TestApp;
let admin: Caller;
let big: TestTenant;
let client: pg.Client;
const BIG = 20_000;

beforeAll(async () => {
  t = await draftApp();
  ({ admin } = await taxedStore(t, { includeTax: true, rates: false }));
  big = await t.createTenant({ currency: 'PEN' });
  client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  await client.query(
    `insert into draft_orders_draft (tenant_id, id, number, status, customer_id, email, currency, created_at, updated_at)
     select $1, gen_random_uuid(), i, (array['open', 'invoice_sent', 'completed', 'cancelled'])[1 + i % 4],
            case when i % 10 = 0 then gen_random_uuid() end, 'cliente' || i || '@correo.pe', 'PEN',
            timestamptz '2026-01-01' + i * interval '1 minute', timestamptz '2026-01-01' + i * interval '1 minute'
       from generate_series(1, $2::int) as i`,
    [big.id, BIG],
  );
  await client.query('insert into draft_orders_counter (tenant_id, last_number) values ($1, $2)', [big.id, BIG]);
  await client.query('vacuum analyze draft_orders_draft');
}, 120_000);
afterAll(async () => {
  await client?.end();
  await t?.close();
});

const ids = (res: { json(): { data: Draft[] } }) => res.json().data.map((d) => d.id);

describe('the list', () => {
  it('filters by status, customer and created range, and finds an e-mail or a draft number', async () => {
    const rosa = await customer(admin, 'rosa.quispe@andes.pe');
    const a = await ok(await admin('POST', DRAFTS, { customer_id: rosa.id }), 201);
    const b = await ok(await admin('POST', DRAFTS, { email: 'luis@example.com', line_items: [{ title: 'Repair', unit_price: 100, quantity: 1, requires_shipping: false }] }), 201);
    const c = await ok(await admin('POST', DRAFTS, { email: 'ana@example.com' }), 201);
    await ok(await admin('POST', `${DRAFTS}/${b.id}/send-invoice`, { notify: false }), 200);
    await ok(await admin('POST', `${DRAFTS}/${c.id}/cancel`), 200);

    expect(ids(await admin('GET', `${DRAFTS}?filter[status]=invoice_sent`))).toEqual([b.id]);
    expect(ids(await admin('GET', `${DRAFTS}?filter[status]=cancelled`))).toEqual([c.id]);
    expect(ids(await admin('GET', `${DRAFTS}?filter[customer_id]=${rosa.id}`))).toEqual([a.id]);
    expect(ids(await admin('GET', `${DRAFTS}?filter[created_from]=${encodeURIComponent(b.created_at)}&sort=created_at`))).toEqual([b.id, c.id]);
    expect(ids(await admin('GET', `${DRAFTS}?filter[created_to]=${encodeURIComponent(b.created_at)}`))).toEqual([a.id]);
    expect(ids(await admin('GET', `${DRAFTS}?q=QUISPE`))).toEqual([a.id]);
    expect(ids(await admin('GET', `${DRAFTS}?q=D${b.number}`))).toEqual([b.id]);
    expect(ids(await admin('GET', `${DRAFTS}?q=${encodeURIComponent(`#D${c.number}`)}`))).toEqual([c.id]);
    expect(ids(await admin('GET', `${DRAFTS}?q=nobody-here`))).toEqual([]);
    expect(ids(await admin('GET', `${DRAFTS}?sort=number`))).toEqual([a.id, b.id, c.id]);
    expect(ids(await admin('GET', `${DRAFTS}?sort=-number`))).toEqual([c.id, b.id, a.id]);

    expectError(await admin('GET', `${DRAFTS}?filter[status]=lost`), 400, 'VALIDATION_ERROR');
    expectError(await admin('GET', `${DRAFTS}?filter[created_from]=yesterday`), 400, 'VALIDATION_ERROR');
    expectError(await admin('GET', `${DRAFTS}?filter[email]=x`), 400, 'VALIDATION_ERROR');
    expectError(await admin('GET', `${DRAFTS}?sort=total`), 400, 'VALIDATION_ERROR');
  });

  it('pages by keyset in each sort: every draft once, stable under inserts, a cursor bound to its sort', async () => {
    const store = caller(t, big);
    for (const sort of ['-created_at', 'number']) {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res = await store('GET', `${DRAFTS}?filter[status]=open&limit=100&sort=${sort}${cursor ? `&cursor=${cursor}` : ''}`);
        const body = res.json();
        seen.push(...body.data.map((d: Draft) => d.id));
        cursor = body.meta.pagination.cursor;
        if (pages === 0) await ok(await store('POST', DRAFTS, { email: 'late@example.com' }), 201);
        pages += 1;
      } while (cursor && pages < 60);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.length).toBeGreaterThanOrEqual(BIG / 4);
    }
    const first = (await store('GET', `${DRAFTS}?limit=2&sort=number`)).json();
    expectError(await store('GET', `${DRAFTS}?limit=2&sort=-created_at&cursor=${first.meta.pagination.cursor}`), 400, 'VALIDATION_ERROR');
  });
});

/** The plans of the statements a list request sends on draft_orders_draft, under row-level security. */
async function listPlans(tenant: TestTenant, query: string): Promise<PlanNode[][]> {
  const sent: Array<{ sql: string; params: unknown[] }> = [];
  const knex = t.app.orm.em.getConnection().getKnex();
  const reads = t.app.container.resolve(Database).statements;
  const onQuery = (q: { sql: string; bindings?: unknown[] }) => sent.push({ sql: q.sql, params: q.bindings ?? [] });
  const onRead = (sql: string, params?: unknown[]) => sent.push({ sql, params: params ?? [] });
  knex.on('query', onQuery);
  reads.on('statement', onRead);
  try {
    expect((await caller(t, tenant)('GET', `${DRAFTS}?${query}`)).statusCode).toBe(200);
  } finally {
    knex.off('query', onQuery);
    reads.off('statement', onRead);
  }
  const plans: PlanNode[][] = [];
  for (const s of sent.filter((x) => /from "draft_orders_draft"/.test(x.sql))) {
    let n = 0;
    const sql = /\$1\b/.test(s.sql) ? s.sql : s.sql.replace(/\?/g, () => `$${++n}`);
    await client.query('begin');
    await client.query(`select set_config('role', '${APP_ROLE}', true), set_config('app.tenant_id', $1, true)`, [tenant.id]);
    const { rows } = await client.query(`explain (format json) ${sql}`, s.params);
    await client.query('rollback');
    const nodes = (p: PlanNode): PlanNode[] => [p, ...(p.Plans ?? []).flatMap(nodes)];
    plans.push(nodes((rows[0] as { 'QUERY PLAN': Array<{ Plan: PlanNode }> })['QUERY PLAN'][0].Plan));
  }
  expect(plans.length).toBeGreaterThan(0);
  return plans;
}

describe(`with ${BIG.toLocaleString('en')} drafts in the store`, () => {
  it('reads an index for every filter and sort, never the whole table', async () => {
    const [{ id: someone }] = (await client.query('select customer_id as id from draft_orders_draft where tenant_id = $1 and customer_id is not null limit 1', [big.id])).rows;
    const queries: Array<[string, string]> = [
      ['sort=-created_at', 'draft_orders_draft_created'],
      ['sort=number', 'draft_orders_draft_number'],
      ['sort=-number', 'draft_orders_draft_number'],
      ['filter[status]=completed', 'draft_orders_draft_status'],
      ['filter[status]=open&filter[created_from]=2026-01-05T00:00:00Z&filter[created_to]=2026-01-06T00:00:00Z', 'draft_orders_draft_status'],
      [`filter[customer_id]=${someone}`, 'draft_orders_draft_customer'],
      ['filter[created_from]=2026-01-10T00:00:00Z&sort=created_at', 'draft_orders_draft_created'],
    ];
    for (const [query, index] of queries) {
      const plans = await listPlans(big, query);
      expect(plans.flatMap(seqScans), query).toEqual([]);
      expect(plans.flatMap(indexesOf), query).toContain(index);
    }
  }, 60_000);

  it('searches the e-mail on its trigram index, a number on its own', async () => {
    for (const words of ['cliente1234@', 'D1234']) {
      const plan = await searchPlan(t, { table: 'draft_orders_draft', tenantId: big.id, words, request: () => caller(t, big)('GET', `${DRAFTS}?q=${encodeURIComponent(words)}`) });
      expect(seqScans(plan.list), words).toEqual([]);
      expect(seqScans(plan.matches), words).toEqual([]);
      expect(indexesOf(plan.matches), words).toContain('draft_orders_draft_search');
      if (words === 'D1234') expect(indexesOf(plan.list), words).toContain('draft_orders_draft_number');
    }
    expect((await caller(t, big)('GET', `${DRAFTS}?q=cliente1234@`)).json().data.map((d: Draft) => d.number)).toEqual([1234]);
  }, 60_000);
});
