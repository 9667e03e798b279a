/**
 * Checks that the migrated schema can be distributed by `tenant_id` (Citus), and prints the
 * statements that distribute it.
 *
 *   pnpm check:distribution                 # a fresh database of the full store
 *   pnpm check:distribution --database-url postgres://…/shop   # a migrated one
 *   pnpm check:distribution --citus-sql     # the SQL to distribute it
 *
 * A table of the `public` schema with a `tenant_id` column is store-owned: it is distributed on
 * `tenant_id`. Every other table of `public` is a platform table: a reference table, copied to
 * every node. The rules (docs/scale-out.md, decision 0072):
 *
 * - a store-owned table has a primary key, and `tenant_id` (`NOT NULL`, the same type everywhere)
 *   is a column of it, of every unique constraint and unique index, and of every exclusion
 *   constraint;
 * - a foreign key from a store-owned table to another one joins `tenant_id` to `tenant_id`, and
 *   its `ON DELETE SET NULL / SET DEFAULT` names its columns (never `tenant_id`);
 * - a platform table has no foreign key to a store-owned table.
 *
 * Other schemas (`bullmq`, the job queue when Redis is not used) stay on the coordinator.
 * Exit code 1 when a rule is broken, each violation on a line of its own.
 */
import pg from 'pg';
import { pathToFileURL } from 'node:url';

export interface DistributionReport {
  /** Store-owned tables (with `tenant_id`), by name. */
  storeTables: string[];
  /** Platform tables (no `tenant_id`): reference tables. */
  platformTables: string[];
  /** What keeps the schema from being distributed, one line each. */
  violations: string[];
}

interface Queryable {
  query<R extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R>>;
}

const TABLES_SQL = `
  select c.oid::int as oid, c.relname as name,
         (select format_type(a.atttypid, a.atttypmod) from pg_attribute a
            where a.attrelid = c.oid and a.attname = 'tenant_id' and not a.attisdropped) as tenant_type,
         (select a.attnotnull from pg_attribute a
            where a.attrelid = c.oid and a.attname = 'tenant_id' and not a.attisdropped) as tenant_not_null,
         (select a.attnum from pg_attribute a
            where a.attrelid = c.oid and a.attname = 'tenant_id' and not a.attisdropped)::int as tenant_attnum
    from pg_class c
   where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p') and not c.relispartition
   order by c.relname`;

// Constraints and unique indexes of the public tables; a unique constraint's own index is left out
// (the constraint stands for it).
const CONSTRAINTS_SQL = `
  select con.conname as name, con.contype as type, con.conrelid::int as table_oid, con.confrelid::int as ref_oid,
         con.conkey::int[] as keys, con.confkey::int[] as ref_keys, con.confdeltype as on_delete,
         con.confdelsetcols::int[] as set_cols
    from pg_constraint con
    join pg_class c on c.oid = con.conrelid
   where c.relnamespace = 'public'::regnamespace and con.contype in ('p', 'u', 'f', 'x')
   order by c.relname, con.conname`;

const UNIQUE_INDEXES_SQL = `
  select i.indexrelid::regclass::text as name, i.indrelid::int as table_oid, i.indkey::int[] as keys
    from pg_index i
    join pg_class c on c.oid = i.indrelid
   where c.relnamespace = 'public'::regnamespace and i.indisunique
     and not exists (select 1 from pg_constraint con where con.conindid = i.indexrelid)
   order by 1`;

interface TableRow {
  oid: number;
  name: string;
  tenant_type: string | null;
  tenant_not_null: boolean | null;
  tenant_attnum: number | null;
}

interface ConstraintRow {
  name: string;
  type: 'p' | 'u' | 'f' | 'x';
  table_oid: number;
  ref_oid: number;
  keys: number[];
  ref_keys: number[] | null;
  on_delete: string;
  set_cols: number[] | null;
}

