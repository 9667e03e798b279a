import type { QhatuApp } from '@qhatu/core';
import { oneShotDatabase } from './data-lock.js';
import { commandLogger, readConfig } from './environment.js';
import { requireMigrated } from './migration-status.js';
import { loadProject } from './project.js';

/**
 * Runs `work` against the project's store without serving HTTP or running jobs
 * (for one-shot commands such as `tenants create`), then closes everything.
 */
export async function withApp<T>(options: { config?: string; command: string }, work: (app: QhatuApp) => Promise<T>): Promise<T> {
  const project = await loadProject(options.config);
  const read = await readConfig();
  // Beside a running `qhatu start`, its embedded database is reached through the port it serves,
  // and the links this command hands out name that store's address.
  const { databaseUrl, store, release } = oneShotDatabase(read, options.command);
  const config = store ? { ...read, databaseUrl, publicUrl: store.publicUrl ?? read.publicUrl } : read;
  try {
    const { createApp } = await import('@qhatu/core');
    const app = await createApp({ plugins: project.plugins, config, workers: false, logger: await commandLogger(config) });
    try {
      await requireMigrated(app);
      return await work(app);
    } finally {
      await app.close();
    }
  } finally {
    release?.();
  }
}
