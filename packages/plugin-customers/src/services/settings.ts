import { parseEnvironment, type QhatuConfig } from '@qhatu/core';
import { z } from 'zod';
import { REGISTRATION_MODES, type RegistrationMode } from '../entities/store-settings.js';

const Env = z.object({
  QHATU_CUSTOMERS_TOKEN_TTL_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  QHATU_CUSTOMERS_REGISTRATION: z.enum(REGISTRATION_MODES).default('verify'),
  QHATU_CUSTOMERS_ACCOUNT_URL: z.url({ protocol: /^https?$/ }).max(2000).optional(),
  QHATU_CUSTOMERS_LINK_TTL_HOURS: z.coerce.number().int().min(1).max(24 * 7).default(24),
  QHATU_CUSTOMERS_SWEEP_SECONDS: z.coerce.number().int().min(1).max(24 * 3600).default(3600),
});

/** The platform's settings (environment); a store overrides `registration` and `accountUrl` for itself. */
export interface CustomerSettings {
  /** How long a customer token from register, login or activate lasts. */
  tokenTtlDays: number;
  /** How a registration with an e-mail the store may already know is answered (see the README). */
  registration: RegistrationMode;
  /** The storefront page the account link opens, with `?token=<token>`. */
  accountUrl: string;
  /** How long an account link works. */
  linkTtlHours: number;
  /** How often a worker process deletes links spent over a week ago. */
  sweepMs: number;
}

export const CUSTOMER_SETTINGS = Symbol.for('qhatu.customers.settings');

export function readSettings(config: QhatuConfig): CustomerSettings {
  const env = parseEnvironment(config.environment, Env);
  return {
    tokenTtlDays: env.QHATU_CUSTOMERS_TOKEN_TTL_DAYS,
    registration: env.QHATU_CUSTOMERS_REGISTRATION,
    accountUrl: env.QHATU_CUSTOMERS_ACCOUNT_URL ?? `${config.publicUrl}/account/activate`,
    linkTtlHours: env.QHATU_CUSTOMERS_LINK_TTL_HOURS,
    sweepMs: env.QHATU_CUSTOMERS_SWEEP_SECONDS * 1000,
  };
}