/** Reads the schema of `db` and lists what keeps it from being distributed by `tenant_id`. */
export async function checkDistribution(db: Queryable): Promise<DistributionReport> {
  const tables = (await db.query<TableRow>(TABLES_SQL)).rows;
  const constraints = (await db.query<ConstraintRow>(CONSTRAINTS_SQL)).rows;
  const uniqueIndexes = (await db.query<{ name: string; table_oid: number; keys: number[] }>(UNIQUE_INDEXES_SQL)).rows;
  const byOid = new Map(tables.map((t) => [t.oid, t]));
  const store = (t: TableRow | undefined) => t?.tenant_attnum != null;
  const violations: string[] = [];

  const types = new Set(tables.filter(store).map((t) => t.tenant_type));
  if (types.size > 1) violations.push(`tenant_id has several types (${[...types].join(', ')}): colocated tables need one`);

  for (const table of tables.filter(store)) {
    if (!table.tenant_not_null) violations.push(`${table.name}: tenant_id may be null (a distribution column may not)`);
    const own = constraints.filter((c) => c.table_oid === table.oid);
    if (!own.some((c) => c.type === 'p')) violations.push(`${table.name}: no primary key (it must exist and hold tenant_id)`);
    for (const c of own) {
      if ((c.type === 'p' || c.type === 'u' || c.type === 'x') && !c.keys.includes(table.tenant_attnum!)) {
        const kind = c.type === 'p' ? 'primary key' : c.type === 'u' ? 'unique constraint' : 'exclusion constraint';
        violations.push(`${table.name}: ${kind} ${c.name} does not hold tenant_id`);
      }
    }
    for (const index of uniqueIndexes.filter((i) => i.table_oid === table.oid)) {
      // An expression's column is 0 in indkey: tenant_id must be a plain column of the index.
      if (!index.keys.includes(table.tenant_attnum!)) violations.push(`${table.name}: unique index ${index.name} does not hold tenant_id`);
    }
  }

  for (const fk of constraints.filter((c) => c.type === 'f')) {
    const from = byOid.get(fk.table_oid)!;
    const to = byOid.get(fk.ref_oid);
    if (!to) continue; // another schema: not a table of the store's
    if (!store(from) && store(to)) {
      violations.push(`${from.name}: foreign key ${fk.name} of a platform table refers to the store-owned ${to.name} (a reference table cannot)`);
      continue;
    }
    if (!store(from) || !store(to)) continue;
    const at = fk.keys.indexOf(from.tenant_attnum!);
    if (at < 0 || fk.ref_keys?.[at] !== to.tenant_attnum) {
      violations.push(`${from.name}: foreign key ${fk.name} to ${to.name} does not join tenant_id to tenant_id`);
      continue;
    }
    // SET NULL / SET DEFAULT without a column list would set tenant_id too.
    if ((fk.on_delete === 'n' || fk.on_delete === 'd') && (!fk.set_cols || fk.set_cols.includes(from.tenant_attnum!))) {
      violations.push(`${from.name}: foreign key ${fk.name} to ${to.name} sets tenant_id on delete (name the other columns: ON DELETE SET NULL (column))`);
    }
  }

  return {
    storeTables: tables.filter(store).map((t) => t.name),
    platformTables: tables.filter((t) => !store(t)).map((t) => t.name),
    violations,
  };
}

/**
 * The statements that distribute a schema the check passed: reference tables first (a foreign
 * key of a distributed table may point to one), then the store-owned tables, colocated on
 * `tenant_id`, in an order where each table's referenced tables come before it.
 */
export async function citusSql(db: Queryable, report: DistributionReport): Promise<string> {
  const { rows } = await db.query<{ child: string; parent: string }>(`
    select c.relname as child, p.relname as parent
      from pg_constraint con
      join pg_class c on c.oid = con.conrelid
      join pg_class p on p.oid = con.confrelid
     where con.contype = 'f' and c.relnamespace = 'public'::regnamespace and p.relnamespace = 'public'::regnamespace`);
  const parents = new Map<string, Set<string>>();
  for (const { child, parent } of rows) {
    if (child !== parent) parents.set(child, (parents.get(child) ?? new Set()).add(parent));
  }
  const ordered: string[] = [];
  const seen = new Set<string>();
  const store = new Set(report.storeTables);
  const visit = (table: string) => {
    if (seen.has(table)) return;
    seen.add(table);
    for (const parent of [...(parents.get(table) ?? [])].sort()) if (store.has(parent)) visit(parent);
    ordered.push(table);
  };
  for (const table of report.storeTables) visit(table);
  const first = ordered[0];
  return [
    '-- Platform tables: one copy on every node.',
    ...report.platformTables.map((t) => `SELECT create_reference_table('${t}');`),
    '-- Store-owned tables: sharded by store, every store\'s rows of every table on one node.',
    ...ordered.map((t) =>
      t === first
        ? `SELECT create_distributed_table('${t}', 'tenant_id');`
        : `SELECT create_distributed_table('${t}', 'tenant_id', colocate_with => '${first}');`,
    ),
    '',
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const urlAt = argv.indexOf('--database-url');
  let url = urlAt >= 0 ? argv[urlAt + 1] : undefined;
  let drop: (() => Promise<void>) | undefined;
  if (!url) {
    // A fresh database of the full store, copied from the migrated template as tests do.
    const { createTestDatabase } = await import('../packages/core/src/testing/databases.js');
    const { default: project } = await import('../starters/full-store/qhatu.config.js');
    const database = await createTestDatabase(project.plugins);
    url = database.url;
    drop = database.drop;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const report = await checkDistribution(client);
    if (argv.includes('--citus-sql')) {
      if (report.violations.length > 0) {
        process.stderr.write(`${report.violations.join('\n')}\nThe schema cannot be distributed as it is.\n`);
        return 1;
      }
      process.stdout.write(await citusSql(client, report));
      return 0;
    }
    process.stdout.write(`${report.storeTables.length} store-owned tables, ${report.platformTables.length} platform tables (${report.platformTables.join(', ')})\n`);
    if (report.violations.length === 0) {
      process.stdout.write('The schema can be distributed by tenant_id.\n');
      return 0;
    }
    process.stdout.write(`${report.violations.join('\n')}\n${report.violations.length} violation(s).\n`);
    return 1;
  } finally {
    await client.end();
    await drop?.();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
      process.exit(2);
    },
  );
}
