import type { BlogPost } from '../entities/post.js';

export const POST_EVENTS = ['blog.post.created', 'blog.post.updated', 'blog.post.published', 'blog.post.archived'] as const;

/** What every blog event carries: enough for a receiver to link to the post, not its content. */
export function postEvent(post: BlogPost) {
  return {
    id: post.id,
    title: post.title,
    slug: post.slug,
    status: post.status,
    author: post.author,
    tags: post.tags,
    published_at: post.publishedAt?.toISOString() ?? null,
    updated_at: post.updatedAt.toISOString(),
  };
}
