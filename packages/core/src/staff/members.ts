import { randomUUID } from 'node:crypto';
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import { inject, injectable } from 'tsyringe';
import { Passwords } from '../auth/passwords.js';
import { AccessTokens } from '../auth/tokens.js';
import { Database, type Tx } from '../db/database.js';
import { AccessToken, Role, StaffCredential, StaffMember, type StaffStatus } from '../db/entities.js';
import { AppError } from '../errors.js';
import { paginate, type Page, type PageRequest } from '../http/pagination.js';
import { Mailer } from '../mail/mailer.js';
import { searchWhere } from '../db/search.js';
import { assertGrantable, callerGrant, type Grant } from './grants.js';
import type { StaffCreate, StaffPatch } from './schemas.js';
import { STAFF_SETTINGS, type StaffSettings } from './settings.js';
import { sendTicket } from './tickets.js';

export const staffNotFound = () => AppError.notFound('Staff member', 'STAFF_NOT_FOUND');
const emailTaken = () => AppError.conflict('A staff member with this e-mail already exists in this store', 'STAFF_EMAIL_TAKEN', [{ path: 'body.email', message: 'is taken' }]);
const roleMissing = (id: string) => AppError.unprocessable('ROLE_NOT_FOUND', `Role ${id} does not exist in this store`, [{ path: 'body.role_id', message: 'is not a role of this store' }]);

export interface StaffFilter {
  status?: StaffStatus;
  roleId?: string;
  /** Every word must be found in the e-mail or a name. */
  q?: string;
}

