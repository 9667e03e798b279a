import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const POST_STATUSES = ['draft', 'published', 'archived'] as const;
export type PostStatus = (typeof POST_STATUSES)[number];

export const BlogPost = defineEntity({
  name: 'BlogPost',
  tableName: 'blog_post',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    title: p.text(),
    /** Unique in the store, whatever the post's status: a permalink is never handed to another post. */
    slug: p.string(),
    /** HTML, sanitized to the allow-list before it is stored (see `services/content.ts`). */
    content: p.text(),
    excerpt: p.text().nullable(),
    author: p.string().nullable(),
    featuredImage: p.text().nullable(),
    tags: p.json<string[]>(),
    status: p.string().$type<PostStatus>(),
    publishedAt: p.datetime().nullable(),
    archivedAt: p.datetime().nullable(),
    /** The title's words folded to ASCII lower case: what `q` searches (trigram-indexed, decision 0046). */
    searchWords: p.text(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type BlogPost = InferEntity<typeof BlogPost>;
