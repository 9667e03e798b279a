import { Command } from 'commander';
import { startBanner } from '../banner.js';
import { lockDataDir, shareDatabase } from '../data-lock.js';
import { readConfig } from '../environment.js';
import { requireMigrated } from '../migration-status.js';
import { print } from '../output.js';
import { loadProject, withProjectOption } from '../project.js';
import { shutdownSignal } from '../shutdown.js';
import { ENVIRONMENT_HELP } from './environment-help.js';

interface StartOptions {
  config?: string;
  workers?: boolean;
  migrate?: boolean;
}

export function startCommand(): Command {
  return withProjectOption(new Command('start'))
    .summary('serve the store: REST, GraphQL and the API docs')
    .description(
      'Serve the store on HOST:PORT: the REST API, GraphQL and the API docs at /docs. Without DATABASE_URL it runs on an embedded database in QHATU_DATA_DIR, migrates it, and prints the platform token and the curl that creates a first store. Stops cleanly on Ctrl+C or SIGTERM.',
    )
    .option('--workers', 'run the job workers and the event relay in this process (default: only with the embedded database)')
    .option('--no-workers', 'do not run them here; run `qhatu worker` beside it')
    .option('--migrate', 'apply pending migrations before serving (always done with the embedded database)')
    .addHelpText('after', ENVIRONMENT_HELP)
    .action((options: StartOptions) => start(options));
}

async function start(options: StartOptions): Promise<void> {
  // Listen for signals from the start: Ctrl+C during a long migration stops once it is done.
  const stopped = shutdownSignal();
  const project = await loadProject(options.config);
  const config = await readConfig();
  const release = config.embedded ? lockDataDir(config.dataDir, 'start') : undefined;
  try {
    const workers = options.workers ?? config.embedded;
    const { createApp } = await import('@qhatu/core');
    const app = await createApp({ plugins: project.plugins, config, workers, migrate: config.embedded || Boolean(options.migrate) });
    if (release) shareDatabase(config.dataDir, app.databaseUrl);
    try {
      await requireMigrated(app, 'start with --migrate');
      const address = await app.listen();
      for (const line of startBanner({ address, app, workers, tokenFromEnv: Boolean(config.platformToken) })) print(line);
      await stopped;
    } finally {
      await app.close();
    }
  } finally {
    release?.();
  }
}
