import type { Migration } from '@qhatu/core';

/**
 * Settings stored before storefront markup was checked (decision 0056) are marked: rows there
 * now are unchecked, rows written from here on are checked (the default). The plugin cleans the
 * marked ones when it starts; the partial index makes finding none free.
 */
export const markupCheckedMigration: Migration = {
  id: '0002_markup_checked',
  up: ['themes_catalog', 'themes_installed', 'themes_version'].flatMap((table) => [
    `ALTER TABLE ${table} ADD COLUMN markup_checked boolean NOT NULL DEFAULT false`,
    `ALTER TABLE ${table} ALTER COLUMN markup_checked SET DEFAULT true`,
    `CREATE INDEX ${table}_markup_unchecked ON ${table} (id) WHERE NOT markup_checked`,
  ]),
};
