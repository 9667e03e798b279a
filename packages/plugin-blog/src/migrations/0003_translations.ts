import { translationTable, type Migration } from '@qhatu/core';

/** Posts translated into the store's other locales (decision 0089), on core's translation table. */
export const postTranslationsMigration: Migration = {
  id: '0003_translations',
  up: translationTable('blog_translation', [{ resource: 'post', table: 'blog_post' }]),
};
