import type { QhatuApp } from '@qhatu/core';
import { lockDataDir } from './data-lock.js';
import { commandLogger, readConfig } from './environment.js';
import { requireMigrated } from './migration-status.js';
import { loadProject } from './project.js';

/**
 * Runs `work` against the project's store without serving HTTP or running jobs
 * (for one-shot commands such as `tenants create`), then closes everything.
 */
export async function withApp<T>(options: { config?: string; command: string }, work: (app: QhatuApp) => Promise<T>): Promise<T> {
  const project = await loadProject(options.config);
  const config = await readConfig();
  const release = config.embedded ? lockDataDir(config.dataDir, options.command) : undefined;
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
