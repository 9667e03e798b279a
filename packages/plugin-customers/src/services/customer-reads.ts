import { encodeCursor, keyset, searchPage, type KeysetColumn, type Page, type PageRequest, type SqlPart, type SqlReader } from '@qhatu/core';
import type { z } from 'zod';
import type { CustomerOut } from '../schemas/customer.js';
import type { CustomerFilter } from './customers.js';

/**
 * The customer list in plain SQL: the page and its JSON in one statement, one round trip, in the
 * list's keyset order with or without `q` (decision 0082).
 */

const SORTS: Record<string, KeysetColumn> = {
  created_at: { sql: 'created_at', type: 'timestamptz' },
  email: { sql: 'email', type: 'text' },
  first_name: { sql: 'first_name', type: 'text' },
};

const COLUMNS = 'tenant_id, id, email, first_name, last_name, phone, accepts_marketing, locale, tags, status, custom_fields, created_at, updated_at';
const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

// As `customerOut` shows a customer: absent names (stored '') as null; `key` is the sort's value, for the cursor.
const customerJson = (key: string) => `json_build_object('id', c.id, 'email', c.email, 'first_name', nullif(c.first_name, ''),
  'last_name', nullif(c.last_name, ''), 'phone', c.phone, 'accepts_marketing', c.accepts_marketing, 'locale', c.locale, 'tags', c.tags, 'status', c.status,
  'has_account', exists (select 1 from customers_credential k where k.tenant_id = c.tenant_id and k.customer_id = c.id),
  'created_at', ${iso('c.created_at')}, 'updated_at', ${iso('c.updated_at')}, 'custom_fields', c.custom_fields, 'key', ${key})`;

/** A customer as the list answers it (`CustomerOut`), custom fields as stored until presented. */
export type CustomerJson = Omit<z.output<typeof CustomerOut>, 'custom_fields'> & { custom_fields: unknown };

/**
 * Words written like a phone number (`+1-415`, `(01) 555`) are searched by their digits, as the
 * phone is kept without its `+` in the searched text.
 */
export function searchWords(q: string): string {
  return q
    .split(/\s+/)
    .map((word) => (/\d/.test(word) && /^[+\d().-]+$/.test(word) ? word.replace(/\D/g, '') : word))
    .join(' ');
}

export async function readCustomerPage(
  sql: SqlReader,
  page: PageRequest,
  filter: CustomerFilter & { conditions: SqlPart[] },
): Promise<{ items: CustomerJson[]; pagination: Page<unknown>['pagination'] }> {
  const desc = page.sort.startsWith('-');
  const field = page.sort.replace(/^-/, '');
  const column = SORTS[field];
  const resume = keyset(page, SORTS);
  const conditions: SqlPart[] = [{ sql: 'tenant_id = ?', params: [sql.tenantId] }];
  if (filter.status) conditions.push({ sql: 'status = ?', params: [filter.status] });
  conditions.push(...filter.conditions);
  if (resume.where) conditions.push({ sql: resume.where, params: resume.params });
  const statement = filter.q
    ? searchPage({ table: 'customers_customer', words: searchWords(filter.q), columns: COLUMNS, conditions, order: { column: column.sql, desc }, limit: page.limit + 1 })
    : { sql: `select ${COLUMNS} from customers_customer where ${conditions.map((c) => `(${c.sql})`).join(' and ')} ${resume.tail}`, params: conditions.flatMap((c) => c.params) };
  const dir = desc ? 'desc' : 'asc';
  const key = column.type === 'timestamptz' ? iso(`c.${column.sql}`) : `c.${column.sql}`;
  const [row] = await sql.query<{ items: string }>(
    `select coalesce(json_agg(${customerJson(key)} order by c.${column.sql} ${dir}, c.id ${dir}), '[]')::text as items from (${statement.sql}) c`,
    statement.params,
  );
  const rows = JSON.parse(row.items) as Array<CustomerJson & { key: unknown }>;
  const hasNext = rows.length > page.limit;
  const items = hasNext ? rows.slice(0, page.limit) : rows;
  const last = items[items.length - 1];
  const cursor = hasNext ? encodeCursor({ s: page.sort, v: last.key, i: last.id }) : null;
  for (const item of items) delete (item as { key?: unknown }).key;
  return { items, pagination: { cursor, has_next: hasNext, limit: page.limit } };
}
