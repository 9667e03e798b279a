import { translationTable, type Migration } from '@qhatu/core';

/**
 * Translations of products, variants, collections and brands (decision 0089), on core's
 * translation table; a change of one moves the store's catalog version like the rows it translates.
 */
export const catalogTranslationsMigration: Migration = {
  id: '0008_translations',
  up: [
    ...translationTable('catalog_translation', [
      { resource: 'product', table: 'catalog_product' },
      { resource: 'variant', table: 'catalog_variant' },
      { resource: 'collection', table: 'catalog_collection' },
      { resource: 'brand', table: 'catalog_brand' },
    ]),
    `CREATE CONSTRAINT TRIGGER catalog_translation_cache_version AFTER INSERT OR UPDATE OR DELETE ON catalog_translation
       DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION catalog_cache_bump()`,
  ],
};
