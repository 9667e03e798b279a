import type { QhatuApp } from '@qhatu/core';
import { CliError } from './errors.js';

/** The project's migrations that the database has not applied yet (`plugin/id`). */
export async function pendingMigrations(app: QhatuApp): Promise<string[]> {
  const { Database, pendingMigrations: pendingOf } = await import('@qhatu/core');
  return pendingOf(app.container.resolve(Database), app.plugins);
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
