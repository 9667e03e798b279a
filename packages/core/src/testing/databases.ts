import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrateAll } from '../app.js';
import { corePlugin } from '../core-plugin.js';
import { CustomFields } from '../custom-fields/registry.js';
import { orderPlugins, type QhatuPlugin } from '../plugin.js';

export const TEST_DB_PREFIX = 'qhatu_test_';
export const TEMPLATE_PREFIX = 'qhatu_tpl_';

export function adminUrl(): string {
  return process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

export function urlFor(database: string): string {
  const url = new URL(adminUrl());
  url.pathname = `/${database}`;
  return url.toString();
}

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A migrated template per set of migrations, made once and copied by every test file. */
async function ensureTemplate(plugins: QhatuPlugin[]): Promise<string> {
  const ordered = orderPlugins([corePlugin, ...plugins.filter((p) => p.name !== 'core')]);
  const fingerprint = createHash('sha256');
  for (const plugin of ordered) {
    for (const m of plugin.migrations ?? []) fingerprint.update(`${plugin.name}/${m.id}\n${JSON.stringify(m.up)}\n`);
  }
  // What `qhatu migrate` makes for indexed custom fields is part of the schema too.
  for (const index of new CustomFields(ordered).indexes()) fingerprint.update(`${index.columnSql}\n${index.sql}\n`);
  const name = `${TEMPLATE_PREFIX}${fingerprint.digest('hex').slice(0, 16)}`;
  await withAdmin(async (client) => {
    await client.query('select pg_advisory_lock(7210417002)');
    try {
      const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
      if (rowCount) return;
      const building = `${name}_build`;
      await client.query(`drop database if exists ${building} with (force)`);
      await client.query(`create database ${building}`);
      await migrateAll(urlFor(building), ordered);
      await client.query(`alter database ${building} rename to ${name}`);
    } finally {
      await client.query('select pg_advisory_unlock(7210417002)');
    }
  });
  return name;
}

/** How long a drop waits for the database's last connections to close before it ends them. */
const DRAIN_MS = 3000;

/** A fresh database for one test file, copied from the migrated template. */
export async function createTestDatabase(plugins: QhatuPlugin[]): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const template = await ensureTemplate(plugins);
  // The creation time in the name lets a later run drop what a killed run left, and only that.
  const name = `${TEST_DB_PREFIX}${Math.floor(Date.now() / 1000)}_${randomBytes(4).toString('hex')}`;
  await withAdmin(async (client) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await client.query(`create database ${name} template ${template}`);
        return;
      } catch (error) {
        // Two copies of one template at the same instant: PostgreSQL asks the second to wait.
        if (attempt < 20 && /being accessed by other users/.test((error as Error).message)) {
          await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
          continue;
        }
        throw error;
      }
    }
  });
  return {
    name,
    url: urlFor(name),
    drop: () =>
      withAdmin(async (client) => {
        // Connections an app closed may still be on their way out (a pool ends its clients one by one):
        // dropped by force, one would hear PostgreSQL's termination with nobody listening.
        for (let waited = 0; waited < DRAIN_MS; waited += 50) {
          const { rows } = await client.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where datname = $1', [name]);
          if (rows[0]!.n === 0) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        await client.query(`drop database if exists ${name} with (force)`);
      }),
  };
}

/**
 * Drops test databases older than `olderThanMs` that earlier (killed) runs left behind; a run
 * going on beside this one keeps its own. Templates stay: their names pin their migrations.
 */
export async function dropTestDatabases(olderThanMs = 2 * 3600_000): Promise<void> {
  await withAdmin(async (client) => {
    const { rows } = await client.query<{ datname: string }>('select datname from pg_database where datname like $1', [
      `${TEST_DB_PREFIX}%`,
    ]);
    const cutoff = (Date.now() - olderThanMs) / 1000;
    for (const { datname } of rows) {
      const created = Number(/^qhatu_test_(\d+)_/.exec(datname)?.[1] ?? 0);
      if (created < cutoff) await client.query(`drop database if exists ${datname} with (force)`);
    }
  });
}
