import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ROLE, type PageRequest, type SqlReader } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { readDealPage, readLeadPage, readTaskPage, type LeadFilter } from '../src/services/reads.js';
import { crmApp, crmCaller, ok, staffMember } from './helpers.js';

/**
 * 100,000 leads in one store, written in one SQL statement, then the plan of every list the API
 * offers: each filter and sort, first and later pages, searched or not. Each must read an index
 * of crm_lead, never scan the table, and cost one statement a page.
 */

const LEADS = 100_000;
let t: TestApp;
let store: TestTenant;
let client: pg.Client;
let owner: string;

beforeAll(async () => {
  t = await crmApp();
  store = await t.createTenant();
  owner = (await staffMember(t, store)).id;
  client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  await client.query(
    `insert into crm_lead (tenant_id, id, owner_id, email, first_name, last_name, company, job_title, source, status, score, created_at, updated_at)
     select $1, gen_random_uuid(),
            case when i % 50 = 0 then $2::uuid end,
            'lead' || i || '@example.com',
            'Nombre' || (i % 997),
            case when i % 5000 = 0 then 'Rojás' else 'Apellido' || i end,
            'Empresa ' || (i % 1000),
            case i % 3 when 0 then 'Gerente' when 1 then 'Analista' else null end,
            (array['manual', 'import', 'api', 'web_form'])[1 + i % 4],
            (array['new', 'new', 'new', 'working', 'mql', 'sql', 'converted', 'disqualified'])[1 + i % 8],
            i % 91,
            timestamptz '2026-01-01' + i * interval '1 minute',
            timestamptz '2026-01-01' + i * interval '1 minute'
     from generate_series(1, ${LEADS}) as i`,
    [store.id, owner],
  );
  await client.query('analyze crm_lead');
}, 180_000);

afterAll(async () => {
  await client?.end();
  await t?.close();
});

type PlanNode = { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; Plans?: PlanNode[] };
const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

type PageReader<F> = (sql: SqlReader, page: PageRequest, filter: F) => Promise<unknown>;

/** The plan of the statement a list reader sends for this page, planned as a tenant transaction is. */
async function planOf<F>(page: PageRequest, filter: F, read: PageReader<F> = readLeadPage as unknown as PageReader<F>): Promise<{ sql: string[]; nodes: PlanNode[] }> {
  const sent: string[] = [];
  let plan: PlanNode | undefined;
  await client.query('begin');
  try {
    await client.query(`select set_config('role', '${APP_ROLE}', true), set_config('app.tenant_id', $1, true)`, [store.id]);
    const reader: SqlReader = {
      tenantId: store.id,
      async query(sql, params = []) {
        let n = 0;
        const numbered = sql.replace(/\?/g, () => `$${++n}`);
        sent.push(numbered);
        const { rows } = await client.query(`explain (format json) ${numbered}`, params);
        plan = (rows[0] as { 'QUERY PLAN': Array<{ Plan: PlanNode }> })['QUERY PLAN'][0].Plan;
        return [];
      },
    };
    await read(reader, page, filter);
  } finally {
    await client.query('rollback');
  }
  return { sql: sent, nodes: nodes(plan!) };
}

const SORTS = ['-created_at', 'created_at', '-score', 'score', 'last_name', '-last_name'];
const FILTERS: Array<[string, LeadFilter]> = [
  ['no filter', {}],
  ['status', { status: 'sql' }],
  ['source', { source: 'web_form' }],
  ['owner', { owner_id: '' }],
  ['search', { search: 'rojas' }],
  ['search and status', { search: 'ROJÁS', status: 'new' }],
  ['status, source and owner', { status: 'new', source: 'api', owner_id: '' }],
];

