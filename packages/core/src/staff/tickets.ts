import { randomBytes, randomUUID } from 'node:crypto';
import { hashToken } from '../auth/tokens.js';
import type { Tx } from '../db/database.js';
import { StaffTicket, Tenant, type StaffMember } from '../db/entities.js';
import { AppError } from '../errors.js';
import type { Mailer } from '../mail/mailer.js';
import type { StaffSettings } from './settings.js';

/**
 * Makes a single-use link (an invitation or a password reset) for `member`, replacing any earlier
 * unused one of the same purpose, and e-mails it, all inside `tx`: a message that cannot be sent
 * is a 502 MAIL_DELIVERY_FAILED and leaves nothing behind.
 */
export async function sendTicket(tx: Tx, mailer: Mailer, settings: StaffSettings, member: StaffMember, purpose: 'invite' | 'reset'): Promise<void> {
  const token = randomBytes(32).toString('base64url');
  const at = tx.now();
  const ttl = purpose === 'invite' ? settings.inviteTtlMs : settings.resetTtlMs;
  const expiresAt = new Date(at.getTime() + ttl);
  await tx.em.nativeDelete(StaffTicket, { staffId: member.id, purpose, usedAt: null });
  tx.em.create(StaffTicket, { id: randomUUID(), tenantId: tx.tenantId, staffId: member.id, purpose, tokenHash: hashToken(token), expiresAt, usedAt: null, createdAt: at });
  await tx.em.flush();
  const store = (await tx.em.findOneOrFail(Tenant, { id: tx.tenantId })).name;
  const link = `${settings.passwordUrl}?${new URLSearchParams({ tenant: tx.tenantId, token, purpose })}`;
  const until = expiresAt.toISOString().replace('T', ' ').slice(0, 16);
  const greeting = member.firstName ? `Hello ${member.firstName},` : 'Hello,';
  const message =
    purpose === 'invite'
      ? {
          subject: `You are invited to run ${store}`,
          text: `${greeting}\n\nYou have been given a staff account of ${store}. Choose your password here:\n\n${link}\n\nThe link works once, until ${until} UTC.\n`,
        }
      : {
          subject: `Reset your ${store} staff password`,
          text: `${greeting}\n\nSomeone asked to reset the password of your staff account of ${store}. If it was you, choose a new one here:\n\n${link}\n\nThe link works once, until ${until} UTC. If it was not you, ignore this message: your password stays as it is.\n`,
        };
  try {
    await mailer.send({ tenantId: tx.tenantId, to: member.email, ...message });
  } catch (error) {
    throw new AppError(502, 'MAIL_DELIVERY_FAILED', 'The e-mail could not be sent; nothing was changed', [
      { message: error instanceof Error ? error.message : String(error) },
    ]);
  }
}
