import { defineMachine } from '@qhatu/core';
import type { BlogPost, PostStatus } from '../entities/post.js';
import { postEvent } from '../services/events.js';

/**
 * A post is written as a draft, published once (`published_at` is set then and kept), and
 * archived from any live state: an archived post is gone from the storefront for good.
 */
export const postMachine = defineMachine<BlogPost, PostStatus>({
  name: 'post',
  field: 'status',
  states: ['draft', 'published', 'archived'],
  transitions: {
    publish: {
      from: ['draft'],
      to: 'published',
      effect: ({ entity, tx }) => {
        entity.publishedAt = tx.now();
        entity.updatedAt = entity.publishedAt;
      },
      event: 'blog.post.published',
    },
    archive: {
      from: ['draft', 'published'],
      to: 'archived',
      effect: ({ entity, tx }) => {
        entity.archivedAt = tx.now();
        entity.updatedAt = entity.archivedAt;
      },
      event: 'blog.post.archived',
    },
  },
  eventData: postEvent,
});
