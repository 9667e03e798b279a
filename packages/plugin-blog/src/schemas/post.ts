import { LOCALE_PARAMETER, LocaleTag, pageQuery, plainText, Timestamp } from '@qhatu/core';
import { z } from 'zod';
import { POST_STATUSES } from '../entities/post.js';

/** A slug as sent: lower-case letters and digits joined by single dashes; empty means "make one from the title". */
const Slug = z
  .string()
  .max(80)
  .regex(/^(?:[a-z0-9]+(?:-[a-z0-9]+)*)?$/, 'must be lower-case letters and digits separated by single dashes (empty: made from the title)');

const HttpUrl = z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).max(2048);

/** Plain text, `max` characters as sent: markup is removed when it is stored (`<b>Sale</b>` → `Sale`), then it is trimmed. */
const PlainText = (max: number) => z.string().trim().max(max).overwrite(plainText).trim();
const PLAIN = 'Plain text: markup is removed when it is stored; render it as text';

const Tag = PlainText(64).min(1, 'must not be empty');

export const PostInput = z
  .strictObject({
    title: PlainText(255).min(1, 'must not be empty').meta({ description: PLAIN }),
    slug: Slug.nullable().optional().meta({ description: 'Made from the title when empty or absent (accents and punctuation folded); unique in the store' }),
    content: z.string().max(500_000).nullable().optional().meta({
      description: 'HTML. Sanitized when stored: scripts, event handlers, styles and javascript:/data: URLs are removed; text, headings, lists, tables, links and images stay',
    }),
    excerpt: PlainText(2000).nullable().optional().meta({ description: PLAIN }),
    author: PlainText(255).nullable().optional().meta({ description: `The author's name. ${PLAIN}` }),
    featured_image: HttpUrl.nullable().optional(),
    tags: z.array(Tag).max(50).optional().meta({ description: `Duplicates are dropped; order is kept. ${PLAIN}` }),
  })
  .meta({ id: 'BlogPostCreate' });
export type PostInput = z.output<typeof PostInput>;

export const PostPatch = PostInput.partial()
  .refine((body) => Object.keys(body).length > 0, { message: 'must change at least one field' })
  .meta({ id: 'BlogPostPatch', description: 'The create fields; only the fields sent change. An empty slug is made anew from the title' });
export type PostPatch = z.output<typeof PostPatch>;

export const PostOut = z
  .object({
    id: z.uuid(),
    title: z.string().meta({ description: 'Plain text' }),
    slug: z.string(),
    content: z.string().meta({ description: 'Sanitized HTML (render it as HTML)' }),
    excerpt: z.string().nullable().meta({ description: 'Plain text' }),
    author: z.string().nullable().meta({ description: 'Plain text' }),
    featured_image: z.string().nullable().meta({ description: 'An http or https URL' }),
    tags: z.array(z.string()).meta({ description: 'Plain text each' }),
    status: z.enum(POST_STATUSES),
    published_at: Timestamp.nullable(),
    archived_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'BlogPost' });

export const POST_SORTS = ['published_at', 'created_at', 'title'] as const;
const sortValues = POST_SORTS.flatMap((s) => [s, `-${s}`]) as [string, ...string[]];

export const PostListQuery = pageQuery()
  .extend({
    status: z.enum(POST_STATUSES).optional().meta({ description: 'Storefront callers only ever see published posts' }),
    q: z.string().trim().min(1).max(200).optional().meta({ description: 'Words of the title, each found whatever its accents and case (3 characters or more anywhere in a word, 1–2 at its beginning)' }),
    sort: z.enum(sortValues).default('-published_at').meta({ description: 'published_at orders drafts by their creation time' }),
    locale: LocaleTag.optional().meta({ description: `${LOCALE_PARAMETER} In another locale, q finds the translated titles too (stemmed in its language).` }),
  });
export type PostListQuery = z.output<typeof PostListQuery>;

export const SlugParams = z.object({ slug: z.string().min(1).max(255) });
