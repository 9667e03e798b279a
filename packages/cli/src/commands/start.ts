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
      'Serve the store on HOST:PORT: the REST API, GraphQL and the API docs at /docs. Without DATABASE_URL it runs on an embedded database in QHATU_DATA_DIR and migrates it. In development (embedded, or QHATU_ENV=development) it runs the job workers too and prints a generated platform token (kept in QHATU_DATA_DIR/platform-token) with the curl that creates a first store. Stops cleanly on Ctrl+C or SIGTERM.',
    )
    .option('--workers', 'run the job workers and the event relay in this process (default: in development, i.e. with the embedded database or QHATU_ENV=development)')
    .option('--no-workers', 'do not run them here; run `qhatu worker` beside it')
    .option('--migrate', 'apply pending migrations before serving (always done with the embedded database)')
    .addHelpText('after', ENVIRONMENT_HELP)
    .action((options: StartOptions) => start(options));
}

async function start(options: StartOptions): Promise<void> {
  // Listen for signals from the start: Ctrl+C during a long migration stops once it is done.
  const stopped = shutdownSignal();
  // The embedded database starts in a thread of its own while the project's modules load (its data folder locked first).
  const { embeddedDataDir, startEmbeddedDatabaseInThread } = await import('@qhatu/core/embedded');
  const dataDir = embeddedDataDir();
  const release = dataDir ? lockDataDir(dataDir, 'start') : undefined;
  const embedded = dataDir ? startEmbeddedDatabaseInThread(dataDir) : undefined;
  // Its failure is the app's to report (or moot when the project fails first): never an unhandled rejection.
  embedded?.catch(() => undefined);
  try {
    const project = await loadProject(options.config);
    const config = await readConfig();
    // Development (the embedded database, or QHATU_ENV=development on PostgreSQL) runs the jobs here.
    const workers = options.workers ?? config.env === 'development';
    const { createApp } = await import('@qhatu/core');
    const app = await createApp({ plugins: project.plugins, config, workers, migrate: config.embedded || Boolean(options.migrate), embedded });
    try {
      await requireMigrated(app, 'start with --migrate');
      const address = await app.listen();
      // Commands run beside it reach its embedded database, and name its address in their links.
      if (release) shareDatabase(config.dataDir, app.databaseUrl, config.port === 0 ? address : config.publicUrl);
      const metricsAddress = await app.listenMetrics();
      for (const line of await startBanner({ address, app, workers, tokenFromEnv: Boolean(config.platformToken), metricsAddress })) print(line);
      await stopped;
    } finally {
      await app.close();
    }
  } finally {
    // Closed by the app; also when the project or the configuration failed before the app took it.
    await embedded?.then((database) => database.close(), () => undefined);
    release?.();
  }
}
