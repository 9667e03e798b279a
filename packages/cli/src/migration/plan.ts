import { DatabaseSchema, SchemaComparator, type Column, type DatabaseTable, type ForeignKey, type IndexDef, type Platform, type TableDifference } from '@mikro-orm/postgresql';
import type { QhatuApp, QhatuPlugin } from '@qhatu/core';
import { CliError } from '../errors.js';
import { identifier, literal } from './sql.js';

/** One entry of a migration's `up`: a statement, or the row-level security line of a table. */
export type Step = { sql: string } | { tenantTable: string };

export interface MigrationPlan {
  steps: Step[];
  /** What the migration does, in a few words per change (`new table gift_wrap_option`). */
  changes: string[];
  /** Differences a migration does not make by itself (a changed type, an expression index): for the developer. */
  notes: string[];
  /** What may fail when it runs (a NOT NULL column without a default, on a table with rows). */
  warnings: string[];
  /** Names of the tables it creates (for the migration's name). */
  newTables: string[];
}

const TENANT = 'tenant_id';

/**
 * The plugin's next migration: its entities (MikroORM's metadata, as `DatabaseSchema.fromMetadata`
 * turns them into tables) compared by MikroORM's `SchemaComparator` with what the database has.
 * What it writes follows the platform's rules (decision 0064): `tenant_id` leads the key and every
 * index, new tenant tables get `tenantTable(...)`; it adds tables, columns and indexes, and never
 * drops or changes what exists.
 */
export async function planMigration(app: QhatuApp, plugin: QhatuPlugin): Promise<MigrationPlan> {
  const orm = app.orm;
  const metadata = orm.getMetadata();
  const metas = (plugin.entities ?? []).map((entity) => metadata.find((entity as { meta: { className: string } }).meta.className)!).filter((m) => m && !m.embeddable && !m.virtual);
  if (!metas.length) throw new CliError(`the plugin "${plugin.name}" declares no entities`, ['list them in definePlugin({ entities: [...] })']);
  const platform = orm.em.getPlatform();
  // Read before fromMetadata, which gives every string a length.
  const unbounded = metas.flatMap((meta) => Object.values(meta.properties).filter((p) => p.type === 'string' && p.length === undefined).map((p) => [meta.tableName, p.fieldNames[0]]));
  const target = DatabaseSchema.fromMetadata(metas, platform, orm.config, 'public');
  for (const [table, column] of unbounded) asText(target.getTable(table)?.getColumn(column), platform);
  const current = await DatabaseSchema.create(orm.em.getConnection(), platform, orm.config, 'public', undefined, metas.map((m) => m.tableName));
  const diff = new SchemaComparator(platform).compare(current, target);
  const tenantTables = new Set(Object.values(metadata.getAll()).filter((m) => m.properties?.tenantId).map((m) => m.tableName));
  const plan: MigrationPlan = { steps: [], changes: [], notes: [], warnings: [], newTables: [] };

  for (const table of Object.values(diff.newTables)) {
    const tenant = tenantTables.has(table.name);
    plan.steps.push({ sql: createTable(table, tenant, tenantTables) });
    plan.steps.push(...newIndexes(table, [], tenant, plan.notes).map((sql) => ({ sql })));
    if (tenant) plan.steps.push({ tenantTable: table.name });
    else plan.notes.push(`${table.name} has no tenantId: a platform table, shared by every store, without row-level security`);
    plan.changes.push(`new table ${table.name}`);
    plan.newTables.push(table.name);
  }
  for (const change of Object.values(diff.changedTables)) addToTable(change, tenantTables, plan);
  return plan;
}

/** An existing table: the columns and indexes it lacks; what differs otherwise is only noted. */
function addToTable(change: TableDifference, tenantTables: Set<string>, plan: MigrationPlan): void {
  const table = change.toTable;
  const tenant = tenantTables.has(table.name);
  for (const column of Object.values(change.addedColumns)) {
    const fk = Object.values(change.addedForeignKeys).find((f) => f.columnNames.length === 1 && f.columnNames[0] === column.name);
    plan.steps.push({ sql: `ALTER TABLE ${table.name} ADD COLUMN ${columnSql(column)}` });
    if (fk) plan.steps.push({ sql: `ALTER TABLE ${table.name} ADD ${foreignKeySql(fk, tenant, tenantTables)}` });
    plan.changes.push(`new column ${table.name}.${column.name}`);
    if (!column.nullable && column.default == null) {
      plan.warnings.push(`${table.name}.${column.name} is NOT NULL without a default: adding it fails on a table with rows (give the property .default(...) or .nullable())`);
    }
  }
  const indexes = newIndexes(table, change.fromTable.getIndexes(), tenant, plan.notes);
  plan.steps.push(...indexes.map((sql) => ({ sql })));
  if (indexes.length) plan.changes.push(`${indexes.length} new index${indexes.length > 1 ? 'es' : ''} on ${table.name}`);
  for (const [name, changed] of Object.entries(change.changedColumns)) {
    if (name === TENANT || changed.fromColumn.primary) continue;
    const differs = significant(changed.changedProperties, changed.fromColumn, changed.column);
    if (differs.length) {
      plan.notes.push(`${table.name}.${name} (${differs.join(', ')}): the database has ${describe(changed.fromColumn)}, the entity says ${describe(changed.column)}; left as it is (a migration of your own changes it)`);
    }
  }
}

/** The house's type for a string without a length is `text` (as every Qhatu table has it), not MikroORM's varchar(255). */
function asText(column: Column | undefined, platform: Platform): void {
  if (column?.type !== 'varchar(255)') return;
  column.type = 'text';
  column.mappedType = platform.getMappedType('text');
}

