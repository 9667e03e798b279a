import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { apiKeysCommand } from './commands/api-keys.js';
import { migrateCommand } from './commands/migrate.js';
import { migrationCommand } from './commands/migration.js';
import { newCommand } from './commands/new.js';
import { pluginCommand } from './commands/plugin.js';
import { staffCommand } from './commands/staff.js';
import { startCommand } from './commands/start.js';
import { tenantsCommand } from './commands/tenants.js';
import { workerCommand } from './commands/worker.js';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

/** The `qhatu` command and its subcommands. */
export function buildProgram(): Command {
  return new Command('qhatu')
    .description('Run and manage a Qhatu store. Run it in the folder that holds qhatu.config.ts.')
    .version(version, '-v, --version')
    .showHelpAfterError('(add --help for usage)')
    .addCommand(newCommand())
    .addCommand(startCommand())
    .addCommand(workerCommand())
    .addCommand(migrateCommand())
    .addCommand(migrationCommand())
    .addCommand(tenantsCommand())
    .addCommand(apiKeysCommand())
    .addCommand(staffCommand())
    .addCommand(pluginCommand());
}
