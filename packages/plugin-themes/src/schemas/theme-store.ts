import { CurrencyCode, listQuery, Money, Timestamp } from '@qhatu/core';
import { z } from 'zod';
import { PlainText, ThemeSettings, ThemeSettingsOut } from './settings.js';

const Url = z
  .url({ protocol: /^https?$/, message: 'must be an http(s) URL' })
  .max(2000);

/** A text field of an answer: plain text, to be rendered as text. */
const Text = () => z.string().meta({ description: 'Plain text' });

export const CatalogThemeInput = z
  .strictObject({
    name: z.string().regex(/^[a-z0-9][a-z0-9-]{1,62}$/, 'must be 2 to 63 lower-case letters, digits or dashes').meta({ example: 'andes' }),
    display_name: PlainText(120).min(1).meta({ description: 'Plain text: markup is removed when stored' }),
    description: PlainText(5000).default('').meta({ description: 'Plain text: markup is removed when stored' }),
    preview_url: Url.nullable().optional(),
    thumbnail_url: Url.nullable().optional(),
    price: Money.max(2_147_483_647).meta({ description: 'Minor units of `currency`; 0 is a free theme' }),
    currency: CurrencyCode.default('USD'),
    author: PlainText(120).min(1).meta({ description: 'Plain text: markup is removed when stored' }),
    tags: z.array(PlainText(40).min(1)).max(20).default([]).meta({ description: 'Plain text each: markup is removed when stored' }),
    is_free: z.boolean().optional().meta({ description: 'Optional; must agree with `price` (free exactly when the price is 0)' }),
    settings: ThemeSettings.optional().meta({ description: 'The theme\'s own settings: what an install starts from (its baseline version); cleaned as a draft is' }),
  })
  .refine((t) => t.is_free === undefined || t.is_free === (t.price === 0), {
    path: ['is_free'],
    message: 'must be true exactly when the price is 0',
  })
  .meta({ id: 'ThemeCatalogEntryCreate' });
export type CatalogThemeInput = z.output<typeof CatalogThemeInput>;

export const CatalogThemeOut = z
  .object({
    id: z.uuid(),
    name: z.string(),
    display_name: Text(),
    description: Text(),
    preview_url: z.string().nullable(),
    thumbnail_url: z.string().nullable(),
    price: z.number().int(),
    currency: z.string(),
    author: Text(),
    tags: z.array(Text()),
    is_free: z.boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'ThemeCatalogEntry' });

export const CatalogListQuery = listQuery({
  filters: { is_free: z.enum(['true', 'false']).transform((v) => v === 'true'), tag: z.string().trim().min(1).max(40) },
  sorts: ['created_at', 'display_name', 'price'],
  defaultSort: 'created_at',
});

export const InstalledThemeOut = z
  .object({
    id: z.uuid(),
    theme_catalog_id: z.uuid(),
    theme_name: z.string(),
    display_name: Text(),
    is_active: z.boolean(),
    installed_at: Timestamp,
    activated_at: Timestamp.nullable(),
    published_at: Timestamp.nullable(),
  })
  .meta({ id: 'InstalledTheme' });

export const PurchaseOut = z
  .object({ id: z.uuid(), theme_catalog_id: z.uuid(), price: z.number().int(), currency: z.string(), purchased_at: Timestamp })
  .meta({ id: 'ThemePurchase' });

export const ActivateOut = z.object({ status: z.literal('activated'), theme_catalog_id: z.uuid(), installed_theme_id: z.uuid() });

export const LiveThemeOut = z
  .object({
    id: z.uuid().meta({ description: 'The installed theme' }),
    theme_catalog_id: z.uuid(),
    theme_name: z.string(),
    display_name: Text(),
    settings: ThemeSettingsOut,
    published_at: Timestamp.nullable().meta({ description: 'null while the theme\'s own settings are shown (nothing published yet)' }),
  })
  .meta({ id: 'LiveTheme' });