/** Staff members of a store: the only place that writes them. */
@injectable()
export class StaffMembers {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(AccessTokens) private readonly tokens: AccessTokens,
    @inject(Passwords) private readonly passwords: Passwords,
    @inject(Mailer) private readonly mailer: Mailer,
    @inject(STAFF_SETTINGS) private readonly settings: StaffSettings,
  ) {}

  list(page: PageRequest, filter: StaffFilter): Promise<Page<StaffMember>> {
    return this.db.tenant(({ em }) => {
      const where: Record<string, unknown> = {};
      if (filter.status) where.status = filter.status;
      if (filter.roleId) where.roleId = filter.roleId;
      if (filter.q) Object.assign(where, searchWhere('core_staff', filter.q));
      return paginate(em, StaffMember, where, page);
    });
  }

  get(id: string): Promise<StaffMember> {
    return this.db.tenant(async ({ em }) => {
      const member = await em.findOne(StaffMember, { id });
      if (!member) throw staffNotFound();
      return member;
    });
  }

  /**
   * A new member. With a password they can sign in at once; without one they are e-mailed an
   * invitation link to choose it (a 502 MAIL_DELIVERY_FAILED when it cannot be sent, and no member).
   */
  async create(input: StaffCreate): Promise<StaffMember> {
    const passwordHash = input.password === undefined ? undefined : await this.passwords.hash(input.password);
    return this.db.tenant(async (tx) => {
      const role = await tx.em.findOne(Role, { id: input.role_id });
      if (!role) throw roleMissing(input.role_id);
      assertGrantable(await callerGrant(tx), { role }, 'body.role_id');
      if (await tx.em.count(StaffMember, { email: input.email })) throw emailTaken();
      const at = tx.now();
      const member = tx.em.create(StaffMember, {
        id: randomUUID(),
        tenantId: tx.tenantId,
        email: input.email,
        firstName: input.first_name,
        lastName: input.last_name,
        roleId: role.id,
        status: 'active',
        lastLoginAt: null,
        createdAt: at,
        updatedAt: at,
      });
      await flushMember(tx);
      if (passwordHash) {
        tx.em.create(StaffCredential, { tenantId: tx.tenantId, staffId: member.id, passwordHash, updatedAt: at });
        await tx.em.flush();
      } else {
        await sendTicket(tx, this.mailer, this.settings, member, 'invite');
      }
      return member;
    });
  }

  async update(id: string, patch: StaffPatch): Promise<StaffMember> {
    return this.db.tenant(async (tx) => {
      const member = await lockMember(tx, id);
      const grant = await callerGrant(tx);
      const current = await tx.em.findOneOrFail(Role, { id: member.roleId });
      const changesAccess = (patch.role_id !== undefined && patch.role_id !== member.roleId) || (patch.status !== undefined && patch.status !== member.status);
      assertMayManage(grant, current);
      let next = current;
      if (patch.role_id !== undefined && patch.role_id !== member.roleId) {
        const role = await tx.em.findOne(Role, { id: patch.role_id });
        if (!role) throw roleMissing(patch.role_id);
        assertGrantable(grant, { role }, 'body.role_id');
        next = role;
      }
      const nextStatus = patch.status ?? member.status;
      if (current.builtIn === 'owner' && member.status === 'active' && (next.builtIn !== 'owner' || nextStatus !== 'active')) {
        await assertAnotherOwner(tx, member);
      }
      if (patch.email !== undefined && patch.email !== member.email) {
        if (await tx.em.count(StaffMember, { email: patch.email })) throw emailTaken();
        member.email = patch.email;
      }
      if (patch.first_name !== undefined) member.firstName = patch.first_name;
      if (patch.last_name !== undefined) member.lastName = patch.last_name;
      member.roleId = next.id;
      if (nextStatus !== member.status) {
        member.status = nextStatus;
        // A disabled member's sessions end now, in every process (see AccessTokens.forgetTenant).
        if (nextStatus === 'disabled') await revokeSessions(tx, member.id);
      }
      member.updatedAt = tx.now();
      await flushMember(tx);
      if (changesAccess) tx.afterCommit(() => this.tokens.forgetTenant(tx.tenantId));
      return member;
    });
  }

  /** Removes a member and ends their sessions; the store's last active owner cannot be removed. */
  async remove(id: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      const member = await lockMember(tx, id);
      const role = await tx.em.findOneOrFail(Role, { id: member.roleId });
      assertMayManage(await callerGrant(tx), role);
      if (role.builtIn === 'owner' && member.status === 'active') await assertAnotherOwner(tx, member);
      await revokeSessions(tx, member.id);
      await tx.em.nativeDelete(StaffMember, { id: member.id });
      tx.afterCommit(() => this.tokens.forgetTenant(tx.tenantId));
    });
  }

  /** Sends a new invitation (the earlier link stops working) to a member who has not chosen a password yet. */
  async invite(id: string): Promise<StaffMember> {
    return this.db.tenant(async (tx) => {
      const member = await lockMember(tx, id);
      const role = await tx.em.findOneOrFail(Role, { id: member.roleId });
      assertMayManage(await callerGrant(tx), role);
      if (member.status !== 'active') throw AppError.conflict('This staff member is disabled; enable them first', 'STAFF_DISABLED');
      if (await tx.em.count(StaffCredential, { staffId: member.id })) {
        throw AppError.conflict('This staff member has already chosen a password; they can ask for a password reset', 'STAFF_HAS_PASSWORD');
      }
      await sendTicket(tx, this.mailer, this.settings, member, 'invite');
      return member;
    });
  }
}

/** Only an owner changes an owner; others manage members whose role they could grant. */
function assertMayManage(grant: Grant, role: Role): void {
  if (role.builtIn === 'owner' && !grant.owner) throw AppError.forbidden('Only an owner can change or remove an owner');
  assertGrantable(grant, { role }, 'params.id');
}

async function lockMember(tx: Tx, id: string): Promise<StaffMember> {
  const member = await tx.em.findOne(StaffMember, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!member) throw staffNotFound();
  return member;
}

/**
 * 409 LAST_OWNER unless another active owner remains. The owner role's row is locked first, so
 * two requests taking away two owners at once cannot both pass.
 */
async function assertAnotherOwner(tx: Tx, member: StaffMember): Promise<void> {
  const owner = await tx.em.findOneOrFail(Role, { builtIn: 'owner' }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  const others = await tx.em.count(StaffMember, { roleId: owner.id, status: 'active', id: { $ne: member.id } });
  if (!others) throw AppError.conflict('A store must keep at least one active owner: make someone else an owner first', 'LAST_OWNER');
}

/** Revokes every staff token of the member, in this transaction. */
export async function revokeSessions(tx: Tx, staffId: string): Promise<void> {
  await tx.em.nativeUpdate(AccessToken, { kind: 'staff', subjectId: staffId, revokedAt: null }, { revokedAt: tx.now() });
}

async function flushMember(tx: Tx): Promise<void> {
  try {
    await tx.em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw emailTaken();
    throw error;
  }
}
