import { randomUUID } from 'node:crypto';
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import { inject, injectable } from 'tsyringe';
import { AccessTokens } from '../auth/tokens.js';
import { PermissionRegistry } from '../auth/permissions.js';
import { Database, type Tx } from '../db/database.js';
import { AccessToken, Role, StaffMember } from '../db/entities.js';
import { AppError } from '../errors.js';
import { paginate, type Page, type PageRequest } from '../http/pagination.js';
import { escapeLike } from '../tenancy/tenants.js';
import { assertGrantable, callerGrant } from './grants.js';
import type { RoleCreate, RolePatch } from './schemas.js';

export const roleNotFound = () => AppError.notFound('Role', 'ROLE_NOT_FOUND');
const nameTaken = () => AppError.conflict('A role with this name already exists in this store', 'ROLE_NAME_TAKEN', [{ path: 'body.name', message: 'is taken' }]);

/** Roles of a store: the built-in `owner` and `admin`, and the ones the store defines. */
@injectable()
export class Roles {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(PermissionRegistry) private readonly registry: PermissionRegistry,
    @inject(AccessTokens) private readonly tokens: AccessTokens,
  ) {}

  /** Every permission a role grants: all installed ones for the built-in roles. */
  permissionsOf(role: Role): string[] {
    return role.builtIn ? this.registry.list().map((p) => p.name) : [...role.permissions].sort();
  }

  list(page: PageRequest): Promise<Page<Role>> {
    return this.db.tenant(({ em }) => paginate(em, Role, {}, page));
  }

  get(id: string): Promise<Role> {
    return this.db.tenant(async ({ em }) => {
      const role = await em.findOne(Role, { id });
      if (!role) throw roleNotFound();
      return role;
    });
  }

  /** The role of this name, whatever the case (`owner`, `admin` or one the store defined), or null. */
  findByName(name: string): Promise<Role | null> {
    return this.db.tenant(({ em }) => em.findOne(Role, { name: { $ilike: escapeLike(name.trim()) } }));
  }

  async create(input: RoleCreate): Promise<Role> {
    this.checkNames(input.permissions);
    return this.db.tenant(async (tx) => {
      assertGrantable(await callerGrant(tx), { permissions: input.permissions }, 'body.permissions');
      const at = tx.now();
      const role = tx.em.create(Role, { id: randomUUID(), tenantId: tx.tenantId, name: input.name, builtIn: null, permissions: [...input.permissions].sort(), createdAt: at, updatedAt: at });
      await flushRole(tx);
      return role;
    });
  }

  async update(id: string, patch: RolePatch): Promise<Role> {
    if (patch.permissions) this.checkNames(patch.permissions);
    return this.db.tenant(async (tx) => {
      const role = await this.lockCustom(tx, id, 'changed');
      const grant = await callerGrant(tx);
      // Changing a role takes away what it had and grants what it ends up with: the caller must hold both.
      assertGrantable(grant, { permissions: role.permissions }, 'params.id', 'change');
      assertGrantable(grant, { permissions: patch.permissions ?? [] }, 'body.permissions');
      if (patch.name !== undefined) role.name = patch.name;
      if (patch.permissions !== undefined) role.permissions = [...patch.permissions].sort();
      role.updatedAt = tx.now();
      await flushRole(tx);
      // Members of this role (and keys bound to it) hold the new permissions from their next request.
      tx.afterCommit(() => this.tokens.forgetTenant(tx.tenantId));
      return role;
    });
  }

  async remove(id: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      const role = await this.lockCustom(tx, id, 'deleted');
      assertGrantable(await callerGrant(tx), { permissions: role.permissions }, 'params.id', 'delete');
      const members = await tx.em.count(StaffMember, { roleId: id });
      const keys = await tx.em.count(AccessToken, { roleId: id, revokedAt: null });
      if (members || keys) {
        throw AppError.conflict(`This role is given to ${members} staff member(s) and ${keys} API key(s); give them another role first`, 'ROLE_IN_USE');
      }
      await tx.em.nativeDelete(Role, { id });
    });
  }

  private async lockCustom(tx: Tx, id: string, verb: string): Promise<Role> {
    const role = await tx.em.findOne(Role, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!role) throw roleNotFound();
    if (role.builtIn) throw AppError.conflict(`The built-in role "${role.name}" cannot be ${verb}`, 'ROLE_BUILT_IN');
    return role;
  }

  /** 422 UNKNOWN_PERMISSION for names no installed plugin declares. */
  private checkNames(names: readonly string[]): void {
    const unknown = names.map((name, i) => ({ name, i })).filter(({ name }) => !this.registry.has(name));
    if (unknown.length) {
      throw AppError.unprocessable(
        'UNKNOWN_PERMISSION',
        `No installed plugin declares ${unknown.length === 1 ? 'the permission' : 'the permissions'} ${unknown.map((u) => `"${u.name}"`).join(', ')} (see GET /permissions)`,
        unknown.map(({ name, i }) => ({ path: `body.permissions.${i}`, message: 'is not a permission of this platform', permission: name })),
      );
    }
  }
}

async function flushRole(tx: Tx): Promise<void> {
  try {
    await tx.em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw nameTaken();
    throw error;
  }
}
