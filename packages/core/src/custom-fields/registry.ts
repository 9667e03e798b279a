import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { z, type ZodType } from 'zod';
import { TenantContext, type Principal } from '../context.js';
import { AppError, withArticle, type ErrorDetail } from '../errors.js';
import { PluginLoadError, type QhatuPlugin } from '../plugin.js';
import type { CustomFieldDefinition, CustomFieldHost, CustomFieldValue, CustomFieldValues } from './declarations.js';
import { checkDefinition, DEFAULT_MAX_LENGTH, fits, graphqlNameOf, label, MAX_NAME, NAME, queryValueSchema, TABLE, valueSchema, type DeclaredField } from './fields.js';

export type { DeclaredField } from './fields.js';

/** Who reads or writes: admin keys and staff see every field, everyone else the public ones. */
export type CustomFieldAudience = 'admin' | 'storefront';

export function audienceOf(principal: Principal | undefined): CustomFieldAudience {
  return principal?.kind === 'admin' || principal?.kind === 'staff' ? 'admin' : 'storefront';
}

/** A list filter on one custom field, its value parsed. */
export interface CustomFieldFilter {
  entity: string;
  name: string;
  value: CustomFieldValue;
}

/** How a request's input is checked: where it sits (for error paths), and the route's code for bad input. */
export interface CustomFieldInputOptions {
  /** Default `body.custom_fields`. */
  path?: string;
  /** Default `VALIDATION_ERROR` (the checkout API says `INVALID_REQUEST`). */
  code?: string;
  /** Default: the caller's (`audienceOf` the request's principal). */
  audience?: CustomFieldAudience;
}

/** The prefix of a list's query-string key for a custom field: `filter[custom_fields.gift_wrap]`. */
export const CUSTOM_FIELDS_FILTER = 'custom_fields';

/** What every stored custom-field column is named from: `cf_<field>_<hash>`. */
export const COLUMN_PREFIX = 'cf_';

/**
 * The stored custom-field columns of some tables, as `table.column` (`name`): one statement, its one
 * parameter (at `placeholder`, in the caller's driver's style) the tables' names, comma-separated.
 */
export function storedColumnsSql(placeholder: string): string {
  return `select table_name || '.' || column_name as name from information_schema.columns
   where table_schema = current_schema() and table_name = any(string_to_array(${placeholder}, ','))
     and left(column_name, ${COLUMN_PREFIX.length}) = '${COLUMN_PREFIX}' and is_generated = 'ALWAYS'`;
}

/** Each declared field's stored column, named once (a list filter asks for it on every request). */
const columnsOf = new WeakMap<DeclaredField, string>();

