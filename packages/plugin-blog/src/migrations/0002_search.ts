import { searchIndex, type Migration } from '@qhatu/core';

/**
 * Title search moves from full-text to core's trigram search (decision 0046): under row-level
 * security the full-text index was never read (`@@` is not leakproof), the trigram one is.
 */
export const postSearchMigration: Migration = {
  id: '0002_search',
  up: [`DROP INDEX blog_post_search`, ...searchIndex({ table: 'blog_post', columns: ['search_words'] })],
};
