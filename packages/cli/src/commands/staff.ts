import path from 'node:path';
import type { QhatuConfig } from '@qhatu/core';
import { Command } from 'commander';
import { z } from 'zod';
import { CliError } from '../errors.js';
import { print, printJson } from '../output.js';
import { withProjectOption } from '../project.js';
import { withApp } from '../run-app.js';
import { parseOptions } from '../validate.js';
import { ENVIRONMENT_HELP } from './environment-help.js';

interface CreateOptions {
  tenant?: string;
  email?: string;
  role?: string;
  firstName?: string;
  lastName?: string;
  json?: boolean;
  config?: string;
}

export function staffCommand(): Command {
  const staff = new Command('staff').summary("manage the stores' staff members").description("Manage the stores' staff members (the people who run a store).");
  staff.addCommand(
    withProjectOption(new Command('create'))
      .description(
        'Add a staff member to a store, e.g. its first owner. With QHATU_STAFF_PASSWORD set, that is their password and they can sign in at once ' +
          '(POST /api/v1/auth/staff/login); without it they are e-mailed a single-use link to choose one (SMTP_URL, or an .eml file in the data folder), ' +
          "accepted with POST /api/v1/auth/staff/password. Links name the store's address: QHATU_PUBLIC_URL, else HOST and PORT, else those of the running `qhatu start`.",
      )
      .requiredOption('--tenant <id>', "the store's id (a UUID)")
      .requiredOption('--email <email>', 'their e-mail address, with which they sign in')
      .requiredOption('--role <role>', 'owner, admin, or the name of a role the store defined')
      .option('--first-name <name>', 'their first name')
      .option('--last-name <name>', 'their last name')
      .option('--json', 'print only the staff member, as JSON')
      .addHelpText(
        'after',
        `\nExample:\n  QHATU_STAFF_PASSWORD='a long secret' qhatu staff create --tenant 0b6f... --email rosa@example.com --role owner\n` +
          `\n  QHATU_STAFF_PASSWORD   the new member's password (8 to 200 characters); kept out of the command line\n${ENVIRONMENT_HELP}`,
      )
      .action((options: CreateOptions) => createStaff(options)),
  );
  return staff;
}

async function createStaff(options: CreateOptions): Promise<void> {
  const { Roles, StaffMembers, Tenants, TenantContext, Uuid, staffOut } = await import('@qhatu/core');
  const input = parseOptions(
    z.object({
      tenant: Uuid,
      email: z.string().trim().toLowerCase().max(254).pipe(z.email({ message: 'must be an e-mail address' })),
      role: z.string().trim().min(1, 'must not be empty').max(100),
      firstName: z.string().trim().max(100).default(''),
      lastName: z.string().trim().max(100).default(''),
      password: z.string().min(8, 'must be at least 8 characters').max(200, 'must be at most 200 characters').optional(),
    }),
    { ...options, password: process.env.QHATU_STAFF_PASSWORD || undefined },
    { password: 'QHATU_STAFF_PASSWORD' },
  );
  const created = await withApp({ config: options.config, command: 'staff create' }, async (app) => {
    const tenant = await app.container.resolve(Tenants).get(input.tenant);
    // Run as the operator inside the store: like an admin key without a role, every permission.
    return TenantContext.run({ tenantId: tenant.id }, async () => {
      const role = await app.container.resolve(Roles).findByName(input.role);
      if (!role) throw new CliError(`The store has no role named "${input.role}"`, ['the built-in roles are owner and admin']);
      const member = await app.container.resolve(StaffMembers).create({
        email: input.email,
        first_name: input.firstName,
        last_name: input.lastName,
        role_id: role.id,
        password: input.password,
      });
      return { member: { ...staffOut(member), tenant_id: tenant.id }, role: role.name, store: storeFacts(app.config) };
    });
  });
  if (options.json) return printJson(created.member);
  const { member, store } = created;
  print(`Added ${member.email} to store ${member.tenant_id} as ${created.role}.`);
  printJson(member);
  const json = (fields: Record<string, string>) => `'${JSON.stringify(fields)}'`;
  const post = (route: string, body: Record<string, string>) =>
    `  curl -X POST ${store.publicUrl}/api/v1/auth/staff/${route} -H "X-Tenant-ID: ${member.tenant_id}" -H 'Content-Type: application/json' -d ${json(body)}`;
  if (input.password) {
    print('\nThey sign in with:');
    print(post('login', { email: member.email, password: '<their password>' }));
    return;
  }
  print(`\nAn invitation was e-mailed to ${member.email}${store.mailFolder ? ` (no SMTP_URL: written to ${path.join(store.mailFolder, member.tenant_id)})` : ''}.`);
  print(`Its single-use link opens ${store.passwordPage}?tenant=…&token=…&purpose=invite`);
  if (!store.ownPage) print('Qhatu serves no page there (an admin app of your own would, named by QHATU_STAFF_PASSWORD_URL).');
  print("They accept it through the API with the link's token, and get a staff token back:");
  print(post('password', { token: '<token from the link>', password: '<8 characters or more>' }));
}

/** Where the invitation's link leads, built as core builds it (`QHATU_STAFF_PASSWORD_URL`, else the store's own address). */
function storeFacts(config: QhatuConfig) {
  const ownPage = config.environment.QHATU_STAFF_PASSWORD_URL || undefined;
  return {
    publicUrl: config.publicUrl,
    passwordPage: ownPage ?? `${config.publicUrl}/staff/password`,
    ownPage: Boolean(ownPage),
    mailFolder: config.smtpUrl ? undefined : path.resolve(config.dataDir, 'mail'),
  };
}
