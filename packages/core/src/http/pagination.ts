import type { EntityManager, EntityName, FilterQuery } from '@mikro-orm/postgresql';
import { z, type ZodType } from 'zod';
import { AppError } from '../errors.js';
import { isUuid } from './schemas.js';
import { LOCALE_PARAMETER, LocaleTag } from '../translations/locales.js';

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;

export interface ListQueryOptions<F extends Record<string, ZodType>> {
  filters?: F;
  /** Sortable fields (API names); `-field` sorts descending. */
  sorts: readonly string[];
  defaultSort: string;
  /** Accepts `q`, a free-text search. */
  search?: boolean;
  /** Accepts `locale`, the language of a translated answer (decision 0089). */
  locale?: boolean;
  maxLimit?: number;
}

type FilterKeys<F> = { [K in keyof F & string as `filter[${K}]`]?: z.output<F[K]> };

function limitSchema(max: number) {
  return z.coerce
    .number({ message: 'must be a whole number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .default(DEFAULT_LIMIT)
    .transform((n) => Math.min(n, max))
    .meta({ description: `Page size; default ${DEFAULT_LIMIT}, values above ${max} are clamped to ${max}` });
}

/** `cursor` and `limit` only: a list whose order is not the caller's choice. */
export function pageQuery(maxLimit = MAX_LIMIT) {
  return z.strictObject({ cursor: z.string().min(1).max(512).optional(), limit: limitSchema(maxLimit) });
}

/**
 * The query-string schema of a list: `cursor`, `limit` (default 25, clamped at the maximum),
 * `sort`, `q` and `filter[...]`. Anything else, an unknown filter included, is a 400.
 */
export function listQuery<F extends Record<string, ZodType> = {}>(options: ListQueryOptions<F>) {
  const max = options.maxLimit ?? MAX_LIMIT;
  const sortValues = options.sorts.flatMap((s) => [s, `-${s}`]) as [string, ...string[]];
  const shape: Record<string, ZodType> = {
    cursor: z.string().min(1).max(512).optional(),
    limit: limitSchema(max),
    sort: z.enum(sortValues).default(options.defaultSort),
  };
  if (options.search) {
    shape.q = z.string().trim().min(1).max(200).optional()
      .meta({ description: 'Words to find, each whatever its case and accents: 3 characters or more anywhere, 1–2 at the beginning of a word' });
  }
  if (options.locale) shape.locale = LocaleTag.optional().meta({ description: LOCALE_PARAMETER });
  for (const [name, schema] of Object.entries(options.filters ?? {})) shape[`filter[${name}]`] = schema.optional();
  return z.strictObject(shape) as unknown as z.ZodType<
    { cursor?: string; limit: number; sort: string; q?: string; locale?: string } & FilterKeys<F>
  >;
}

/** `{ 'filter[status]': 'active' }` → `{ status: 'active' }`. */
export function filtersOf(query: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(query)) {
    const m = /^filter\[(.+)\]$/.exec(key);
    if (m && value !== undefined) out[m[1]] = value;
  }
  return out;
}

interface CursorState {
  s: string; // the sort it was made for
  v: unknown; // the sort field's value in the last row
  i: string; // the last row's id
}

export function encodeCursor(state: CursorState): string {
  return Buffer.from(JSON.stringify(state)).toString('base64url');
}

/** The SQL type of a list's sort column: a cursor's value is bound as one (`?::type`). */
export type CursorValueType = 'timestamptz' | 'text' | 'int' | 'bigint';

// As this API writes a time (ISO 8601) or PostgreSQL prints one, or an unbounded end.
const CURSOR_TIME = /^(-?infinity|\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d{1,6})?(Z|[+-]\d\d(:?\d\d)?)?)$/;

