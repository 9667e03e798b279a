import { uuidArray } from '../db/database.js';
import { APP_ROLE, tenantTable } from '../db/migrations.js';
import { AppError } from '../errors.js';
import { pgDate } from '../http/pagination.js';
import { LOCALE_TAG, localeNotListed, storeLocales, textSearchConfig, type StoreLocales } from './locales.js';

/**
 * A plugin's translations (decision 0089): one table per plugin, a row per resource and locale
 * holding the translated fields as JSON and their words as a `tsvector` in the locale's language.
 * A field a translation lacks is read from the resource itself (the default locale's text).
 */

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** A table whose deletes take their resources' translations with them. */
export interface TranslatedResource {
  /** The resource's name in the translation table, e.g. `product`. */
  resource: string;
  /** Its own table, e.g. `catalog_product`. */
  table: string;
}

/**
 * The statements of a migration that make `table` a translation table: the table (under the
 * store's row-level security), the full-text index led by the store, `<table>_matches(resource,
 * locale, words)` (bound to the transaction's store, as `searchIndex`'s functions are: under
 * row-level security `@@` reads no index) and the triggers that drop a deleted resource's rows.
 */
export function translationTable(table: string, resources: readonly TranslatedResource[]): string[] {
  for (const name of [table, ...resources.flatMap((r) => [r.resource, r.table])]) if (!IDENTIFIER.test(name)) throw new Error(`Not an identifier: ${name}`);
  return [
    `CREATE TABLE ${table} (
       tenant_id uuid NOT NULL,
       resource text NOT NULL,
       resource_id uuid NOT NULL,
       locale text NOT NULL,
       fields jsonb NOT NULL,
       search tsvector NOT NULL,
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, resource, resource_id, locale))`,
    `CREATE INDEX ${table}_search ON ${table} USING gin (tenant_id, resource, locale, search)`,
    tenantTable(table),
    `CREATE FUNCTION ${table}_matches(kind text, wanted text, words text) RETURNS SETOF uuid
       LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public ROWS 20 AS $$
       SELECT resource_id FROM ${table}
        WHERE tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid AND resource = kind AND locale = wanted
          AND search @@ plainto_tsquery(qhatu_text_config(wanted), qhatu_fold(words)) $$`,
    `REVOKE ALL ON FUNCTION ${table}_matches(text, text, text) FROM PUBLIC`,
    `GRANT EXECUTE ON FUNCTION ${table}_matches(text, text, text) TO ${APP_ROLE}`,
    `CREATE FUNCTION ${table}_forget() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       DELETE FROM ${table} WHERE tenant_id = OLD.tenant_id AND resource = TG_ARGV[0] AND resource_id = OLD.id;
       RETURN NULL;
     END $$`,
    ...resources.map(
      (r) => `CREATE TRIGGER ${r.table}_translations_forget AFTER DELETE ON ${r.table} FOR EACH ROW EXECUTE FUNCTION ${table}_forget('${r.resource}')`,
    ),
  ];
}

/** One locale's translation of a resource. */
export interface Translation {
  locale: string;
  fields: Record<string, string>;
  createdAt: Date;
  updatedAt: Date;
}

/** What reads and writes SQL: a transaction (`Tx`, `SqlTx`) or a read (`SqlReader`). */
interface Sql {
  readonly tenantId: string;
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
}

type Row = { locale: string; fields: Record<string, string>; created_at: unknown; updated_at: unknown };
const toTranslation = (r: Row): Translation => ({ locale: r.locale, fields: r.fields, createdAt: pgDate(r.created_at), updatedAt: pgDate(r.updated_at) });

/** A locale written into SQL as a literal: only a tag `LOCALE_TAG` admits (letters and one dash). */
export function localeLiteral(locale: string): string {
  if (!LOCALE_TAG.test(locale)) throw new Error(`Not a locale: ${locale}`);
  return `'${locale}'`;
}

/** The reads and writes of one translation table; the plugin's service decides what is translated and checks the resource. */
export class TranslationTable {
  constructor(readonly table: string) {
    if (!IDENTIFIER.test(table)) throw new Error(`Not a table name: ${table}`);
  }

  /** The store's locales, read in the transaction (its own record). */
  static async localesOf(sql: Sql): Promise<StoreLocales> {
    const [row] = await sql.query<{ default_locale: string; locales: string[] }>('select default_locale, locales from core_tenant where id = ?', [sql.tenantId]);
    return storeLocales(row.default_locale, row.locales);
  }

  /** 422 unless `locale` is one of the store's other locales (the default's texts are the resource's own fields). */
  static async assertTranslatable(sql: Sql, locale: string, path = 'params.locale'): Promise<void> {
    const store = await TranslationTable.localesOf(sql);
    if (locale === store.defaultLocale) {
      throw AppError.unprocessable('LOCALE_IS_DEFAULT', `${locale} is the store's default locale: its texts are the resource's own fields, changed on the resource`, [
        { path, message: 'is the default locale', locale },
      ]);
    }
    if (!store.locales.includes(locale)) throw localeNotListed(locale, store, path);
  }

