import { parseEnvironment, type QhatuConfig } from '@qhatu/core';
import { z } from 'zod';

const Env = z.object({
  QHATU_CHECKOUT_CART_TTL_HOURS: z.coerce.number().int().min(1).max(24 * 365).default(24 * 7),
  QHATU_CHECKOUT_HOLD_MINUTES: z.coerce.number().int().min(1).max(7 * 24 * 60).default(60),
  QHATU_CHECKOUT_HOLD_SWEEP_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
});

export interface CheckoutSettings {
  /** How long a cart lives after its last change. */
  cartTtlMs: number;
  /** How long an unpaid checkout keeps the stock its order holds (decision 0059). */
  holdMs: number;
  /** How often the sweep looks for checkouts whose hold ran out. */
  holdSweepMs: number;
}

export const CHECKOUT_SETTINGS = Symbol.for('qhatu.checkout.settings');

export function readSettings(config: QhatuConfig): CheckoutSettings {
  const env = parseEnvironment(config.environment, Env);
  return {
    cartTtlMs: env.QHATU_CHECKOUT_CART_TTL_HOURS * 3_600_000,
    holdMs: env.QHATU_CHECKOUT_HOLD_MINUTES * 60_000,
    holdSweepMs: env.QHATU_CHECKOUT_HOLD_SWEEP_SECONDS * 1000,
  };
}
