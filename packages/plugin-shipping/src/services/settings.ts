import { parseEnvironment, type QhatuConfig } from '@qhatu/core';
import { z } from 'zod';

const Env = z.object({
  QHATU_SHIPPING_VOLUMETRIC_DIVISOR: z.coerce.number().int().min(1000).max(10_000).default(5000),
  QHATU_SHIPPING_QUOTE_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
});

export interface ShippingSettings {
  /** cm³ per kg: a parcel's volumetric weight is length × width × height ÷ this (5000 by default). */
  volumetricDivisor: number;
  /** How long a live carrier may take to quote before calculate answers without it. */
  quoteTimeoutMs: number;
}

export const SHIPPING_SETTINGS = Symbol.for('qhatu.shipping.settings');

export function readSettings(config: QhatuConfig): ShippingSettings {
  const env = parseEnvironment(config.environment, Env);
  return { volumetricDivisor: env.QHATU_SHIPPING_VOLUMETRIC_DIVISOR, quoteTimeoutMs: env.QHATU_SHIPPING_QUOTE_TIMEOUT_MS };
}
