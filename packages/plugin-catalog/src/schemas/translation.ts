import { LocaleTag, Timestamp, Uuid } from '@qhatu/core';
import { z, type ZodType } from 'zod';
import { Handle } from './product.js';

const Title = z.string().trim().min(1, 'must not be empty').max(255);
const Html = z.string().max(100_000);

/**
 * The fields each catalog resource translates, as its create body writes them. A translation sends
 * the fields it has; the others are read in the store's default locale. A translated handle (a
 * collection's slug) is unique in the store and locale, and finds the resource in that locale.
 */
export const TRANSLATED_FIELDS = {
  product: { title: Title, description_html: Html, handle: Handle },
  variant: { title: Title },
  collection: { title: Title, slug: Handle, description: Html, seo_title: z.string().max(255), seo_description: z.string().max(1000) },
  brand: { name: Title, description: Html },
} as const satisfies Record<string, Record<string, ZodType>>;

export type TranslatedResource = keyof typeof TRANSLATED_FIELDS;

const NAMES: Record<TranslatedResource, string> = { product: 'Product', variant: 'Variant', collection: 'Collection', brand: 'Brand' };

/** The body of PUT …/translations/:locale and its answer, for one resource. */
export function translationSchemas(resource: TranslatedResource) {
  const fields = TRANSLATED_FIELDS[resource];
  const name = NAMES[resource];
  const input = z
    .strictObject(Object.fromEntries(Object.entries(fields).map(([k, s]) => [k, (s as ZodType).optional()])) as Record<string, ZodType>)
    .refine((body) => Object.values(body).some((v) => v !== undefined), { message: 'must translate at least one field (DELETE removes a translation)' })
    .meta({ id: `${name}TranslationReplace`, description: `The ${resource}'s fields in the locale; a field not sent is read in the store's default locale. Replaces the locale's translation.` });
  const out = z
    .object({
      locale: z.string(),
      ...Object.fromEntries(Object.keys(fields).map((k) => [k, z.string().nullable().meta({ description: 'null: read in the default locale' })])),
      created_at: Timestamp,
      updated_at: Timestamp,
    })
    .meta({ id: `${name}Translation` });
  return { input, out };
}

export const TranslationParams = z.object({ id: Uuid, locale: LocaleTag });
export const VariantTranslationParams = z.object({ id: Uuid, variant_id: Uuid, locale: LocaleTag });
