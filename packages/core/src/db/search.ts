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
