import type { QhatuApp } from '@qhatu/core';
import { CliError } from './errors.js';

/** The project's migrations that the database has not applied yet (`plugin/id`). */
export async function pendingMigrations(app: QhatuApp): Promise<string[]> {
  const { Database } = await import('@qhatu/core');
  let applied = new Set<string>();
  try {
    const rows = await app.container.resolve(Database).query<{ plugin: string; id: string }>('select plugin, id from qhatu_migrations');
    applied = new Set(rows.map((r) => `${r.plugin}/${r.id}`));
  } catch (error) {
    // An empty database has no ledger yet: everything is pending.
    const missingTable = (error as { code?: string }).code === '42P01' || /qhatu_migrations.*does not exist/.test((error as Error).message);
    if (!missingTable) throw error;
  }
  return app.plugins.flatMap((p) => (p.migrations ?? []).map((m) => `${p.name}/${m.id}`)).filter((key) => !applied.has(key));
}

/** Refuses to work on a database whose schema is behind the code. */
export async function requireMigrated(app: QhatuApp, alternative?: string): Promise<void> {
  const pending = await pendingMigrations(app);
  if (!pending.length) return;
  const shown = pending.slice(0, 5).join(', ') + (pending.length > 5 ? ', ...' : '');
  throw new CliError(`the database is not up to date: ${pending.length} migration(s) pending (${shown})`, [
    `run \`qhatu migrate\` first${alternative ? `, or ${alternative}` : ''}`,
  ]);
}
