import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { AppError, Database, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { BlogPost } from '../entities/post.js';
import { postMachine } from '../machines/post.js';
import type { PostInput, PostPatch } from '../schemas/post.js';
import { sanitizeContent } from './content.js';
import { postEvent } from './events.js';
import { foldWords, resolveSlug, retryTakenSlug } from './slugs.js';

/** Blog posts: the only place that writes them. */
@injectable()
export class Posts {
  constructor(@inject(Database) private readonly db: Database) {}

  /** A new post is a draft. */
  async create(input: PostInput): Promise<BlogPost> {
    return retryTakenSlug(input.slug, () =>
      this.db.tenant(async (tx) => {
        const at = tx.now();
        const post = tx.em.create(BlogPost, {
          id: randomUUID(),
          tenantId: tx.tenantId,
          title: input.title,
          slug: await resolveSlug(tx, input.slug, input.title),
          content: sanitizeContent(input.content ?? ''),
          excerpt: input.excerpt ?? null,
          author: input.author || null,
          featuredImage: input.featured_image ?? null,
          tags: uniqueTags(input.tags ?? []),
          status: 'draft',
          publishedAt: null,
          archivedAt: null,
          searchWords: foldWords(input.title).join(' '),
          createdAt: at,
          updatedAt: at,
        });
        tx.publish('blog.post.created', postEvent(post));
        await tx.em.flush();
        return post;
      }),
    );
  }

  /** Only the fields sent change; the slug stays unless one is sent (empty: made anew from the title). */
  async update(id: string, patch: PostPatch): Promise<BlogPost> {
    return retryTakenSlug(patch.slug, () =>
      this.db.tenant(async (tx) => {
        const post = await this.lock(tx, id);
        if (patch.title !== undefined) {
          post.title = patch.title;
          post.searchWords = foldWords(patch.title).join(' ');
        }
        post.slug = await resolveSlug(tx, patch.slug, post.title, post);
        if (patch.content !== undefined) post.content = sanitizeContent(patch.content ?? '');
        if (patch.excerpt !== undefined) post.excerpt = patch.excerpt;
        if (patch.author !== undefined) post.author = patch.author || null;
        if (patch.featured_image !== undefined) post.featuredImage = patch.featured_image;
        if (patch.tags !== undefined) post.tags = uniqueTags(patch.tags);
        post.updatedAt = tx.now();
        tx.publish('blog.post.updated', postEvent(post));
        await tx.em.flush();
        return post;
      }),
    );
  }

  /** draft → published; `published_at` is set now. Any other state: 409 INVALID_STATE_TRANSITION. */
  async publish(id: string): Promise<BlogPost> {
    return this.db.tenant(async (tx) => {
      const post = await this.lock(tx, id);
      await postMachine.apply(tx, post, 'publish');
      await tx.em.flush();
      return post;
    });
  }

  /** DELETE: the post is archived (kept, gone from the storefront). Archiving it again changes nothing. */
  async archive(id: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      const post = await this.lock(tx, id);
      if (post.status === 'archived') return;
      await postMachine.apply(tx, post, 'archive');
      await tx.em.flush();
    });
  }

  private async lock(tx: Tx, id: string): Promise<BlogPost> {
    const post = await tx.em.findOne(BlogPost, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!post) throw postNotFound();
    return post;
  }
}

export const postNotFound = () => AppError.notFound('Blog post', 'BLOG_POST_NOT_FOUND');

/** Tags as sent, trimmed, each once, in their first position. */
function uniqueTags(tags: string[]): string[] {
  return [...new Set(tags)];
}
