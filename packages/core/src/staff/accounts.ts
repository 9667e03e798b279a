import { LockMode } from '@mikro-orm/core';
import { inject, injectable } from 'tsyringe';
import { Passwords } from '../auth/passwords.js';
import { AccessTokens, hashToken } from '../auth/tokens.js';
import { TenantContext } from '../context.js';
import { Database, type Tx } from '../db/database.js';
import { AccessToken, Role, StaffCredential, StaffMember, StaffTicket, Tenant } from '../db/entities.js';
import { AppError } from '../errors.js';
import { Mailer } from '../mail/mailer.js';
import { LOGGER } from '../tokens.js';
import type { Logger } from 'pino';
import { revokeSessions, staffNotFound } from './members.js';
import { Roles } from './roles.js';
import { STAFF_SETTINGS, type StaffSettings } from './settings.js';
import { sendTicket } from './tickets.js';

export interface StaffSession {
  token: string;
  expiresAt: Date;
  staff: StaffMember;
}

// One answer for an unknown e-mail, a member without a password and a wrong password.
const invalidCredentials = () => AppError.unauthenticated('The e-mail or password is not correct');
export const staffDisabled = () => new AppError(403, 'STAFF_DISABLED', 'This staff account is disabled');

/**
 * Staff sign-in and passwords: log in, log out, the invitation and reset links. Passwords are
 * hashed before any transaction is opened, so that scrypt never holds a database connection.
 */
@injectable()
export class StaffAccounts {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(AccessTokens) private readonly tokens: AccessTokens,
    @inject(Passwords) private readonly passwords: Passwords,
    @inject(Mailer) private readonly mailer: Mailer,
    @inject(Roles) private readonly roles: Roles,
    @inject(STAFF_SETTINGS) private readonly settings: StaffSettings,
    @inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** 401 for every wrong pair (with the same scrypt work); 403 STAFF_DISABLED only with the right password. */
  async login(email: string, password: string): Promise<StaffSession> {
    const found = await this.db.tenant(async ({ em, tenantId }) => {
      const rows = await em.execute<Array<{ id: string; password_hash: string | null }>>(
        `select s.id, c.password_hash
           from core_staff s
           left join core_staff_credential c on c.tenant_id = s.tenant_id and c.staff_id = s.id
          where s.tenant_id = ? and s.email = ?`,
        [tenantId, email],
      );
      return rows[0];
    });
    const matches = await this.passwords.verify(password, found?.password_hash ?? null);
    if (!found || !matches) throw invalidCredentials();
    return this.db.tenant(async (tx) => {
      const member = await tx.em.findOne(StaffMember, { id: found.id });
      if (!member) throw invalidCredentials();
      if (member.status !== 'active') throw staffDisabled();
      return this.openSession(tx, member);
    });
  }

  /** Revokes the staff token the request was made with. */
  async logout(): Promise<void> {
    const principal = TenantContext.principal();
    if (principal?.kind !== 'staff' || !principal.tokenId) throw AppError.forbidden('Only a staff token can be logged out');
    await this.db.tenant(async (tx) => {
      await tx.em.nativeUpdate(AccessToken, { id: principal.tokenId!, revokedAt: null }, { revokedAt: tx.now() });
      tx.afterCommit(() => this.tokens.forgetTenant(tx.tenantId));
    });
  }

  /**
   * E-mails a reset link to an active member with this e-mail. The answer is the same whether or
   * not there is one; a message that cannot be sent is logged, not told.
   */
  async requestReset(email: string): Promise<void> {
    try {
      await this.db.tenant(async (tx) => {
        const member = await tx.em.findOne(StaffMember, { email, status: 'active' });
        if (member) await sendTicket(tx, this.mailer, this.settings, member, 'reset');
      });
    } catch (err) {
      this.logger.error({ err }, 'a staff password reset e-mail could not be sent');
    }
  }

