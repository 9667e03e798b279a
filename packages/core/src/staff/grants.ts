import { AppError } from '../errors.js';
import { TenantContext } from '../context.js';
import { AccessToken, Role, StaffMember } from '../db/entities.js';
import type { Tx } from '../db/database.js';

/** What the caller may hand out: an owner may do anything; others only what they hold. */
export interface Grant {
  owner: boolean;
  /** null: every permission. */
  permissions: ReadonlySet<string> | null;
}

const EVERYTHING: Grant = { owner: true, permissions: null };

/** The caller's grant, read in the transaction: an admin key without a role (or the CLI) is an owner. */
export async function callerGrant(tx: Tx): Promise<Grant> {
  const principal = TenantContext.principal();
  if (!principal) return EVERYTHING;
  let roleId: string;
  if (principal.kind === 'admin') {
    const key = await tx.em.findOne(AccessToken, { id: principal.tokenId! }, { fields: ['roleId'] });
    if (!key?.roleId) return EVERYTHING;
    roleId = key.roleId;
  } else if (principal.kind === 'staff') {
    const member = await tx.em.findOne(StaffMember, { id: principal.subjectId! }, { fields: ['roleId'] });
    if (!member) throw AppError.unauthenticated('This staff account was removed');
    roleId = member.roleId;
  } else {
    return { owner: false, permissions: new Set() };
  }
  const role = await tx.em.findOneOrFail(Role, { id: roleId });
  return { owner: role.builtIn === 'owner', permissions: role.builtIn ? null : new Set(role.permissions) };
}

/** What a refusal says the caller tried: handing permissions out, or changing or deleting a role that holds them. */
export type GrantAction = 'grant' | 'change' | 'delete';

const REFUSALS: Record<GrantAction, string> = {
  grant: 'You cannot grant permissions you do not hold',
  change: 'You cannot change a role that holds permissions you do not hold',
  delete: 'You cannot delete a role that holds permissions you do not hold',
};

/** Refuses (403) handing out `role` or `permissions` the caller does not hold itself (or changing or deleting a role holding them). */
export function assertGrantable(grant: Grant, what: { role?: Role; permissions?: readonly string[] }, path: string, action: GrantAction = 'grant'): void {
  if (what.role?.builtIn === 'owner' && !grant.owner) {
    throw new AppError(403, 'FORBIDDEN', 'Only an owner can make someone an owner', [{ path, message: 'needs an owner' }]);
  }
  const wanted = what.role ? (what.role.builtIn ? null : what.role.permissions) : (what.permissions ?? []);
  if (grant.permissions === null) return;
  if (wanted === null) {
    throw new AppError(403, 'FORBIDDEN', `Only a member holding every permission can grant the ${what.role!.name} role`, [{ path, message: 'grants more than you hold' }]);
  }
  const missing = [...new Set(wanted.filter((p) => !grant.permissions!.has(p)))].sort();
  if (missing.length) {
    throw new AppError(403, 'FORBIDDEN', `${REFUSALS[action]}: ${missing.join(', ')}`, missing.map((permission) => ({ path, message: 'not held by you', permission })));
  }
}