function createTable(table: DatabaseTable, tenant: boolean, tenantTables: Set<string>): string {
  const columns = table.getColumns();
  const primary = table.getPrimaryKey()?.columnNames ?? columns.filter((c) => c.primary).map((c) => c.name);
  // tenant_id first, then the key, then the rest in the entity's order.
  const ordered = [
    ...columns.filter((c) => tenant && c.name === TENANT),
    ...primary.map((name) => table.getColumn(name)!).filter((c) => c.name !== TENANT),
    ...columns.filter((c) => c.name !== TENANT && !primary.includes(c.name)),
  ];
  const lines = ordered.map((c) =>
    tenant && c.name === TENANT ? `${TENANT} uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE` : columnSql(c),
  );
  const key = tenant ? [TENANT, ...primary.filter((c) => c !== TENANT)] : primary;
  lines.push(`PRIMARY KEY (${key.map(identifier).join(', ')})`);
  for (const fk of Object.values(table.getForeignKeys())) lines.push(foreignKeySql(fk, tenant, tenantTables));
  return `CREATE TABLE ${table.name} (\n       ${lines.join(',\n       ')})`;
}

function columnSql(column: Column): string {
  const parts = [identifier(column.name), column.type];
  if (!column.nullable) parts.push('NOT NULL');
  if (column.default != null) parts.push(`DEFAULT ${column.default}`);
  if (column.enumItems?.length && !column.nativeEnumName) {
    parts.push(`CHECK (${identifier(column.name)} IN (${column.enumItems.map((item) => literal(String(item))).join(', ')}))`);
  }
  return parts.join(' ');
}

/** A reference to a tenant table goes through `(tenant_id, id)`: a row can only point inside its own store. */
function foreignKeySql(fk: ForeignKey, tenant: boolean, tenantTables: Set<string>): string {
  const referenced = fk.referencedTableName.replace(/^public\./, '');
  const within = tenant && tenantTables.has(referenced);
  const local = within ? [TENANT, ...fk.columnNames] : fk.columnNames;
  const remote = within ? [TENANT, ...fk.referencedColumnNames] : fk.referencedColumnNames;
  const rule = fk.deleteRule?.toUpperCase();
  // With tenant_id in the key, SET NULL must name the column it empties (tenant_id stays).
  const onDelete = !rule || rule === 'NO ACTION' ? '' : ` ON DELETE ${rule}${rule === 'SET NULL' && within ? ` (${fk.columnNames.map(identifier).join(', ')})` : ''}`;
  return `FOREIGN KEY (${local.map(identifier).join(', ')}) REFERENCES ${referenced} (${remote.map(identifier).join(', ')})${onDelete}`;
}

/** The entity's indexes and unique constraints the database lacks (matched by columns, not name), led by tenant_id. */
function newIndexes(table: DatabaseTable, existing: IndexDef[], tenant: boolean, notes: string[]): string[] {
  const have = new Set(existing.map((i) => `${i.unique}:${i.columnNames.join(',')}`));
  const statements: string[] = [];
  for (const index of table.getIndexes()) {
    if (index.primary) continue;
    if (index.expression || !index.columnNames.length) {
      notes.push(`${table.name}: the index "${index.keyName}" is an expression; write it by hand, tenant_id first`);
      continue;
    }
    const columns = tenant && index.columnNames[0] !== TENANT ? [TENANT, ...index.columnNames.filter((c) => c !== TENANT)] : index.columnNames;
    if (have.has(`${index.unique}:${columns.join(',')}`) || (index.unique === false && have.has(`true:${columns.join(',')}`))) continue;
    have.add(`${index.unique}:${columns.join(',')}`);
    statements.push(indexSql(table.name, columns, index.unique));
  }
  // A reference is looked up from the other side (a cascade, SET NULL): its columns lead an index.
  for (const fk of Object.values(table.getForeignKeys())) {
    const columns = tenant ? [TENANT, ...fk.columnNames.filter((c) => c !== TENANT)] : fk.columnNames;
    const wanted = columns.join(',');
    const covered = [...have].some((key) => {
      const listed = key.slice(key.indexOf(':') + 1);
      return listed === wanted || listed.startsWith(`${wanted},`);
    });
    if (covered) continue;
    have.add(`false:${columns.join(',')}`);
    statements.push(indexSql(table.name, columns, false));
  }
  return statements;
}

function indexSql(table: string, columns: string[], unique: boolean): string {
  const name = `${table}_${columns.filter((c) => c !== TENANT).join('_')}`.slice(0, 63);
  return `CREATE ${unique ? 'UNIQUE ' : ''}INDEX ${name} ON ${table} (${columns.map(identifier).join(', ')})`;
}

/**
 * The differences worth a word: another type, a column the entity holds non-null that the
 * database lets be null, a default the entity declares. A database stricter than its entity
 * (NOT NULL, a default or a CHECK the entity does not repeat) is how hand-written migrations are.
 */
function significant(changed: Set<string>, from: Column, to: Column): string[] {
  const differs: string[] = [];
  if (changed.has('type')) differs.push('type');
  if (changed.has('nullable') && from.nullable && !to.nullable) differs.push('nullable');
  if (changed.has('default') && to.default != null) differs.push('default');
  return differs;
}

function describe(column: Column): string {
  return `${column.type}${column.nullable ? ' NULL' : ' NOT NULL'}${column.default != null ? ` DEFAULT ${column.default}` : ''}`;
}
