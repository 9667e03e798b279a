import { z } from 'zod';
import { parseEnvironment, type QhatuConfig } from '../config.js';

const Env = z.object({
  QHATU_STAFF_TOKEN_TTL_HOURS: z.coerce.number().int().min(1).max(24 * 90).default(12),
  QHATU_STAFF_INVITE_TTL_HOURS: z.coerce.number().int().min(1).max(24 * 30).default(72),
  QHATU_STAFF_RESET_TTL_MINUTES: z.coerce.number().int().min(5).max(24 * 60).default(60),
  QHATU_STAFF_PASSWORD_URL: z.string().url().optional(),
});

export interface StaffSettings {
  /** How long a staff sign-in lasts. */
  tokenTtlMs: number;
  inviteTtlMs: number;
  resetTtlMs: number;
  /** The admin page the invitation and reset links open: `<QHATU_PUBLIC_URL>/staff/password` unless set. */
  passwordUrl: string;
}

export const STAFF_SETTINGS = Symbol.for('qhatu.staff.settings');

export function readStaffSettings(config: QhatuConfig): StaffSettings {
  const env = parseEnvironment(config.environment, Env);
  return {
    tokenTtlMs: env.QHATU_STAFF_TOKEN_TTL_HOURS * 3_600_000,
    inviteTtlMs: env.QHATU_STAFF_INVITE_TTL_HOURS * 3_600_000,
    resetTtlMs: env.QHATU_STAFF_RESET_TTL_MINUTES * 60_000,
    passwordUrl: env.QHATU_STAFF_PASSWORD_URL ?? `${config.publicUrl}/staff/password`,
  };
}
