import { z } from 'zod';
import { CurrencyCode, Timestamp } from '../http/schemas.js';
import { TENANT_STATUSES } from '../db/entities.js';

const Slug = z
  .string()
  .min(2)
  .max(63)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be lower-case letters and digits separated by single dashes');
const Locale = z.string().regex(/^[a-z]{2,3}(-[A-Z]{2})?$/, 'must be a locale such as es or es-PE');

export const TenantInput = z
  .strictObject({
    name: z.string().trim().min(1, 'must not be empty').max(200),
    slug: Slug.optional(),
    currency: CurrencyCode.default('USD'),
    default_locale: Locale.default('en'),
    status: z.enum(['active', 'trial']).default('active'),
  })
  .meta({ id: 'TenantCreate' });

export const TenantReplace = z
  .strictObject({
    name: z.string().trim().min(1, 'must not be empty').max(200),
    slug: Slug.optional(),
    currency: CurrencyCode.optional(),
    default_locale: Locale.optional(),
  })
  .meta({ id: 'TenantReplace' });

export const TenantOut = z
  .object({
    id: z.uuid(),
    name: z.string(),
    slug: z.string(),
    status: z.enum(TENANT_STATUSES),
    currency: z.string(),
    default_locale: z.string(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Tenant' });

export const ApiKeyInput = z
  .strictObject({
    name: z.string().trim().min(1, 'must not be empty').max(200),
    scope: z.enum(['admin', 'storefront']),
    expires_at: z.iso.datetime({ offset: true }).optional().meta({ description: 'No expiry when absent' }),
    role_id: z.uuid({ message: 'must be a UUID' }).optional().meta({ description: "An admin key with a role has that role's permissions only; without one, every permission" }),
  })
  .meta({ id: 'ApiKeyCreate' });

export const ApiKeyOut = z
  .object({
    id: z.uuid(),
    name: z.string(),
    scope: z.enum(['admin', 'storefront']),
    token: z.string().meta({ description: 'Shown only in this answer' }),
    role_id: z.uuid().nullable(),
    expires_at: Timestamp.nullable(),
    created_at: Timestamp,
  })
  .meta({ id: 'ApiKey' });

export const ApiKeySummary = z
  .object({
    id: z.uuid(),
    name: z.string(),
    scope: z.enum(['admin', 'storefront']),
    token_prefix: z.string().meta({ description: 'The first characters of the token, to recognise it' }),
    role_id: z.uuid().nullable(),
    expires_at: Timestamp.nullable(),
    revoked_at: Timestamp.nullable(),
    created_at: Timestamp,
  })
  .meta({ id: 'ApiKeySummary' });
