import { parseEnvironment, type QhatuConfig } from '@qhatu/core';
import { z } from 'zod';

const Env = z.object({
  QHATU_WEBHOOKS_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  QHATU_WEBHOOKS_RETRY_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(30_000),
  QHATU_WEBHOOKS_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(30).default(12),
  QHATU_WEBHOOKS_SWEEP_MS: z.coerce.number().int().min(50).max(600_000).default(15_000),
});

export interface WebhookSettings {
  /** How long a receiver has to answer. */
  timeoutMs: number;
  /** The first retry's delay; each next one doubles (12 attempts from 30 s span about 17 hours). */
  retryBaseMs: number;
  maxAttempts: number;
  /** How often workers look for deliveries whose job was lost (a worker stopped mid-delivery). */
  sweepMs: number;
  httpsOnly: boolean;
  allowPrivate: boolean;
}

export const WEBHOOK_SETTINGS = Symbol.for('qhatu.webhooks.settings');

export function readSettings(config: QhatuConfig): WebhookSettings {
  const env = parseEnvironment(config.environment, Env);
  return {
    timeoutMs: env.QHATU_WEBHOOKS_TIMEOUT_MS,
    retryBaseMs: env.QHATU_WEBHOOKS_RETRY_BASE_MS,
    maxAttempts: env.QHATU_WEBHOOKS_MAX_ATTEMPTS,
    sweepMs: env.QHATU_WEBHOOKS_SWEEP_MS,
    httpsOnly: config.env === 'production',
    allowPrivate: config.allowPrivateWebhooks,
  };
}

/** Exponential backoff with ±20 % jitter, so that a receiver coming back is not hit by a wave. */
export function retryDelayMs(settings: WebhookSettings, attempt: number, random = Math.random): number {
  const base = settings.retryBaseMs * 2 ** Math.max(0, attempt - 1);
  return Math.round(base * (0.8 + random() * 0.4));
}
