import { parseEnvironment, type QhatuConfig } from '@qhatu/core';
import { z } from 'zod';

const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');

const Env = z.object({
  QHATU_CUSTOMERS_TOKEN_TTL_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  QHATU_CUSTOMERS_REGISTER_CLAIMS: bool.default(true),
});

export interface CustomerSettings {
  /** How long a customer token from register or login lasts. */
  tokenTtlDays: number;
  /**
   * Whether registering with the e-mail of a customer the store created (no password yet) sets
   * that customer's password; when false such a registration is a 409 CUSTOMER_EMAIL_TAKEN.
   */
  registerClaims: boolean;
}

export const CUSTOMER_SETTINGS = Symbol.for('qhatu.customers.settings');

export function readSettings(config: QhatuConfig): CustomerSettings {
  const env = parseEnvironment(config.environment, Env);
  return { tokenTtlDays: env.QHATU_CUSTOMERS_TOKEN_TTL_DAYS, registerClaims: env.QHATU_CUSTOMERS_REGISTER_CLAIMS };
}
