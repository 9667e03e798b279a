import { parseEnvironment, type QhatuConfig } from '@qhatu/core';
import { z } from 'zod';

const Env = z.object({
  QHATU_ABANDONED_AFTER_MINUTES: z.coerce.number().int().min(1).max(60 * 24 * 30).default(60),
  QHATU_ABANDONED_SWEEP_SECONDS: z.coerce.number().int().min(1).max(24 * 3600).default(300),
  QHATU_ABANDONED_RECOVERY_URL: z.string().url().optional(),
  QHATU_ABANDONED_REMINDER_INTERVAL_MINUTES: z.coerce.number().int().min(1).max(60 * 24 * 30).default(60),
});

export interface AbandonedCartSettings {
  /** How long a cart with items stays unchanged before the sweep records it abandoned. */
  idleMs: number;
  /** How often a worker process queues the sweep. */
  sweepMs: number;
  /**
   * The recovery link, `{token}` standing for the token: the storefront's page when
   * QHATU_ABANDONED_RECOVERY_URL is set, else this service's restore endpoint.
   */
  recoveryUrl: string;
  /** The least time between two reminders of one cart: a second request meanwhile is refused. */
  reminderIntervalMs: number;
}

/** The endpoint a recovery link opens when the store has no storefront page for it. */
export const RESTORE_PATH = '/api/v1/abandoned-carts/restore';

/** A storefront URL without `{token}` gets it as the `token` query parameter. */
function recoveryTemplate(url: string | undefined): string | undefined {
  if (!url || url.includes('{token}')) return url;
  return `${url}${url.includes('?') ? '&' : '?'}token={token}`;
}

export const ABANDONED_CART_SETTINGS = Symbol.for('qhatu.abandoned-carts.settings');

export function readSettings(config: QhatuConfig): AbandonedCartSettings {
  const env = parseEnvironment(config.environment, Env);
  return {
    idleMs: env.QHATU_ABANDONED_AFTER_MINUTES * 60_000,
    sweepMs: env.QHATU_ABANDONED_SWEEP_SECONDS * 1000,
    recoveryUrl: recoveryTemplate(env.QHATU_ABANDONED_RECOVERY_URL) ?? `${config.publicUrl.replace(/\/+$/, '')}${RESTORE_PATH}?token={token}`,
    reminderIntervalMs: env.QHATU_ABANDONED_REMINDER_INTERVAL_MINUTES * 60_000,
  };
}
