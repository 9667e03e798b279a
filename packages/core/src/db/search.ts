import { raw } from '@mikro-orm/core';
import { APP_ROLE } from './migrations.js';

/**
 * Indexed search for every list's `q` (decision 0046). A table declares its searchable columns
 * once, in a migration, with `searchIndex`; its list reads `searchCondition` (hand-written SQL) or
 * `searchWhere` (the ORM) with the caller's words.
 *
 * What a search finds: every word of `q` (split on spaces, accents and case folded) in one of the
 * columns; a word of three characters or more anywhere (`ojas` finds Rojás), a word of one or two
 * letters or digits the beginning of a word (`ro` finds Rojás, not Ferro), any other word anywhere
 * (`%` finds 100%). LIKE's wildcards are plain characters.
 *
 * Why a function: under row-level security PostgreSQL uses no index for LIKE (its operator is not
 * leakproof), so the store's matches come from `<table>_matches(words)`: it runs as the table's
 * owner, reads the trigram index (led by `tenant_id`) with the words as literals, and is bound to
 * the transaction's store, so it can name no other store's rows.
 */

export interface SearchIndexSpec {
  /** The table; its rows have an `id` (uuid) and, unless `platform`, a `tenant_id`. */
  table: string;
  /** SQL expressions of the text searched, e.g. `['title', 'handle']`; nullable ones are fine. */
  columns: readonly string[];
  /**
   * A table read with the owner's rights only (core_tenant): no store binding, and the
   * function is not granted to the RLS role.
   */
  platform?: boolean;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** The statements of a migration that make `spec.table` searchable: column, index and function. */
export function searchIndex(spec: SearchIndexSpec): string[] {
  const { table, columns, platform = false } = spec;
  if (!IDENTIFIER.test(table)) throw new Error(`Not a table name: ${table}`);
  if (columns.length === 0) throw new Error(`${table}: a search needs at least one column`);
  // `||` and coalesce keep the expression IMMUTABLE, as a generated column requires (concat_ws is not).
  const text = columns.map((c) => `coalesce((${c})::text, '')`).join(` || ' ' || `);
  const store = platform ? '' : `tenant_id = %L AND `;
  return [
    `ALTER TABLE ${table} ADD COLUMN search_text text GENERATED ALWAYS AS (' ' || qhatu_fold(${text})) STORED`,
    `CREATE INDEX ${table}_search ON ${table} USING gin (${platform ? '' : 'tenant_id, '}search_text gin_trgm_ops)`,
    // ROWS 20, a page's worth: the list then probes its primary key per match rather than read the table.
    `CREATE FUNCTION ${table}_matches(words text) RETURNS SETOF uuid
       LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public ROWS 20 AS $$
     DECLARE
       store uuid := nullif(current_setting('app.tenant_id', true), '')::uuid;
     BEGIN
       ${platform ? '' : 'IF store IS NULL THEN RETURN; END IF;'}
       RETURN QUERY EXECUTE format('SELECT id FROM ${table} WHERE ${store}%s', ${platform ? '' : 'store, '}qhatu_search_filter(words));
     END $$`,
    `REVOKE ALL ON FUNCTION ${table}_matches(text) FROM PUBLIC`,
    ...(platform ? [] : [`GRANT EXECUTE ON FUNCTION ${table}_matches(text) TO ${APP_ROLE}`]),
  ];
}

/** What `searchIndex` creates, for a migration that takes a search off a table again. */
export function dropSearchIndex(table: string): string[] {
  if (!IDENTIFIER.test(table)) throw new Error(`Not a table name: ${table}`);
  return [`DROP FUNCTION IF EXISTS ${table}_matches(text)`, `ALTER TABLE ${table} DROP COLUMN IF EXISTS search_text`];
}

/**
 * The condition a hand-written list query adds for `q`: `id in (the store's matches)`, with the
 * words as its one `?` parameter. `column` names the id when the query aliases the table.
 */
export function searchCondition(table: string, q: string, column = 'id'): [sql: string, words: string] {
  if (!IDENTIFIER.test(table)) throw new Error(`Not a table name: ${table}`);
  return [`${column} in (select ${table}_matches(?))`, q];
}

/** The same condition for an ORM `where` (MikroORM), to spread into it or put in an `$and`. */
export function searchWhere(table: string, q: string): Record<string, never[]> {
  if (!IDENTIFIER.test(table)) throw new Error(`Not a table name: ${table}`);
  return { [raw((alias: string) => `${alias}.id in (select ${table}_matches(?))`, [q])]: [] };
}

/** A condition of a hand-written list and the values of its `?` placeholders, in order. */
export interface SqlPart {
  sql: string;
  params: unknown[];
}

export interface SearchPageSpec {
  /** The searchable table (`searchIndex`), read under row-level security like any list. */
  table: string;
  /** The caller's `q`. */
  words: string;
  /** The columns of a page's rows: plain column names of the table, comma-separated. */
  columns: string;
  /** The list's other conditions, store and cursor included, each with its placeholders' values. */
  conditions: SqlPart[];
  /** The list's keyset order: a plain column of the table, then `id` the same way. */
  order: { column: string; desc: boolean };
  /** Rows wanted (a page and one more, to know whether there is a next page). */
  limit: number;
  /**
   * Another way a row is found besides the words (an order by its number): a condition on the
   * table and the ids it gives, each with its values.
   */
  also?: { condition: SqlPart; ids: SqlPart };
}

/** Matches counted up to this many; fewer are sorted, more make the list walk its order. */
export const SEARCH_FEW = 1000;
/** Rows of its order a list walks for a common word before it sorts the rest of the matches. */
export const SEARCH_WALK = 10_000;

/**
 * One page of a searched list in its own keyset order, the order of the list without `q`
 * (decision 0082): one statement, whatever the store's size and however many rows match.
 *
 * 1. `qhatu_search_first` takes up to `SEARCH_FEW` of the store's matches through the trigram
 *    index (the owner's plan, the words as literals). Fewer than that is every match: they are
 *    read by primary key and sorted.
 * 2. Otherwise the words are common: the list walks its own order (the index behind it) under
 *    row-level security and tests each row's `search_text` with the words, which finds a page
 *    after about `limit / share of rows matching` rows.
 * 3. A walk that has read `SEARCH_WALK` rows without filling the page (matches that are many but
 *    all further on) stops there; the rest of the page is the matches past that row, from the
 *    index, sorted.
 *
 * Each step runs only when the one before says so (one-time filters on materialized results).
 */
export function searchPage(spec: SearchPageSpec): SqlPart {
  const { table, words, columns, order, limit } = spec;
  if (!IDENTIFIER.test(table)) throw new Error(`Not a table name: ${table}`);
  if (!IDENTIFIER.test(order.column)) throw new Error(`Not a column name: ${order.column}`);
  if (!/^[a-z_][a-z0-9_]*(\s*,\s*[a-z_][a-z0-9_]*)*$/.test(columns)) throw new Error(`Not a list of columns: ${columns}`);
  if (!Number.isInteger(limit) || limit < 1) throw new Error(`Not a page size: ${limit}`);
  const dir = order.desc ? 'desc' : 'asc';
  const sort = `order by ${order.column} ${dir}, id ${dir}`;
  const params: unknown[] = [];
  const part = (p: SqlPart) => (params.push(...p.params), p.sql);
  const where = () => spec.conditions.map((c) => `(${part(c)})`).join(' and ') || 'true';
  const also = (side: 'condition' | 'ids') => (spec.also ? part(spec.also[side]) : '');
  const word = () => (params.push(words), '?');
  const sql = `with found as materialized (select qhatu_search_first('${table}', ${word()}, ${SEARCH_FEW}) as id),
  few as materialized (select count(*) < ${SEARCH_FEW} as yes from found),
  walked as materialized (
    select ${columns} from (
      select ${columns}, search_text${spec.also ? `, (${also('condition')}) as also_found` : ''}
      from ${table} where ${where()} and not (select yes from few) ${sort} limit ${SEARCH_WALK}) w
    where qhatu_search_hit(search_text, qhatu_search_patterns(${word()}))${spec.also ? ' or also_found' : ''}
    limit ${limit}),
  edge as materialized (
    select ${order.column} as k, id from ${table}
    where ${where()} and not (select yes from few) and (select count(*) from walked) < ${limit}
    ${sort} offset ${SEARCH_WALK - 1} limit 1)
select ${columns} from (
  (select ${columns} from ${table}
   where ${where()} and id in (select id from found${spec.also ? ` union all ${also('ids')}` : ''}) and (select yes from few)
   ${sort} limit ${limit})
  union all
  (select ${columns} from walked)
  union all
  (select ${columns} from ${table}
   where ${where()} and id in (select qhatu_search_first('${table}', ${word()}, null)${spec.also ? ` union all ${also('ids')}` : ''})
     and (${order.column}, id) ${order.desc ? '<' : '>'} (select k, id from edge) and exists (select from edge)
   ${sort} limit ${limit})
) page ${sort} limit ${limit}`;
  return { sql, params };
}

/** Latin letters folded to their base letter; translate() keeps `qhatu_fold` IMMUTABLE (unaccent is not). */
const FOLD_FROM = 'ÁÀÂÄÃÅĀĂĄáàâäãåāăąÉÈÊËĒĖĘĚéèêëēėęěÍÌÎÏĪĮíìîïīįÓÒÔÖÕØŌŐóòôöõøōőÚÙÛÜŪŮŰŲúùûüūůűųÑŃŇñńňÇĆČçćčÝŸýÿŠŚšśŽŹŻžźżĎďŤťŘřĹĽŁĺľł';
const FOLD_TO = 'AAAAAAAAAaaaaaaaaaEEEEEEEEeeeeeeeeIIIIIIiiiiiiOOOOOOOOooooooooUUUUUUUUuuuuuuuuNNNnnnCCCcccYYyySSssZZZzzzDdTtRrLLLlll';
if (FOLD_FROM.length !== FOLD_TO.length) throw new Error('qhatu_fold: the two alphabets differ in length');

/** Core's migration: the extensions, the folding and the word filter every search shares. */
export const searchFunctions: string[] = [
  `CREATE EXTENSION IF NOT EXISTS pg_trgm`,
  `CREATE EXTENSION IF NOT EXISTS btree_gin`,
  `CREATE FUNCTION qhatu_fold(value text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
     AS $$ SELECT lower(translate(value, '${FOLD_FROM}', '${FOLD_TO}')) $$`,
  `GRANT EXECUTE ON FUNCTION qhatu_fold(text) TO ${APP_ROLE}`,
  // The WHERE of a search, made of quoted literals only: one LIKE on search_text per word.
  `CREATE FUNCTION qhatu_search_filter(words text) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
   DECLARE
     word text;
     parts text[] := '{}';
   BEGIN
     FOREACH word IN ARRAY regexp_split_to_array(btrim(qhatu_fold(coalesce(words, ''))), '\\s+') LOOP
       CONTINUE WHEN word = '';
       parts := parts || format('search_text LIKE %L', CASE WHEN length(word) < 3 AND word ~ '^[[:alnum:]]+$' THEN '% ' ELSE '%' END
         || replace(replace(replace(word, '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%');
     END LOOP;
     IF cardinality(parts) = 0 THEN RETURN 'false'; END IF;
     RETURN array_to_string(parts, ' AND ');
   END $$`,
];

/**
 * Core's migration of searched pages (decision 0082): the words' LIKE patterns, the test of one
 * row's `search_text` a walking list makes, and the first matches of the store.
 */
export const searchPageFunctions: string[] = [
  // The patterns qhatu_search_filter writes, as an array: one per word.
  `CREATE FUNCTION qhatu_search_patterns(words text) RETURNS text[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
   DECLARE
     word text;
     patterns text[] := '{}';
   BEGIN
     FOREACH word IN ARRAY regexp_split_to_array(btrim(qhatu_fold(coalesce(words, ''))), '\\s+') LOOP
       CONTINUE WHEN word = '';
       patterns := patterns || (CASE WHEN length(word) < 3 AND word ~ '^[[:alnum:]]+$' THEN '% ' ELSE '%' END
         || replace(replace(replace(word, '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%');
     END LOOP;
     RETURN patterns;
   END $$`,
  // A function the planner cannot look into: it takes a third of the rows to match, so a list
  // that tests rows one by one walks its order's index rather than read the store to sort it.
  `CREATE FUNCTION qhatu_search_hit(search_text text, patterns text[]) RETURNS boolean LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
   BEGIN
     RETURN cardinality(patterns) > 0 AND search_text LIKE ALL (patterns);
   END $$`,
  // Up to cap (null: all) of the store's matches, in no order, bound to the transaction's store as
  // <table>_matches is, for a table made searchable (one with a <table>_matches). Of several
  // words, the one the planner expects fewest rows for reads the trigram index; the others are
  // tested on its rows (a word every row has would make the index read the whole store).
  // VOLATILE only because EXPLAIN is refused in a STABLE function; it writes nothing.
  `CREATE FUNCTION qhatu_search_first(tbl text, words text, cap int) RETURNS SETOF uuid
     LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public ROWS 20 AS $$
   DECLARE
     store uuid := nullif(current_setting('app.tenant_id', true), '')::uuid;
     patterns text[] := qhatu_search_patterns(words);
     rarest int := 1;
     fewest float8 := 'Infinity';
     expected float8;
     plan json;
     tests text[] := '{}';
   BEGIN
     IF store IS NULL OR cardinality(patterns) = 0 OR to_regprocedure(format('%I_matches(text)', tbl)) IS NULL THEN RETURN; END IF;
     IF cardinality(patterns) > 1 THEN
       FOR i IN 1 .. cardinality(patterns) LOOP
         EXECUTE format('EXPLAIN (FORMAT JSON) SELECT 1 FROM %I WHERE tenant_id = %L AND search_text LIKE %L', tbl, store, patterns[i]) INTO plan;
         expected := (plan -> 0 -> 'Plan' ->> 'Plan Rows')::float8;
         IF expected < fewest OR (expected = fewest AND length(patterns[i]) > length(patterns[rarest])) THEN
           rarest := i;
           fewest := expected;
         END IF;
       END LOOP;
     END IF;
     FOR i IN 1 .. cardinality(patterns) LOOP
       tests := tests || format(CASE WHEN i = rarest THEN 'search_text LIKE %L' ELSE '(search_text || '''') LIKE %L' END, patterns[i]);
     END LOOP;
     RETURN QUERY EXECUTE format('SELECT id FROM %I WHERE tenant_id = %L AND %s LIMIT %s', tbl, store, array_to_string(tests, ' AND '), CASE WHEN cap IS NULL THEN 'ALL' ELSE greatest(cap, 0)::text END);
   END $$`,
  `GRANT EXECUTE ON FUNCTION qhatu_search_patterns(text) TO ${APP_ROLE}`,
  `GRANT EXECUTE ON FUNCTION qhatu_search_hit(text, text[]) TO ${APP_ROLE}`,
  `REVOKE ALL ON FUNCTION qhatu_search_first(text, text, int) FROM PUBLIC`,
  `GRANT EXECUTE ON FUNCTION qhatu_search_first(text, text, int) TO ${APP_ROLE}`,
];
