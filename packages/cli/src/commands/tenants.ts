import { Command } from 'commander';
import { print, printJson } from '../output.js';
import { withProjectOption } from '../project.js';
import { withApp } from '../run-app.js';
import { parseOptions } from '../validate.js';
import { ENVIRONMENT_HELP } from './environment-help.js';

interface CreateOptions {
  name?: string;
  slug?: string;
  currency?: string;
  locale?: string;
  json?: boolean;
  config?: string;
}

export function tenantsCommand(): Command {
  const tenants = new Command('tenants').summary('manage the stores (tenants) of the platform').description('Manage the stores (tenants) of the platform.');
  tenants.addCommand(
    withProjectOption(new Command('create'))
      .description('Create a store and print it; then give it an API key with `qhatu api-keys create`.')
      .requiredOption('--name <name>', 'the store name, e.g. "Café Andino"')
      .option('--slug <slug>', 'its unique short name (default: made from the name)')
      .option('--currency <code>', 'ISO 4217 code in capitals (default USD)')
      .option('--locale <locale>', 'default locale such as es or es-PE (default en)')
      .option('--json', 'print only the store, as JSON')
      .addHelpText('after', `\nExample:\n  qhatu tenants create --name "Café Andino" --currency PEN --locale es-PE\n${ENVIRONMENT_HELP}`)
      .action((options: CreateOptions) => createTenant(options)),
  );
  return tenants;
}

async function createTenant(options: CreateOptions): Promise<void> {
  const { TenantInput, Tenants, tenantOut } = await import('@qhatu/core');
  // The API's own rules, with each problem named by its flag.
  const input = parseOptions(
    TenantInput,
    { name: options.name, slug: options.slug, currency: options.currency, default_locale: options.locale },
    { default_locale: '--locale' },
  );
  const tenant = await withApp({ config: options.config, command: 'tenants create' }, async (app) =>
    tenantOut(await app.container.resolve(Tenants).create(input)),
  );
  if (options.json) return printJson(tenant);
  print(`Created the store "${tenant.name}" (slug ${tenant.slug}, id ${tenant.id}):`);
  printJson(tenant);
  print('\nNext, give it an admin API key:');
  print(`  qhatu api-keys create --tenant ${tenant.id} --name "Admin" --scope admin`);
}
