import { keyset, pgDate, searchCondition, type KeysetColumn, type Page, type PageRequest, type SqlReader } from '@qhatu/core';
import type { Deal } from '../entities/deal.js';
import type { Lead } from '../entities/lead.js';
import type { Task } from '../entities/task.js';

/**
 * The three big lists (leads, deals, tasks) in plain SQL: one statement per page, on an index
 * whatever the filter and sort (every filter and sort has one, `tenant_id` first; see the
 * migration), and search through core's indexed search (`searchCondition`).
 */

type Row = Record<string, unknown>;
type Condition = [sql: string, ...params: unknown[]];

const LEAD_COLUMNS = `id, tenant_id, owner_id, email, first_name, last_name, phone, company, job_title, source, status, score,
  disqualified_reason, converted_at, converted_contact_id, converted_account_id, converted_deal_id, tags, metadata,
  last_activity_at, created_at, updated_at`;
const DEAL_COLUMNS = `id, tenant_id, pipeline_id, stage_id, contact_id, account_id, owner_id, title, amount, currency, status, probability,
  expected_close, lost_reason, tags, metadata, closed_at, created_at, updated_at, expected_close_sort`;
const TASK_COLUMNS = `id, tenant_id, entity_kind, entity_id, assigned_to, title, description, status, priority, due_at, completed_at,
  created_at, updated_at, priority_rank, due_sort`;

const LEAD_SORTS: Record<string, KeysetColumn> = {
  created_at: { sql: 'created_at', type: 'timestamptz' },
  score: { sql: 'score', type: 'int' },
  last_name: { sql: 'last_name', type: 'text' },
};
const DEAL_SORTS: Record<string, KeysetColumn> = {
  created_at: { sql: 'created_at', type: 'timestamptz' },
  amount: { sql: 'amount', type: 'bigint' },
  expected_close: { sql: 'expected_close_sort', type: 'timestamptz' },
};
const TASK_SORTS: Record<string, KeysetColumn> = {
  created_at: { sql: 'created_at', type: 'timestamptz' },
  due_at: { sql: 'due_sort', type: 'timestamptz' },
  priority: { sql: 'priority_rank', type: 'int' },
};

const DATES = new Set(['created_at', 'updated_at', 'converted_at', 'last_activity_at', 'expected_close', 'closed_at', 'due_at', 'completed_at']);

/** A row as the driver gives it to the entity's shape: `job_title` → `jobTitle`, timestamps to Dates. */
function toEntity<T>(row: Row): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    const property = key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
    out[property] = value !== null && DATES.has(key) ? pgDate(value) : key === 'amount' ? Number(value) : value;
  }
  return out as T;
}

async function page<T extends { id: string }>(
  sql: SqlReader,
  table: string,
  columns: string,
  sorts: Record<string, KeysetColumn>,
  request: PageRequest,
  conditions: Condition[],
): Promise<Page<T>> {
  const where = [`tenant_id = ?`];
  const params: unknown[] = [sql.tenantId];
  for (const [condition, ...values] of conditions) {
    where.push(condition);
    params.push(...values);
  }
  const resume = keyset(request, sorts);
  if (resume.where) {
    where.push(resume.where);
    params.push(...resume.params);
  }
  const rows = await sql.query<Row>(`select ${columns} from ${table} where ${where.join(' and ')} ${resume.tail}`, params);
  // The cursor keeps the sort column's value as the database wrote it (microseconds, infinity).
  const column = sorts[request.sort.replace(/^-/, '')].sql;
  const raw = new Map(rows.map((r) => [r.id as string, r[column]]));
  return resume.finish(rows.map((r) => toEntity<T>(r)), (item) => {
    const value = raw.get(item.id);
    return value instanceof Date ? value.toISOString() : value;
  });
}

export interface LeadFilter {
  status?: string;
  source?: string;
  owner_id?: string;
  search?: string;
}

export function readLeadPage(sql: SqlReader, request: PageRequest, filter: LeadFilter): Promise<Page<Lead>> {
  const conditions: Condition[] = [];
  if (filter.status) conditions.push(['status = ?', filter.status]);
  if (filter.source) conditions.push(['source = ?', filter.source]);
  if (filter.owner_id) conditions.push(['owner_id = ?', filter.owner_id]);
  if (filter.search) conditions.push(searchCondition('crm_lead', filter.search));
  return page<Lead>(sql, 'crm_lead', LEAD_COLUMNS, LEAD_SORTS, request, conditions);
}

export interface DealFilter {
  pipeline_id?: string;
  stage_id?: string;
  owner_id?: string;
  contact_id?: string;
  account_id?: string;
  status?: string;
}

export function readDealPage(sql: SqlReader, request: PageRequest, filter: DealFilter): Promise<Page<Deal>> {
  const conditions: Condition[] = [];
  for (const field of ['pipeline_id', 'stage_id', 'owner_id', 'contact_id', 'account_id', 'status'] as const) {
    if (filter[field]) conditions.push([`${field} = ?`, filter[field]]);
  }
  return page<Deal>(sql, 'crm_deal', DEAL_COLUMNS, DEAL_SORTS, request, conditions);
}

export interface TaskFilter {
  status?: string;
  priority?: string;
  assigned_to?: string;
  entity_kind?: string;
  entity_id?: string;
}

export function readTaskPage(sql: SqlReader, request: PageRequest, filter: TaskFilter): Promise<Page<Task>> {
  const conditions: Condition[] = [];
  for (const field of ['status', 'priority', 'assigned_to', 'entity_kind', 'entity_id'] as const) {
    if (filter[field]) conditions.push([`${field} = ?`, filter[field]]);
  }
  return page<Task>(sql, 'crm_task', TASK_COLUMNS, TASK_SORTS, request, conditions);
}
