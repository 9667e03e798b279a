import { Timestamp } from '@qhatu/core';
import { z } from 'zod';
import { REGISTRATION_MODES } from '../entities/store-settings.js';

const Registration = z.enum(REGISTRATION_MODES).meta({
  description:
    'verify (safe default): every registration is answered 202 alike and finished through an e-mailed link; ' +
    "instant: a new e-mail signs in at once (201), a store-created customer gets the link, an account's e-mail is a 409 (this reveals which e-mails the store knows); " +
    'claim: as instant, but registering the e-mail of a customer the store created sets its password at once (anyone who knows the e-mail can take that record)',
});

const AccountUrl = z
  .url({ protocol: /^https?$/, message: 'must be an http or https address' })
  .max(2000)
  .meta({ description: 'The storefront page the account link opens; `?token=<token>` is added', example: 'https://shop.example/account/activate' });

export const StoreSettingsInput = z
  .strictObject({
    registration: Registration.nullable().optional().meta({ description: "Absent or null: the platform's default (QHATU_CUSTOMERS_REGISTRATION)" }),
    account_url: AccountUrl.nullable().optional().meta({ description: "Absent or null: the platform's default (QHATU_CUSTOMERS_ACCOUNT_URL)" }),
  })
  .meta({ id: 'CustomerSettingsReplace' });
export type StoreSettingsInput = z.output<typeof StoreSettingsInput>;

export const StoreSettingsOut = z
  .object({
    registration: Registration,
    registration_is_default: z.boolean().meta({ description: "Whether registration follows the platform's default" }),
    account_url: z.string(),
    account_url_is_default: z.boolean(),
    link_ttl_hours: z.number().int().meta({ description: 'How long an account link works (QHATU_CUSTOMERS_LINK_TTL_HOURS)' }),
    updated_at: Timestamp.nullable(),
  })
  .meta({ id: 'CustomerSettings' });