describe(`the lead list with ${LEADS.toLocaleString('en')} leads in one store`, () => {
  it('answers every filter and sort, on every page, from an index of crm_lead and never a sequential scan', async () => {
    const call = crmCaller(t, store);
    for (const sort of SORTS) {
      for (const [name, raw] of FILTERS) {
        const filter = { ...raw, ...(raw.owner_id !== undefined ? { owner_id: owner } : {}) };
        const query = new URLSearchParams({ sort, limit: '25' });
        for (const [key, value] of Object.entries(filter)) query.set(key === 'search' ? 'search' : `filter[${key}]`, value as string);
        // The first page through the API, then the plan of the first and of the next page.
        const first = await call('GET', `/leads?${query}`);
        expect(first.statusCode, first.body).toBe(200);
        const cursor = first.json().meta.pagination.cursor as string | null;
        for (const page of [{ sort, limit: 25 }, ...(cursor ? [{ sort, limit: 25, cursor }] : [])]) {
          const { sql, nodes } = await planOf(page, filter);
          const where = `${sort} / ${name}${'cursor' in page ? ' / next page' : ''}`;
          expect(sql, where).toHaveLength(1);
          expect(nodes.filter((n) => n['Node Type'] === 'Seq Scan').map((n) => n['Relation Name']), where).toEqual([]);
          const indexes = nodes.filter((n) => /Index/.test(n['Node Type'])).map((n) => n['Index Name']);
          expect(indexes.length, where).toBeGreaterThan(0);
          expect(indexes.every((i) => i?.startsWith('crm_lead_')), `${where}: ${indexes}`).toBe(true);
          // Search takes the store's matches from crm_lead_matches, which reads the trigram index.
          if (filter.search) expect(sql[0], where).toContain('crm_lead_matches(');
        }
      }
    }
  }, 120_000);

  it("searches through the trigram index of the accent-folded text, as crm_lead_matches runs it", async () => {
    // The function's statement, planned as it is: by the table's owner, the store and pattern as literals.
    for (const words of ['rojas', 'empresa 999', 'lead4242']) {
      const { rows } = await client.query(`explain (format json) select id from crm_lead where tenant_id = '${store.id}' and search_text like '%${words}%'`);
      const plan = nodes((rows[0] as { 'QUERY PLAN': Array<{ Plan: PlanNode }> })['QUERY PLAN'][0].Plan);
      expect(plan.filter((n) => n['Node Type'] === 'Seq Scan'), words).toEqual([]);
      expect(plan.map((n) => n['Index Name']), words).toContain('crm_lead_search');
    }
    // Bound to the transaction's store: without one it finds nothing, whatever the words.
    const { rows } = await client.query(`select count(*)::int as n from crm_lead_matches('rojas')`);
    expect(rows[0].n).toBe(0);
  });

  it('answers every filter and sort of deals and tasks from their indexes too', async () => {
    const rows = 50_000;
    const [pipeline] = (await client.query(`select id from crm_pipeline where tenant_id = $1`, [store.id])).rows;
    const pipelineId = pipeline?.id ?? (await ok(crmCaller(t, store)('GET', '/pipelines')))[0].id;
    const stages = (await client.query(`select id from crm_stage where tenant_id = $1 and pipeline_id = $2 order by position`, [store.id, pipelineId])).rows.map((r) => r.id as string);
    await client.query(
      `insert into crm_deal (tenant_id, id, pipeline_id, stage_id, owner_id, title, amount, currency, status, probability, expected_close, created_at, updated_at)
       select $1, gen_random_uuid(), $2, ($3::uuid[])[1 + i % 5], case when i % 50 = 0 then $4::uuid end, 'Deal ' || i, i * 100, 'PEN',
              (array['open', 'open', 'won', 'lost'])[1 + i % 4], 10, case when i % 3 > 0 then timestamptz '2027-01-01' + i * interval '1 hour' end,
              timestamptz '2026-01-01' + i * interval '1 minute', timestamptz '2026-01-01' + i * interval '1 minute'
       from generate_series(1, ${rows}) as i`,
      [store.id, pipelineId, stages, owner],
    );
    await client.query(
      `insert into crm_task (tenant_id, id, entity_kind, entity_id, assigned_to, title, status, priority, due_at, created_at, updated_at)
       select $1, gen_random_uuid(), (array['contact', 'account', 'deal', 'lead'])[1 + i % 4], gen_random_uuid(), case when i % 50 = 0 then $2::uuid end, 'Task ' || i,
              (array['open', 'open', 'completed', 'cancelled'])[1 + i % 4], (array['low', 'medium', 'high', 'urgent'])[1 + i % 4],
              case when i % 3 > 0 then timestamptz '2027-01-01' + i * interval '1 hour' end,
              timestamptz '2026-01-01' + i * interval '1 minute', timestamptz '2026-01-01' + i * interval '1 minute'
       from generate_series(1, ${rows}) as i`,
      [store.id, owner],
    );
    await client.query('analyze crm_deal; analyze crm_task');
    const [someDeal] = (await client.query(`select contact_id, id from crm_deal where tenant_id = $1 limit 1`, [store.id])).rows;
    const checks: Array<[string, PageReader<any>, string[], Array<Record<string, string>>]> = [
      ['deals', readDealPage, ['-created_at', 'amount', '-amount', '-expected_close', 'expected_close'], [
        {}, { pipeline_id: pipelineId }, { stage_id: stages[1] }, { owner_id: owner }, { contact_id: someDeal.id }, { account_id: someDeal.id }, { status: 'won' }, { status: 'open', owner_id: owner },
      ]],
      ['tasks', readTaskPage, ['-created_at', 'due_at', '-due_at', 'priority', '-priority'], [
        {}, { status: 'open' }, { priority: 'urgent' }, { assigned_to: owner }, { entity_kind: 'deal' }, { entity_kind: 'lead', entity_id: someDeal.id }, { status: 'open', assigned_to: owner },
      ]],
    ];
    for (const [list, read, sorts, filters] of checks) {
      for (const sort of sorts) {
        for (const filter of filters) {
          const { nodes } = await planOf({ sort, limit: 25 }, filter, read);
          const where = `${list} ${sort} ${JSON.stringify(filter)}`;
          expect(nodes.filter((n) => n['Node Type'] === 'Seq Scan').map((n) => n['Relation Name']), where).toEqual([]);
          expect(nodes.some((n) => /Index/.test(n['Node Type'])), where).toBe(true);
        }
      }
    }
  }, 120_000);

  it('finds the accented names among them, and pages in one statement besides the transaction', async () => {
    const call = crmCaller(t, store);
    const found = (await ok(call('GET', '/leads?search=rojas&limit=100'))) as Array<{ last_name: string }>;
    expect(found).toHaveLength(LEADS / 5000);
    expect(new Set(found.map((l) => l.last_name))).toEqual(new Set(['Rojás']));
    for (const query of ['', '?sort=-score&filter[status]=sql', '?sort=last_name&filter[source]=api', `?filter[owner_id]=${owner}&sort=-score`, '?search=empresa%20999&sort=-created_at']) {
      const first = await call('GET', `/leads${query}`);
      const cursor = first.json().meta.pagination.cursor;
      const next = `/leads${query}${query ? '&' : '?'}cursor=${cursor}`;
      const { result, count, statements } = await t.countQueries(() => call('GET', next));
      expect(result.statusCode, result.body).toBe(200);
      expect(result.json().data).toHaveLength(25);
      // BEGIN (with the store entered), the page, COMMIT
      expect(count, statements.join('\n')).toBe(3);
    }
  }, 60_000);
});
