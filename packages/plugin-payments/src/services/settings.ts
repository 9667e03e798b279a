import { parseEnvironment, type QhatuConfig } from '@qhatu/core';
import { z } from 'zod';

const Env = z.object({
  /** A payment or refund untouched this long while open is re-read from its provider. */
  QHATU_PAYMENTS_SWEEP_AFTER_SECONDS: z.coerce.number().int().min(1).max(7 * 24 * 3600).default(120),
  /** How often a worker process queues the sweep. */
  QHATU_PAYMENTS_SWEEP_SECONDS: z.coerce.number().int().min(1).max(24 * 3600).default(300),
  /**
   * A charge with no answer recorded is asked again once its payment was untouched this long:
   * longer than a provider call can last, so the first call is never still under way.
   */
  QHATU_PAYMENTS_ASK_AGAIN_AFTER_SECONDS: z.coerce.number().int().min(0).max(24 * 3600).default(120),
});

export interface PaymentSettings {
  /** Open payments and refunds untouched this long are re-read by the sweep. */
  afterMs: number;
  /** How often the sweep is queued. */
  everyMs: number;
  /** A charge unanswered this long is asked again (repeated or looked up). */
  askAgainMs: number;
}

export function paymentSettings(config: QhatuConfig): PaymentSettings {
  const env = parseEnvironment(config.environment, Env);
  return {
    afterMs: env.QHATU_PAYMENTS_SWEEP_AFTER_SECONDS * 1000,
    everyMs: env.QHATU_PAYMENTS_SWEEP_SECONDS * 1000,
    askAgainMs: env.QHATU_PAYMENTS_ASK_AGAIN_AFTER_SECONDS * 1000,
  };
}