/** Whether `value` is a value of `type` that PostgreSQL takes for it. */
const CURSOR_VALUE: Record<CursorValueType, (value: unknown) => boolean> = {
  timestamptz: (v) =>
    typeof v === 'string' && CURSOR_TIME.test(v) && (v.endsWith('infinity') || !Number.isNaN(Date.parse(v.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00')))),
  text: (v) => typeof v === 'string',
  int: (v) => (typeof v === 'number' && Number.isInteger(v) && Math.abs(v) < 2 ** 31) || (typeof v === 'string' && /^-?\d{1,9}$/.test(v)),
  bigint: (v) => (typeof v === 'number' && Number.isSafeInteger(v)) || (typeof v === 'string' && /^-?\d{1,18}$/.test(v)),
};

const invalidCursor = () => AppError.validation('The cursor is not valid', [{ path: 'cursor', message: 'not a cursor this API issued' }]);

/**
 * The state of a cursor this API issued for `sort`; anything else is a 400 naming the cursor, never
 * a database error: its id must be a UUID and, given the sort column's `type`, its value one of
 * that type, or null where the column is `nullable` (without `type` the caller checks the value).
 */
export function decodeCursor(cursor: string, sort: string, type?: CursorValueType, nullable = false): CursorState {
  let state: CursorState;
  try {
    state = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (!state || typeof state !== 'object' || typeof state.i !== 'string' || typeof state.s !== 'string') throw invalidCursor();
  if (state.s !== sort) {
    throw AppError.validation('The cursor was made for another sort order', [
      { path: 'cursor', message: `made for sort=${state.s}` },
    ]);
  }
  if (!isUuid(state.i) || (type && !CURSOR_VALUE[type](state.v) && !(nullable && state.v === null))) throw invalidCursor();
  return state;
}

export interface PageRequest {
  cursor?: string;
  limit: number;
  /** API sort, e.g. `-created_at`. */
  sort: string;
}

export interface Page<T> {
  items: T[];
  /** The cursor that resumes the list right after `item`. */
  cursorOf(item: T): string;
  pagination: { cursor: string | null; has_next: boolean; limit: number; total?: number };
}

const toProperty = (field: string) => field.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * Keyset pagination over (sort field, id): stable under inserts, one statement per page.
 * `sortMap` maps API sort names to entity properties when they differ from the camel-cased name.
 */
export async function paginate<T extends { id: string }>(
  em: EntityManager,
  entity: EntityName<T>,
  where: FilterQuery<T>,
  page: PageRequest,
  options: { sortMap?: Record<string, string>; populate?: readonly string[]; withTotal?: boolean; filters?: false } = {},
): Promise<Page<T>> {
  const desc = page.sort.startsWith('-');
  const field = page.sort.replace(/^-/, '');
  const prop = options.sortMap?.[field] ?? toProperty(field);
  const conditions: unknown[] = [where];
  if (page.cursor) {
    const state = decodeCursor(page.cursor, page.sort);
    const property = (em.getMetadata(entity).properties as Record<string, { runtimeType?: string; nullable?: boolean } | undefined>)[prop];
    const nullable = property?.nullable === true;
    const value = propertyValue(state.v, property?.runtimeType);
    if (value === null && !nullable) throw invalidCursor();
    conditions.push(resumeAfter(prop, value, state.i, desc, nullable));
  }
  const dir = desc ? 'desc' : 'asc';
  const rows = await em.find(entity, { $and: conditions } as FilterQuery<T>, {
    orderBy: { [prop]: dir, id: dir } as never,
    limit: page.limit + 1,
    populate: (options.populate ?? []) as never,
    ...(options.filters === false ? { filters: false } : {}),
  });
  const hasNext = rows.length > page.limit;
  const items = hasNext ? rows.slice(0, page.limit) : rows;
  const last = items[items.length - 1] as Record<string, unknown> | undefined;
  const total = options.withTotal
    ? await em.count(entity, where, options.filters === false ? { filters: false } : {})
    : undefined;
  const cursorOf = (item: T) =>
    encodeCursor({ s: page.sort, v: (item as Record<string, unknown>)[prop], i: String(item.id) });
  return {
    items,
    cursorOf,
    pagination: {
      cursor: hasNext && last ? cursorOf(last as T) : null,
      has_next: hasNext,
      limit: page.limit,
      ...(total !== undefined ? { total } : {}),
    },
  };
}

/**
 * The rows after the cursor's (value, id) in `order by prop, id`, both ascending or both
 * descending. PostgreSQL puts nulls last ascending and first descending, so a nullable sort
 * column's nulls are a block of their own at one end, ordered by id: a cursor in it resumes
 * there, and a cursor before it (ascending) still has every null row to come.
 */
function resumeAfter(prop: string, value: unknown, id: string, desc: boolean, nullable: boolean): Record<string, unknown> {
  const op = desc ? '$lt' : '$gt';
  if (value === null) {
    const inNulls = { [prop]: null, id: { [op]: id } };
    // Descending, the nulls came first: every row with a value is still to come.
    return desc ? { $or: [inNulls, { [prop]: { $ne: null } }] } : inNulls;
  }
  const after = [{ [prop]: { [op]: value } }, { [prop]: value, id: { [op]: id } }];
  // Ascending, the nulls come last: all of them are still to come.
  return { $or: nullable && !desc ? [...after, { [prop]: null }] : after };
}

/**
 * A cursor's value as the ORM binds it for a property of `runtimeType` (a date as its ISO text,
 * as JSON wrote it): anything else is a 400, never an error of the ORM or the database.
 */
function propertyValue(value: unknown, runtimeType: string | undefined): unknown {
  if (value === null) return null;
  const fits =
    runtimeType === 'Date' ? CURSOR_VALUE.timestamptz(value) && !String(value).endsWith('infinity')
    : runtimeType === 'number' ? typeof value === 'number' && Number.isFinite(value)
    : runtimeType === 'string' ? typeof value === 'string'
    : runtimeType === 'boolean' ? typeof value === 'boolean'
    : typeof value !== 'object';
  if (!fits) throw invalidCursor();
  return runtimeType === 'Date' ? new Date(value as string) : value;
}

/** A sortable column of a hand-written list query: its SQL and its type for the cursor's value. */
export interface KeysetColumn {
  sql: string;
  type: CursorValueType;
  /** The column may be null: its null rows page last ascending and first descending, as PostgreSQL orders them. */
  nullable?: boolean;
}

/**
 * Keyset pagination for hand-written SQL (the hot read paths that skip the ORM): the condition
 * that resumes after the cursor, the ORDER BY ... LIMIT tail, and the page built from the rows.
 * Same cursors and answers as `paginate`.
 */
export function keyset(page: PageRequest, columns: Record<string, KeysetColumn>) {
  const desc = page.sort.startsWith('-');
  const field = page.sort.replace(/^-/, '');
  const column = columns[field];
  if (!column) throw new Error(`No keyset column for sort "${field}"`);
  const dir = desc ? 'desc' : 'asc';
  let where = '';
  const params: unknown[] = [];
  if (page.cursor) {
    const state = decodeCursor(page.cursor, page.sort, column.type, column.nullable);
    const op = desc ? '<' : '>';
    if (state.v === null) {
      // In the block of nulls (ordered by id); descending, the rows with a value come after it.
      where = `((${column.sql} is null and id ${op} ?::uuid)${desc ? ` or ${column.sql} is not null` : ''})`;
      params.push(state.i);
    } else {
      where = `(${column.sql}, id) ${op} (?::${column.type}, ?::uuid)`;
      // Ascending, the nulls come last: all of them are still to come.
      if (column.nullable && !desc) where = `(${where} or ${column.sql} is null)`;
      params.push(state.v, state.i);
    }
  }
  return {
    where,
    params,
    tail: `order by ${column.sql} ${dir}, id ${dir} limit ${page.limit + 1}`,
    finish<T extends { id: string }>(rows: T[], valueOf: (row: T) => unknown): Page<T> {
      const hasNext = rows.length > page.limit;
      const items = hasNext ? rows.slice(0, page.limit) : rows;
      const cursorOf = (item: T) => encodeCursor({ s: page.sort, v: valueOf(item), i: item.id });
      return {
        items,
        cursorOf,
        pagination: { cursor: hasNext ? cursorOf(items[items.length - 1]) : null, has_next: hasNext, limit: page.limit },
      };
    },
  };
}

/**
 * A timestamp as the driver hands it over (`2026-11-22 09:44:25.89+00`) to a Date. Sessions run
 * in UTC, so the `+00` form is read by position (list reads turn hundreds of these a request);
 * any other offset goes through the general parser.
 */
export function pgDate(value: unknown): Date {
  if (value instanceof Date) return value;
  const text = String(value);
  const n = text.length;
  if (n >= 22 && text.charCodeAt(4) === 45 && text.charCodeAt(10) === 32 && text.charCodeAt(n - 3) === 43 && text.charCodeAt(n - 2) === 48 && text.charCodeAt(n - 1) === 48) {
    const fraction = text.charCodeAt(19) === 46 ? text.slice(20, n - 3) : '';
    const ms = fraction ? Number(`${fraction}00`.slice(0, 3)) : 0;
    return new Date(Date.UTC(+text.slice(0, 4), +text.slice(5, 7) - 1, +text.slice(8, 10), +text.slice(11, 13), +text.slice(14, 16), +text.slice(17, 19), ms));
  }
  return new Date(text.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00'));
}
