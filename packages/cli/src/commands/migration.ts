import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Command } from 'commander';
import { CliError } from '../errors.js';
import { nextMigrationId, writeMigration } from '../migration/write.js';
import { print } from '../output.js';
import { withProjectOption } from '../project.js';
import { withApp } from '../run-app.js';
import { storeProjectAt } from '../scaffold/store-project.js';
import { ENVIRONMENT_HELP } from './environment-help.js';

interface GenerateOptions {
  dir?: string;
  name?: string;
  config?: string;
}

export function migrationCommand(): Command {
  const migration = new Command('migration').summary("write plugins' migrations").description("Write plugins' migrations.");
  migration.addCommand(
    withProjectOption(new Command('generate'))
      .description(
        "Write a plugin's next migration from the difference between its entities and the database: new tables (tenant_id first in the key and in every index and unique constraint, row-level security), new columns and new indexes. It never drops or changes what exists (those differences are listed, to write by hand). The database must have every migration applied (qhatu migrate).",
      )
      .argument('<plugin>', "the plugin's name, as definePlugin({ name }) gives it; the plugin must be in the project file")
      .option('--dir <folder>', "the plugin's package folder (default: ./packages/plugin-<plugin>, else the folder the project's @qhatu/plugin-<plugin> links to)")
      .option('--name <words>', 'what to name the migration after (default: its new tables, else "columns")')
      .addHelpText('after', `\nExample:\n  qhatu migration generate gift-wrap     # writes packages/plugin-gift-wrap/src/migrations/0002_….ts\n${ENVIRONMENT_HELP}`)
      .action((plugin: string, options: GenerateOptions) => generate(plugin, options)),
  );
  return migration;
}

async function generate(name: string, options: GenerateOptions): Promise<void> {
  const dir = pluginFolder(name, options.dir);
  const { plugin, plan } = await withApp({ config: options.config, command: 'migration generate' }, async (app) => {
    const found = app.plugins.find((p) => p.name === name);
    if (!found) {
      throw new CliError(`the project has no plugin named "${name}"`, [`add it to the project file first; it has: ${app.plugins.map((p) => p.name).join(', ')}`]);
    }
    // MikroORM's schema tools load only for this command.
    const { planMigration } = await import('../migration/plan.js');
    return { plugin: found, plan: await planMigration(app, found) };
  });
  const shown = (file: string) => path.relative(process.cwd(), file) || file;
  const qhatu = commandPrefix(process.cwd());
  if (!plan.steps.length) {
    print(`Nothing to generate: the database has every table, column and index the entities of ${name} declare.`);
    for (const note of plan.notes) print(`  note: ${note}`);
    return;
  }
  const id = nextMigrationId(plugin, plan, options.name);
  const { file, listedIn } = await writeMigration(dir, plugin, id, plan);
  print(`Wrote ${shown(file)} (${name}/${id}):`);
  for (const change of plan.changes) print(`  ${change}`);
  for (const warning of plan.warnings) print(`  warning: ${warning}`);
  for (const note of plan.notes) print(`  note: ${note}`);
  print(
    listedIn
      ? `\nListed in ${shown(listedIn)}. Read it, then apply it: ${qhatu} migrate`
      : `\nAdd it to the plugin's migrations (definePlugin({ migrations: [...] })), then apply it: ${qhatu} migrate`,
  );
}

/** Where the plugin's sources are: `--dir`, `./packages/plugin-<name>`, or the folder its package links to (never an installed copy). */
function pluginFolder(name: string, dir?: string): string {
  const isDir = (folder: string) => existsSync(folder) && statSync(folder).isDirectory();
  if (dir) {
    if (!isDir(path.resolve(dir))) throw new CliError(`--dir ${dir}: no such folder`);
    return path.resolve(dir);
  }
  const local = path.resolve('packages', `plugin-${name}`);
  if (isDir(local)) return local;
  const packageName = `@qhatu/plugin-${name}`;
  let entry: string | undefined;
  try {
    entry = realpathSync(createRequire(path.resolve('package.json')).resolve(packageName));
  } catch {
    // not a dependency of the project: the hint below says what to do
  }
  for (let folder = entry && path.dirname(entry); folder && path.dirname(folder) !== folder; folder = path.dirname(folder)) {
    const manifest = path.join(folder, 'package.json');
    if (!existsSync(manifest) || JSON.parse(readFileSync(manifest, 'utf8')).name !== packageName) continue;
    if (folder.split(path.sep).includes('node_modules')) {
      throw new CliError(`${packageName} is an installed package (${folder}): its migrations ship with it`, ['generate migrations in the folder of its sources, with --dir']);
    }
    return folder;
  }
  throw new CliError(`cannot find the folder of the plugin "${name}" (no ./packages/plugin-${name})`, ['pass --dir <the plugin package folder>']);
}

/** How the person at this folder runs qhatu: through the store's script, the repository's, or on the PATH. */
function commandPrefix(cwd: string): string {
  const project = storeProjectAt(cwd);
  if (project) return project.packageManager === 'npm' ? 'npm run qhatu --' : 'pnpm qhatu';
  try {
    return JSON.parse(readFileSync(path.join(cwd, 'package.json'), 'utf8')).scripts?.qhatu ? 'pnpm qhatu' : 'qhatu';
  } catch {
    return 'qhatu';
  }
}
