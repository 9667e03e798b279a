import { inject, injectable } from 'tsyringe';
import type { Principal } from '../context.js';
import { Database } from '../db/database.js';
import { Role } from '../db/entities.js';
import { AppError } from '../errors.js';
import type { PageRequest } from '../http/pagination.js';
import { Tenants } from './tenants.js';

export interface StoreKeyInput {
  name: string;
  scope: 'admin' | 'storefront';
  expiresAt?: Date | null;
  roleId?: string | null;
}

/**
 * The store's own settings as its staff see them (decision 0095): its name, and its API keys.
 * The keys are the platform's (`Tenants`), named here by the caller's store only; a member whose
 * role does not hold every permission cannot mint a key that does more than the member may.
 */
@injectable()
export class StoreSettings {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Tenants) private readonly tenants: Tenants,
  ) {}

  get(tenantId: string) {
    return this.tenants.get(tenantId);
  }

  /** Renames the store. The currency stays: the store's prices, orders and balances are in it. */
  rename(tenantId: string, name: string) {
    return this.tenants.replace(tenantId, { name });
  }

  listKeys(tenantId: string, page: PageRequest) {
    return this.tenants.listApiKeys(tenantId, page);
  }

  async issueKey(tenantId: string, caller: Principal | undefined, input: StoreKeyInput) {
    if (input.scope === 'admin') await this.assertNoWiderThan(tenantId, caller, input.roleId ?? null);
    return this.tenants.issueApiKey(tenantId, input);
  }

  revokeKey(tenantId: string, keyId: string) {
    return this.tenants.revokeApiKey(tenantId, keyId);
  }

  /**
   * An admin key acts with its role's permissions, or with every one without a role: a member
   * who holds fewer may only give a key a role of the store whose permissions are all their own.
   */
  private async assertNoWiderThan(tenantId: string, caller: Principal | undefined, roleId: string | null): Promise<void> {
    const held = caller?.permissions;
    if (held === null) return;
    if (roleId === null) {
      throw new AppError(403, 'FORBIDDEN', 'An admin key without a role holds every permission, which your role does not grant: give the key a role', [
        { path: 'body.role_id', message: 'is required for a member without every permission' },
      ]);
    }
    const role = await this.db.tenant(({ em }) => em.findOne(Role, { id: roleId }), tenantId);
    if (!role) throw AppError.unprocessable('ROLE_NOT_FOUND', `Role ${roleId} does not exist in this store`, [{ path: 'body.role_id', message: 'is not a role of this store' }]);
    const beyond = role.builtIn ? ['*'] : role.permissions.filter((p) => !held?.has(p));
    if (beyond.length > 0) {
      throw new AppError(403, 'FORBIDDEN', `The role "${role.name}" grants permissions your role does not: ${beyond.join(', ')}`, [
        { path: 'body.role_id', message: 'grants more than your role', permissions: beyond },
      ]);
    }
  }
}