function hashOf(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

/** A JSON value as a SQL constant of type jsonb, with no `?` in its text (drivers would read it as a placeholder). */
function jsonbConstant(value: unknown): string {
  return `'${JSON.stringify(value).replace(/\?/g, '\\u003f').replace(/'/g, "''")}'::jsonb`;
}

/**
 * The custom fields of an app: every plugin's `customFields` (and the project's) merged at start,
 * checked against the entities plugins open to them (`customFieldHosts`). A name taken twice, a
 * bad name, a definition that does not hold or an entity no plugin opens stops the start with a
 * message naming the plugin. Values live in each host table's `custom_fields` jsonb column; this
 * checks what callers send, fills in defaults, hides non-public fields from storefront callers and
 * turns list filters into SQL on the indexed fields' stored columns.
 */
export class CustomFields {
  private readonly byEntity = new Map<string, DeclaredField[]>();
  private readonly hostsByEntity = new Map<string, CustomFieldHost & { plugin: string }>();
  private readonly inputs = new Map<string, ZodType>();
  /** The indexed fields' stored columns the database has (`table.column`), as last read. */
  private stored = new Set<string>();

  constructor(plugins: readonly QhatuPlugin[]) {
    for (const plugin of plugins) {
      for (const host of plugin.customFieldHosts ?? []) {
        const taken = this.hostsByEntity.get(host.entity);
        if (taken) throw new PluginLoadError(`${label(plugin.name)} and ${label(taken.plugin)} both host custom fields of "${host.entity}"`);
        if (!NAME.test(host.entity) || !TABLE.test(host.table)) {
          throw new PluginLoadError(`${label(plugin.name)} hosts custom fields of "${host.entity}" in table "${host.table}": use lower-case names`);
        }
        this.hostsByEntity.set(host.entity, { ...host, plugin: plugin.name });
      }
    }
    for (const plugin of plugins) {
      for (const [entity, fields] of Object.entries(plugin.customFields ?? {})) {
        if (!fields) continue;
        if (!this.hostsByEntity.has(entity)) {
          const hosts = [...this.hostsByEntity.keys()].sort().join(', ') || 'none';
          throw new PluginLoadError(`${label(plugin.name)} declares custom fields on "${entity}", which no installed plugin hosts (hosts: ${hosts})`);
        }
        for (const [name, definition] of Object.entries(fields)) this.add(plugin.name, entity, name, definition);
      }
    }
    this.checkCarried();
  }

  /** The entities open to custom fields, with their tables. */
  hosts(): Array<CustomFieldHost & { plugin: string }> {
    return [...this.hostsByEntity.values()];
  }

  /** The fields of `entity` a caller of `audience` sees (every one for admin callers), in declaration order. */
  fields(entity: string, audience: CustomFieldAudience = 'admin'): readonly DeclaredField[] {
    const all = this.byEntity.get(entity) ?? [];
    return audience === 'admin' ? all : all.filter((f) => f.public);
  }

  field(entity: string, name: string): DeclaredField | undefined {
    return this.byEntity.get(entity)?.find((f) => f.name === name);
  }

  /** Stored values as the caller sees them: each visible field, with its default where none was stored. */
  present(entity: string, stored: unknown, audience: CustomFieldAudience = audienceOf(TenantContext.principal())): CustomFieldValues {
    const out: CustomFieldValues = {};
    const values = stored && typeof stored === 'object' ? (stored as Record<string, unknown>) : {};
    for (const field of this.fields(entity, audience)) {
      const value = values[field.name];
      out[field.name] = value !== undefined && fits(field, value) ? value : (field.default ?? null);
    }
    return out;
  }

  /**
   * The values of a new record from what the caller sent (400 naming each bad field, e.g.
   * `body.custom_fields.gift_wrap`): every declared field is written, with its default (or null)
   * where none was given, so that later changes of a default leave it as it was.
   */
  create(entity: string, given: unknown, options: CustomFieldInputOptions = {}): CustomFieldValues {
    const parsed = this.parse(entity, given, options);
    const out: CustomFieldValues = {};
    for (const field of this.fields(entity)) out[field.name] = field.name in parsed ? parsed[field.name] : (field.default ?? null);
    return out;
  }

  /**
   * Values carried from a record of `from` to the one made from it (a cart's to its order): each
   * field of `to` declared on `from` too takes the stored value; the others take their defaults.
   */
  carry(from: string, to: string, stored: unknown): CustomFieldValues {
    const values = this.present(from, stored, 'admin');
    const out: CustomFieldValues = {};
    for (const field of this.fields(to)) {
      const value = values[field.name];
      out[field.name] = this.field(from, field.name) && value !== undefined && fits(field, value) ? value : (field.default ?? null);
    }
    return out;
  }

  /** Whether any field of `to` is declared on `from` too: a caller may skip reading `from`'s values otherwise. */
  carries(from: string, to: string): boolean {
    return this.fields(to).some((field) => this.field(from, field.name));
  }

  /**
   * The values of a change as the caller sent them, checked (400 naming each bad field): only the
   * fields sent, to be written over the stored ones (`{ ...stored, ...changes }`).
   */
  changes(entity: string, given: unknown, options: CustomFieldInputOptions = {}): CustomFieldValues {
    return this.parse(entity, given, options);
  }

  /** Sent values checked against the fields the audience may set; only the fields sent. */
  private parse(entity: string, given: unknown, options: CustomFieldInputOptions): CustomFieldValues {
    if (given === undefined || given === null) return {};
    const audience = options.audience ?? audienceOf(TenantContext.principal());
    const path = options.path ?? 'body.custom_fields';
    const key = `${entity}/${audience}`;
    let schema = this.inputs.get(key);
    if (!schema) {
      const shape = Object.fromEntries(this.fields(entity, audience).map((f) => [f.name, (f.nullable ? valueSchema(f).nullable() : valueSchema(f)).optional()]));
      schema = z.strictObject(shape);
      this.inputs.set(key, schema);
    }
    const result = schema.safeParse(given);
    if (result.success) return result.data as CustomFieldValues;
    const details: ErrorDetail[] = result.error.issues.flatMap((issue) => {
      if (issue.code === 'unrecognized_keys') {
        return issue.keys.map((k) => ({ path: `${path}.${k}`, message: `is not a custom field of ${withArticle(entity)} that this caller may set` }));
      }
      return [{ path: [path, ...issue.path.map(String)].join('.'), message: issue.message }];
    });
    throw new AppError(400, options.code ?? 'VALIDATION_ERROR', `${details[0].path}: ${details[0].message}`, details);
  }

  /** The query-string key of a list filter on a field: `filter[custom_fields.gift_wrap]` (`prefix` for another entity's, e.g. `variants.custom_fields`). */
  static filterKey(name: string, prefix = CUSTOM_FIELDS_FILTER): string {
    return `filter[${prefix}.${name}]`;
  }

  /**
   * A list's query-string schema with a filter for each indexed field of the entities given (each
   * under its prefix); `base` itself when there is none. Pair it with `filterGuard`.
   */
  listQuery<T extends ZodType>(base: T, ...sources: Array<{ entity: string; prefix?: string }>): T {
    const shape: Record<string, ZodType> = {};
    for (const { entity, prefix } of sources) {
      for (const field of this.fields(entity)) {
        if (!field.indexed) continue;
        const who = field.public ? '' : ' (admin callers only)';
        shape[CustomFields.filterKey(field.name, prefix)] = queryValueSchema(field)
          .optional()
          .meta({ description: `Custom field ${field.name} of the ${entity} equals this${who}${field.description ? `: ${field.description}` : ''}` });
      }
    }
    if (Object.keys(shape).length === 0) return base;
    return (base as unknown as z.ZodObject).extend(shape) as unknown as T;
  }

  /**
   * A route's `preValidation` hook: a filter on a declared field that is not indexed is 422
   * CUSTOM_FIELD_NOT_INDEXED (lists filter on indexed fields only); one on a field the caller may
   * not see is refused as an unknown parameter.
   */
  filterGuard(...sources: Array<{ entity: string; prefix?: string }>) {
    return async (request: FastifyRequest): Promise<void> => {
      const query = (request.query ?? {}) as Record<string, unknown>;
      const audience = audienceOf(TenantContext.principal());
      for (const key of Object.keys(query)) {
        for (const { entity, prefix = CUSTOM_FIELDS_FILTER } of sources) {
          const head = `filter[${prefix}.`;
          if (!key.startsWith(head) || !key.endsWith(']')) continue;
          const field = this.field(entity, key.slice(head.length, -1));
          if (!field) continue;
          if (audience !== 'admin' && !field.public) {
            throw AppError.validation(`Unrecognized key "${key}"`, [{ path: `querystring.${key}`, message: 'is not a filter of this list' }]);
          }
          if (!field.indexed) {
            throw AppError.unprocessable('CUSTOM_FIELD_NOT_INDEXED', `The custom field ${field.name} is not indexed: lists filter on indexed custom fields only`, [
              { path: `querystring.${key}`, message: 'is not indexed (declare it with indexed: true and run qhatu migrate)', field: field.name },
            ]);
          }
        }
      }
    };
  }

  /** The custom-field filters of a parsed list query, for one entity (under its prefix). */
  filtersOf(query: Record<string, unknown>, entity: string, prefix = CUSTOM_FIELDS_FILTER): CustomFieldFilter[] {
    const out: CustomFieldFilter[] = [];
    for (const field of this.fields(entity)) {
      const value = query[CustomFields.filterKey(field.name, prefix)];
      if (field.indexed && value !== undefined) out.push({ entity, name: field.name, value: value as CustomFieldValue });
    }
    return out;
  }

  /**
   * The SQL condition of a filter: the field's stored column (`column`, on the host table aliased
   * `alias` when the query names it) equals the value's text as jsonb writes it, one `?`
   * placeholder for the value. Text's `=` is leakproof, so under row-level security PostgreSQL
   * reads the field's index with the policy's store (jsonb's operators are not: a condition on the
   * jsonb expression is checked on every row of the store).
   */
  condition(filter: CustomFieldFilter, alias?: string): { sql: string; params: unknown[] } {
    const field = this.field(filter.entity, filter.name);
    if (!field?.indexed) throw new Error(`No indexed custom field ${filter.entity}.${filter.name}`);
    const on = alias ? `${alias}.` : '';
    const column = CustomFields.column(field);
    const value = JSON.stringify(filter.value);
    // Before `qhatu migrate` made the column: the same answer from the jsonb, on every row of the store.
    if (!this.stored.has(`${this.hostsByEntity.get(filter.entity)?.table}.${column}`)) return { sql: `${CustomFields.expression(field, `${on}custom_fields`)} = ?::jsonb`, params: [value] };
    return { sql: `${on}${column} = (?::jsonb)::text`, params: [value] };
  }

  /**
   * Reads which indexed fields' stored columns the database has (the app does at start) and
   * answers the ones missing (`table.column`): filters on those compare the jsonb itself, with the
   * same answers, unindexed, until `qhatu migrate` makes them and the app reads them again.
   */
  async readStored(db: { query<R>(sql: string, params?: unknown[]): Promise<R[]> }): Promise<string[]> {
    const wanted = this.indexes();
    if (!wanted.length) return [];
    const rows = await db.query<{ name: string }>(storedColumnsSql('?'), [[...new Set(wanted.map((index) => index.table))].join(',')]);
    this.stored = new Set(rows.map((row) => row.name));
    return wanted.map((index) => `${index.table}.${index.column}`).filter((name) => !this.stored.has(name));
  }

  /** The value of `field` in `column` as jsonb (a missing value reads as the default). */
  static expression(field: DeclaredField, column: string): string {
    const picked = `(${column} -> '${field.name}')`;
    return field.default === undefined ? picked : `coalesce(${picked}, ${jsonbConstant(field.default)})`;
  }

  /**
   * The stored column an indexed field is filtered on: its value's jsonb text, generated from
   * `custom_fields`. Named after the field and its expression (a changed default makes another).
   */
  static column(field: DeclaredField): string {
    let column = columnsOf.get(field);
    if (column === undefined) {
      column = `${COLUMN_PREFIX}${field.name}_${hashOf(CustomFields.expression(field, 'custom_fields'))}`;
      columnsOf.set(field, column);
    }
    return column;
  }

  /**
   * What the indexed fields need, per field: the stored column (`columnSql`) and its index led by
   * `tenant_id` (`sql`), both named after the table, the field and the expression.
   */
  indexes(): Array<{ table: string; name: string; sql: string; column: string; columnSql: string }> {
    const out: Array<{ table: string; name: string; sql: string; column: string; columnSql: string }> = [];
    for (const host of this.hostsByEntity.values()) {
      for (const field of this.fields(host.entity)) {
        if (!field.indexed) continue;
        const expression = CustomFields.expression(field, 'custom_fields');
        const column = CustomFields.column(field);
        const name = `${`${CustomFields.indexPrefix(host.table)}${field.name}`.slice(0, 54)}_${hashOf(`${host.table}.${column}`)}`;
        out.push({
          table: host.table,
          name,
          sql: `CREATE INDEX IF NOT EXISTS ${name} ON ${host.table} (tenant_id, ${column})`,
          column,
          columnSql: `ALTER TABLE ${host.table} ADD COLUMN IF NOT EXISTS ${column} text GENERATED ALWAYS AS ((${expression})::text) STORED`,
        });
      }
    }
    return out;
  }

  /** What every custom-field index of `table` is named from. */
  static indexPrefix(table: string): string {
    return `${table}_cf_`;
  }

  private add(plugin: string, entity: string, name: string, definition: CustomFieldDefinition): void {
    const where = `${label(plugin)} declares custom field ${entity}.${name}`;
    if (!NAME.test(name) || name.length > MAX_NAME) {
      throw new PluginLoadError(`${where}: a name is lower-case letters, digits and single underscores, starting with a letter, at most ${MAX_NAME} characters (e.g. gift_wrap)`);
    }
    const taken = this.field(entity, name);
    if (taken) throw new PluginLoadError(`Custom field ${entity}.${name} is declared by ${label(taken.plugin)} and by ${label(plugin)}: rename one`);
    const field = checkDefinition(where, definition);
    // Names are lower-case: their camelCase GraphQL names are as distinct as they are.
    const declared: DeclaredField = { entity, name, plugin, ...field, graphqlName: graphqlNameOf(name) };
    this.byEntity.set(entity, [...(this.byEntity.get(entity) ?? []), declared]);
  }

  /** A field carried from one entity to another (a cart's to its order) must take the same values on both. */
  private checkCarried(): void {
    for (const host of this.hostsByEntity.values()) {
      if (!host.carriesTo) continue;
      for (const field of this.fields(host.entity)) {
        const target = this.field(host.carriesTo, field.name);
        if (!target) continue;
        const sameValues = field.type !== 'enum' || (field.values ?? []).every((v) => target.values?.includes(v));
        const fitsLength = field.type !== 'string' || (target.maxLength ?? DEFAULT_MAX_LENGTH) >= (field.maxLength ?? DEFAULT_MAX_LENGTH);
        if (target.type !== field.type || !sameValues || !fitsLength) {
          throw new PluginLoadError(
            `Custom field ${host.entity}.${field.name} (${label(field.plugin)}) is carried to ${host.carriesTo}.${field.name} (${label(target.plugin)}), ` +
              `which does not take its values: give both the same type${field.type === 'enum' ? ' and values' : field.type === 'string' ? ' and maxLength' : ''}, or rename one`,
          );
        }
      }
    }
  }
}
