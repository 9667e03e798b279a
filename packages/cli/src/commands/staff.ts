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
          '(POST /api/v1/auth/staff/login); without it they are e-mailed a single-use link to choose one (SMTP_URL, or an .eml file in the data folder).',
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
      return { member: { ...staffOut(member), tenant_id: tenant.id }, role: role.name };
    });
  });
  if (options.json) return printJson(created.member);
  print(`Added ${created.member.email} to store ${created.member.tenant_id} as ${created.role}.`);
  printJson(created.member);
  if (input.password) {
    print('\nThey sign in with:');
    print(`  POST /api/v1/auth/staff/login  -H "X-Tenant-ID: ${created.member.tenant_id}"  {"email": "${created.member.email}", "password": ...}`);
  } else {
    print(`\nAn invitation with a single-use link to choose a password was e-mailed to ${created.member.email}.`);
  }
}