  /** Replaces the resource's translation into `locale` (fields absent fall back to the default); `words` are what search finds. */
  async put(sql: Sql & { now(): Date }, resource: string, resourceId: string, locale: string, fields: Record<string, string>, words: string): Promise<Translation> {
    const at = sql.now();
    const [row] = await sql.query<Row>(
      `insert into ${this.table} as t (tenant_id, resource, resource_id, locale, fields, search, created_at, updated_at)
       values (?, ?, ?, ?, ?::jsonb, to_tsvector(?::regconfig, qhatu_fold(?)), ?, ?)
       on conflict (tenant_id, resource, resource_id, locale) do update
         set fields = excluded.fields, search = excluded.search, updated_at = excluded.updated_at
       returning locale, fields, created_at, updated_at`,
      [sql.tenantId, resource, resourceId, locale, JSON.stringify(fields), textSearchConfig(locale), words, at, at],
    );
    return toTranslation(row);
  }

  /** Every translation of the resource, by locale. */
  async list(sql: Sql, resource: string, resourceId: string): Promise<Translation[]> {
    const rows = await sql.query<Row>(
      `select locale, fields, created_at, updated_at from ${this.table} where tenant_id = ? and resource = ? and resource_id = ? order by locale`,
      [sql.tenantId, resource, resourceId],
    );
    return rows.map(toTranslation);
  }

  /** Removes the resource's translation into `locale`; false when there was none. */
  async remove(sql: Sql, resource: string, resourceId: string, locale: string): Promise<boolean> {
    const rows = await sql.query(`delete from ${this.table} where tenant_id = ? and resource = ? and resource_id = ? and locale = ? returning locale`, [sql.tenantId, resource, resourceId, locale]);
    return rows.length > 0;
  }

  /** The translated fields of these resources in `locale`, by resource id (one statement). */
  async fieldsOf(sql: Sql, resource: string, ids: readonly string[], locale: string): Promise<Map<string, Record<string, string>>> {
    if (ids.length === 0) return new Map();
    const rows = await sql.query<{ resource_id: string; fields: Record<string, string> }>(
      `select resource_id, fields from ${this.table} where tenant_id = ? and resource = ? and locale = ? and resource_id = any(?::uuid[])`,
      [sql.tenantId, resource, locale, uuidArray(ids)],
    );
    return new Map(rows.map((r) => [r.resource_id, r.fields]));
  }

  /**
   * SQL of a field read in `locale`, the resource's own when untranslated: for a read that
   * translates in its one statement. `alias` names the resource's row (with `tenant_id` and `id`).
   */
  field(alias: string, resource: string, locale: string, field: string, own = `${alias}.${field}`): string {
    if (!IDENTIFIER.test(alias) || !IDENTIFIER.test(resource) || !IDENTIFIER.test(field)) throw new Error('Not an identifier');
    return `coalesce((select tl.fields->>'${field}' from ${this.table} tl where tl.tenant_id = ${alias}.tenant_id and tl.resource = '${resource}' and tl.resource_id = ${alias}.id and tl.locale = ${localeLiteral(locale)}), ${own})`;
  }

  /**
   * The ways a list finds a row by its translation into `locale` (the words stemmed in the locale's
   * language): a condition on the row `alias`, and the ids from the full-text index.
   */
  matching(alias: string, resource: string, locale: string, words: string): { condition: { sql: string; params: unknown[] }; ids: { sql: string; params: unknown[] } } {
    const config = textSearchConfig(locale);
    return {
      // A scalar subquery, probed per row on the primary key: as EXISTS the planner may hash every translation of the store that matches.
      condition: {
        sql: `coalesce((select tl.search @@ plainto_tsquery(?::regconfig, qhatu_fold(?)) from ${this.table} tl
                 where tl.tenant_id = ${alias}.tenant_id and tl.resource = ? and tl.resource_id = ${alias}.id and tl.locale = ?), false)`,
        params: [config, words, resource, locale],
      },
      ids: { sql: `select ${this.table}_matches(?, ?, ?)`, params: [resource, locale, words] },
    };
  }
}

/** A resource's fields in a locale: the translated ones over its own, field by field. */
export function translated<T extends Record<string, unknown>>(own: T, fields: Record<string, string> | undefined, names: ReadonlyArray<keyof T & string>): T {
  if (!fields) return own;
  const out = { ...own };
  for (const name of names) if (name in own && typeof fields[name] === 'string') (out as Record<string, unknown>)[name] = fields[name];
  return out;
}