  /**
   * Sets the password from an invitation or reset link: each link works once and until it
   * expires. A reset ends the member's other sessions. Answers a new session.
   */
  async setPassword(token: string, password: string): Promise<StaffSession> {
    const passwordHash = await this.passwords.hash(password);
    return this.db.tenant(async (tx) => {
      const ticket = await tx.em.findOne(StaffTicket, { tokenHash: hashToken(token) }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!ticket) throw linkError('LINK_INVALID', 'This link is not valid: ask for a new one');
      if (ticket.usedAt) throw linkError('LINK_USED', 'This link was already used: ask for a new one');
      if (ticket.expiresAt.getTime() <= tx.now().getTime()) throw linkError('LINK_EXPIRED', 'This link has expired: ask for a new one');
      const member = await tx.em.findOne(StaffMember, { id: ticket.staffId });
      if (!member) throw linkError('LINK_INVALID', 'This link is not valid: ask for a new one');
      if (member.status !== 'active') throw staffDisabled();
      ticket.usedAt = tx.now();
      const credential = await tx.em.findOne(StaffCredential, { staffId: member.id });
      if (credential) {
        credential.passwordHash = passwordHash;
        credential.updatedAt = tx.now();
      } else {
        tx.em.create(StaffCredential, { tenantId: tx.tenantId, staffId: member.id, passwordHash, updatedAt: tx.now() });
      }
      // Other links of the member stop working too, and a new password ends the old sessions.
      await tx.em.nativeUpdate(StaffTicket, { staffId: member.id, usedAt: null, id: { $ne: ticket.id } }, { usedAt: tx.now() });
      await revokeSessions(tx, member.id);
      tx.afterCommit(() => this.tokens.forgetTenant(tx.tenantId));
      return this.openSession(tx, member);
    });
  }

  /**
   * The signed-in member changes their password, giving the current one (401 if wrong, with the
   * same scrypt work); their other sessions end, this one goes on.
   */
  async changePassword(current: string, next: string): Promise<void> {
    const principal = TenantContext.principal();
    if (principal?.kind !== 'staff' || !principal.subjectId) throw AppError.forbidden('This operation needs a staff token');
    const stored = await this.db.tenant(async ({ em }) => (await em.findOne(StaffCredential, { staffId: principal.subjectId! }))?.passwordHash ?? null);
    if (!(await this.passwords.verify(current, stored))) {
      throw new AppError(401, 'UNAUTHENTICATED', 'The current password is not correct', [{ path: 'body.current_password', message: 'is not correct' }]);
    }
    const passwordHash = await this.passwords.hash(next);
    await this.db.tenant(async (tx) => {
      const credential = await tx.em.findOne(StaffCredential, { staffId: principal.subjectId! }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!credential || credential.passwordHash !== stored) throw AppError.conflict('The password was changed meanwhile; try again', 'CONFLICT');
      credential.passwordHash = passwordHash;
      credential.updatedAt = tx.now();
      await tx.em.nativeUpdate(AccessToken, { kind: 'staff', subjectId: principal.subjectId!, revokedAt: null, id: { $ne: principal.tokenId! } }, { revokedAt: tx.now() });
      await tx.em.flush();
      tx.afterCommit(() => this.tokens.forgetTenant(tx.tenantId));
    });
  }

  /** The signed-in member, their role and every permission they hold. */
  async me(): Promise<{ member: StaffMember; role: Role; permissions: string[] }> {
    const id = TenantContext.principal()?.subjectId;
    if (!id) throw AppError.forbidden('This operation needs a staff token');
    return this.db.tenant(async ({ em }) => {
      const member = await em.findOne(StaffMember, { id });
      if (!member) throw staffNotFound();
      const role = await em.findOneOrFail(Role, { id: member.roleId });
      return { member, role, permissions: this.roles.permissionsOf(role) };
    });
  }

  private async openSession(tx: Tx, member: StaffMember): Promise<StaffSession> {
    const tenant = await tx.em.findOneOrFail(Tenant, { id: tx.tenantId });
    if (tenant.status === 'suspended') throw new AppError(403, 'TENANT_SUSPENDED', 'This store is suspended');
    if (tenant.status === 'expired') throw new AppError(403, 'TENANT_EXPIRED', "This store's subscription has expired; it must be activated");
    const at = tx.now();
    const expiresAt = new Date(at.getTime() + this.settings.tokenTtlMs);
    const { token } = await this.tokens.issue(tx, { tenantId: tx.tenantId, kind: 'staff', subjectId: member.id, expiresAt });
    member.lastLoginAt = at;
    await tx.em.flush();
    return { token, expiresAt, staff: member };
  }
}

function linkError(code: string, message: string): AppError {
  return AppError.unprocessable(code, message, [{ path: 'body.token', message: 'cannot be used' }]);
}
