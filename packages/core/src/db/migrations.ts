import pg from 'pg';
import { syncCustomFieldIndexes } from '../custom-fields/indexes.js';
import { CustomFields } from '../custom-fields/registry.js';
import type { QhatuPlugin } from '../plugin.js';

/** The role that tenant transactions run as; row-level security applies to it. */
export const APP_ROLE = 'qhatu_app';

export interface Migration {
  /** Unique within the plugin and sortable, e.g. `0001_products`. */
  id: string;
  /** SQL statements run in one transaction. */
  up: string | string[];
}

/** What a tenant-owned table needs for row-level security: one line in a migration. */
export function tenantTable(table: string): string {
  const current = `nullif(current_setting('app.tenant_id', true), '')::uuid`;
  return `
    ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY;
    CREATE POLICY ${table}_tenant_isolation ON ${table}
      USING (tenant_id = ${current}) WITH CHECK (tenant_id = ${current});
    GRANT SELECT, INSERT, UPDATE, DELETE ON ${table} TO ${APP_ROLE};`;
}

export interface MigrationReport {
  applied: string[];
}

const LOCK_KEY = 7_210_417_001; // pg_advisory_lock key: one migrator at a time per database

/**
 * Applies every plugin's pending migrations in plugin order, each in its own transaction, then
 * makes (and drops) the indexes of the plugins' indexed custom fields.
 */
export async function migrate(
  connectionString: string,
  plugins: QhatuPlugin[],
  log: (line: string) => void = () => {},
): Promise<MigrationReport> {
  // Declarations that do not hold stop here, before anything is applied.
  const customFields = new CustomFields(plugins);
  const client = new pg.Client({ connectionString });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query('select pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS qhatu_migrations (
      plugin text NOT NULL, id text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (plugin, id))`);
    const { rows } = await client.query<{ plugin: string; id: string }>('select plugin, id from qhatu_migrations');
    const done = new Set(rows.map((r) => `${r.plugin}/${r.id}`));
    for (const plugin of plugins) {
      const migrations = [...(plugin.migrations ?? [])].sort((a, b) => a.id.localeCompare(b.id));
      for (const migration of migrations) {
        const key = `${plugin.name}/${migration.id}`;
        if (done.has(key)) continue;
        await client.query('BEGIN');
        try {
          const statements = Array.isArray(migration.up) ? migration.up : [migration.up];
          for (const sql of statements) await client.query(sql);
          await client.query('insert into qhatu_migrations (plugin, id) values ($1, $2)', [plugin.name, migration.id]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw new Error(`Migration ${key} failed: ${(error as Error).message}`, { cause: error });
        }
        applied.push(key);
        log(`applied ${key}`);
      }
    }
    await syncCustomFieldIndexes(client, customFields, log);
  } finally {
    await client.query('select pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => {});
    await client.end();
  }
  return { applied };
}

/** The plugins' migrations that the database has not applied yet (`plugin/id`), in plugin order. */
export async function pendingMigrations(db: { query<T>(sql: string): Promise<T[]> }, plugins: QhatuPlugin[]): Promise<string[]> {
  let applied = new Set<string>();
  try {
    const rows = await db.query<{ plugin: string; id: string }>('select plugin, id from qhatu_migrations');
    applied = new Set(rows.map((r) => `${r.plugin}/${r.id}`));
  } catch (error) {
    // An empty database has no ledger yet: everything is pending.
    const missingTable = (error as { code?: string }).code === '42P01' || /qhatu_migrations.*does not exist/.test((error as Error).message);
    if (!missingTable) throw error;
  }
  return plugins.flatMap((p) => (p.migrations ?? []).map((m) => `${p.name}/${m.id}`)).filter((key) => !applied.has(key));
}
