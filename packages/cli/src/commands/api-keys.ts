import { Command } from 'commander';
import { z } from 'zod';
import { print, printJson } from '../output.js';
import { withProjectOption } from '../project.js';
import { withApp } from '../run-app.js';
import { parseOptions } from '../validate.js';
import { ENVIRONMENT_HELP } from './environment-help.js';

interface CreateOptions {
  tenant?: string;
  name?: string;
  scope?: string;
  expiresAt?: string;
  json?: boolean;
  config?: string;
}

export function apiKeysCommand(): Command {
  const keys = new Command('api-keys').summary("manage the stores' API keys").description("Manage the stores' API keys.");
  keys.addCommand(
    withProjectOption(new Command('create'))
      .description(
        'Issue an API key for a store and print it. The token is shown only this once: store it safely. An admin key runs the store (/admin, catalog writes); a storefront key is for the shop front.',
      )
      .requiredOption('--tenant <id>', "the store's id (a UUID)")
      .requiredOption('--name <name>', 'what the key is for, e.g. "Back office"')
      .requiredOption('--scope <scope>', 'admin | storefront')
      .option('--expires-at <time>', 'ISO 8601 time with offset, e.g. 2030-01-31T00:00:00Z (default: never)')
      .option('--json', 'print only the key, as JSON')
      .addHelpText('after', `\nExample:\n  qhatu api-keys create --tenant 0b6f... --name "Shop front" --scope storefront\n${ENVIRONMENT_HELP}`)
      .action((options: CreateOptions) => createApiKey(options)),
  );
  return keys;
}

async function createApiKey(options: CreateOptions): Promise<void> {
  const { Tenants, Uuid } = await import('@qhatu/core');
  const input = parseOptions(
    z.object({
      tenant: Uuid,
      name: z.string().trim().min(1, 'must not be empty').max(200),
      scope: z.enum(['admin', 'storefront'], { message: 'must be admin or storefront' }),
      expiresAt: z.iso
        .datetime({ offset: true, message: 'must be an ISO 8601 time, e.g. 2030-01-31T00:00:00Z' })
        .refine((at) => Date.parse(at) > Date.now(), 'must be in the future')
        .optional(),
    }),
    options,
  );
  const key = await withApp({ config: options.config, command: 'api-keys create' }, async (app) => {
    const { token, record } = await app.container.resolve(Tenants).issueApiKey(input.tenant, {
      name: input.name,
      scope: input.scope,
      expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
    });
    return {
      id: record.id,
      tenant_id: record.tenantId,
      name: record.name ?? input.name,
      scope: input.scope,
      token,
      expires_at: record.expiresAt?.toISOString() ?? null,
      created_at: record.createdAt.toISOString(),
    };
  });
  if (options.json) return printJson(key);
  print(`Issued the ${key.scope} key "${key.name}" for store ${key.tenant_id}.`);
  print('The token is shown only now; store it safely:');
  printJson(key);
  print('\nUse it with:');
  print(`  -H "Authorization: Bearer ${key.token}" -H "X-Tenant-ID: ${key.tenant_id}"`);
}
