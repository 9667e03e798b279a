import { parseEnvironment, type QhatuConfig } from '@qhatu/core';
import { z } from 'zod';

const Env = z.object({
  QHATU_CHECKOUT_CART_TTL_HOURS: z.coerce.number().int().min(1).max(24 * 365).default(24 * 7),
});

export interface CheckoutSettings {
  /** How long a cart lives after its last change. */
  cartTtlMs: number;
}

export const CHECKOUT_SETTINGS = Symbol.for('qhatu.checkout.settings');

export function readSettings(config: QhatuConfig): CheckoutSettings {
  const env = parseEnvironment(config.environment, Env);
  return { cartTtlMs: env.QHATU_CHECKOUT_CART_TTL_HOURS * 3_600_000 };
}
