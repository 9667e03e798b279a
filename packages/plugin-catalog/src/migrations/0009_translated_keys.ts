import type { Migration } from '@qhatu/core';

/**
 * Translated handles and titles as keys (decision 0096): a product's handle and a collection's slug
 * in a locale, unique per store and locale, and the translated title (a brand's name) a list sorts
 * by. Stored columns rather than expression indexes: under row-level security PostgreSQL uses a
 * condition as an index condition only when its functions are leakproof, which `->>` is not.
 * A brand's translation is found by its name only, as a brand is in the default locale.
 */
export const catalogTranslatedKeysMigration: Migration = {
  id: '0009_translated_keys',
  up: [
    `ALTER TABLE catalog_translation
       ADD COLUMN handle text GENERATED ALWAYS AS (coalesce(fields->>'handle', fields->>'slug')) STORED,
       ADD COLUMN sort_title text GENERATED ALWAYS AS (coalesce(fields->>'title', fields->>'name')) STORED`,
    `CREATE UNIQUE INDEX catalog_translation_handle ON catalog_translation (tenant_id, resource, locale, handle) WHERE handle IS NOT NULL`,
    `CREATE INDEX catalog_translation_sort ON catalog_translation (tenant_id, resource, locale, sort_title, resource_id) WHERE sort_title IS NOT NULL`,
    `UPDATE catalog_translation SET search = to_tsvector(qhatu_text_config(locale), qhatu_fold(coalesce(fields->>'name', ''))) WHERE resource = 'brand'`,
  ],
};
