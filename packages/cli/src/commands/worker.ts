import { Command } from 'commander';
import { observabilityLines } from '../banner.js';
import { lockDataDir } from '../data-lock.js';
import { readConfig } from '../environment.js';
import { requireMigrated } from '../migration-status.js';
import { print } from '../output.js';
import { loadProject, withProjectOption } from '../project.js';
import { shutdownSignal } from '../shutdown.js';
import { ENVIRONMENT_HELP } from './environment-help.js';

interface WorkerOptions {
  config?: string;
  migrate?: boolean;
}

export function workerCommand(): Command {
  return withProjectOption(new Command('worker'))
    .summary('run the background jobs and the event relay, without HTTP')
    .description(
      'Run the job workers and the outbox relay (webhooks, emails, scheduled work) without serving HTTP. Run as many as the load needs beside `qhatu start --no-workers`, on the same DATABASE_URL. With QHATU_METRICS_PORT it answers /health/live, /health/ready and /metrics there. Stops cleanly on Ctrl+C or SIGTERM.',
    )
    .option('--migrate', 'apply pending migrations before starting')
    .addHelpText('after', ENVIRONMENT_HELP)
    .action((options: WorkerOptions) => work(options));
}

async function work(options: WorkerOptions): Promise<void> {
  const stopped = shutdownSignal();
  const project = await loadProject(options.config);
  const config = await readConfig();
  const release = config.embedded ? lockDataDir(config.dataDir, 'worker') : undefined;
  try {
    const { createApp } = await import('@qhatu/core');
    const app = await createApp({ plugins: project.plugins, config, workers: true, migrate: config.embedded || Boolean(options.migrate) });
    try {
      await requireMigrated(app, 'start the worker with --migrate');
      const at = await app.listenMetrics();
      print(`Qhatu worker running (pid ${process.pid}): jobs and the event relay. Press Ctrl+C to stop.`);
      print(`  Health          ${at ? `${at}/health/live, ${at}/health/ready` : 'no port: set QHATU_METRICS_PORT to answer /health/live, /health/ready and /metrics'}`);
      for (const line of await observabilityLines(app, undefined, at)) print(line);
      await stopped;
    } finally {
      await app.close();
    }
  } finally {
    release?.();
  }
}
