import path from 'node:path';
import { Command } from 'commander';
import { oneShotDatabase } from '../data-lock.js';
import { readConfig } from '../environment.js';
import { print, withoutPassword } from '../output.js';
import { loadProject, withProjectOption } from '../project.js';
import { ENVIRONMENT_HELP } from './environment-help.js';

export function migrateCommand(): Command {
  return withProjectOption(new Command('migrate'))
    .summary("apply the plugins' pending migrations")
    .description(
      'Apply the pending migrations of core and of every plugin in the project, in dependency order, each in its own transaction. With DATABASE_URL it migrates that database; without it, the embedded one in QHATU_DATA_DIR (which `qhatu start` also migrates by itself; beside a running `qhatu start`, through it). Safe to run twice.',
    )
    .addHelpText('after', ENVIRONMENT_HELP)
    .action((options: { config?: string }) => migrate(options));
}

async function migrate(options: { config?: string }): Promise<void> {
  const project = await loadProject(options.config);
  const config = await readConfig();
  const { directDatabaseUrl, migrateAll, startEmbeddedDatabase } = await import('@qhatu/core');
  const log = (line: string) => print(`  ${line}`);
  // Beside a running `qhatu start`, through the database it serves (it holds the files).
  const { databaseUrl, store, release } = oneShotDatabase(config, 'migrate');
  let applied: string[];
  try {
    if (databaseUrl) {
      // Past a pooler (DATABASE_DIRECT_URL): the migrator's lock needs one session throughout.
      const url = store ? databaseUrl : directDatabaseUrl(process.env, databaseUrl);
      print(store ? `Migrating the embedded database of the running store (${path.resolve(config.dataDir)})` : `Migrating ${withoutPassword(url)}`);
      applied = (await migrateAll(url, project.plugins, log)).applied;
    } else {
      const database = await startEmbeddedDatabase(config.dataDir);
      try {
        print(`Migrating the embedded database in ${path.resolve(config.dataDir)}`);
        applied = (await migrateAll(database.url, project.plugins, log)).applied;
      } finally {
        await database.close();
      }
    }
  } finally {
    release?.();
  }
  print(applied.length ? `Applied ${applied.length} migration(s).` : 'Nothing to apply: the database is up to date.');
}
