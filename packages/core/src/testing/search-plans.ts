import pg from 'pg';
import { Database } from '../db/database.js';
import { APP_ROLE } from '../db/migrations.js';
import type { TestApp } from './index.js';

/** A node of an `EXPLAIN (FORMAT JSON)` plan. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

export interface SearchPlan {
  /** The statement the list sent with the store's matches in it. */
  sql: string;
  /** Every node of its plan, as the app role plans it in the store's transaction. */
  list: PlanNode[];
  /** Every node of the plan of the statement `<table>_matches` runs, as the table's owner. */
  matches: PlanNode[];
}

/** Every node of a plan, the plan's own first. */
export const nodesOf = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];
const numbered = (sql: string) => (/\$1\b/.test(sql) ? sql : ((n) => sql.replace(/\?/g, () => `$${++n}`))(0));

/**
 * The plans of a search request: `request` runs through the API while its statements are
 * recorded; the one that calls `<table>_matches` is explained under row-level security (the app
 * role, the store entered), and so is the statement that function runs with the words. Without
 * `tenantId` (a platform list, core_tenant) both are explained as the owner, who runs them.
 */
export async function searchPlan(t: TestApp, options: { table: string; tenantId?: string; words: string; request: () => Promise<unknown> }): Promise<SearchPlan> {
  const { table, tenantId, words } = options;
  const sent: Array<{ sql: string; params: unknown[] }> = [];
  const knex = t.app.orm.em.getConnection().getKnex();
  const reads = t.app.container.resolve(Database).statements;
  const onQuery = (q: { sql: string; bindings?: unknown[] }) => sent.push({ sql: q.sql, params: q.bindings ?? [] });
  const onRead = (sql: string, params?: unknown[]) => sent.push({ sql, params: params ?? [] });
  knex.on('query', onQuery);
  reads.on('statement', onRead);
  try {
    await options.request();
  } finally {
    knex.off('query', onQuery);
    reads.off('statement', onRead);
  }
  const statement = sent.find((s) => s.sql.includes(`${table}_matches(`));
  if (!statement) throw new Error(`No statement called ${table}_matches:\n${sent.map((s) => s.sql).join('\n')}`);
  const client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  const explain = async (sql: string, params: unknown[] = []) => {
    const { rows } = await client.query(`explain (format json) ${sql}`, params);
    return nodesOf((rows[0] as { 'QUERY PLAN': Array<{ Plan: PlanNode }> })['QUERY PLAN'][0].Plan);
  };
  try {
    await client.query('begin');
    if (tenantId) await client.query(`select set_config('role', '${APP_ROLE}', true), set_config('app.tenant_id', $1, true)`, [tenantId]);
    const list = await explain(numbered(statement.sql), statement.params);
    await client.query('rollback');
    const [{ filter }] = (await client.query('select qhatu_search_filter($1) as filter', [words])).rows;
    const matches = await explain(`select id from ${table} where ${tenantId ? `tenant_id = '${tenantId}' and ` : ''}${filter}`);
    return { sql: statement.sql, list, matches };
  } finally {
    await client.end();
  }
}

/** The tables a plan reads sequentially; an indexed search has none. */
export const seqScans = (nodes: PlanNode[]) => nodes.filter((n) => n['Node Type'] === 'Seq Scan').map((n) => n['Relation Name']);
/** The indexes a plan reads. */
export const indexesOf = (nodes: PlanNode[]) => nodes.map((n) => n['Index Name']).filter(Boolean) as string[];
