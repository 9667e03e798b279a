import { LocaleTag, plainText, Timestamp, Uuid } from '@qhatu/core';
import { z } from 'zod';

const PlainText = (max: number) => z.string().trim().max(max).overwrite(plainText).trim();

/** The fields a post translates. */
export const POST_TRANSLATED_FIELDS = ['title', 'excerpt', 'content'] as const;

export const PostTranslationReplace = z
  .strictObject({
    title: PlainText(255).min(1, 'must not be empty').optional().meta({ description: 'Plain text: markup is removed when it is stored' }),
    excerpt: PlainText(2000).optional().meta({ description: 'Plain text: markup is removed when it is stored' }),
    content: z.string().max(500_000).optional().meta({ description: "HTML, sanitized when stored as the post's own content is" }),
  })
  .refine((body) => Object.values(body).some((v) => v !== undefined), { message: 'must translate at least one field (DELETE removes a translation)' })
  .meta({ id: 'BlogPostTranslationReplace', description: "The post's fields in the locale; a field not sent is read in the store's default locale. Replaces the locale's translation." });
export type PostTranslationReplace = z.output<typeof PostTranslationReplace>;

const Fallback = z.string().nullable().meta({ description: 'null: read in the default locale' });

export const PostTranslationOut = z
  .object({ locale: z.string(), title: Fallback, excerpt: Fallback, content: Fallback, created_at: Timestamp, updated_at: Timestamp })
  .meta({ id: 'BlogPostTranslation' });

export const PostTranslationParams = z.object({ id: Uuid, locale: LocaleTag });
