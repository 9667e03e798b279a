import type { Migration } from '@qhatu/core';

/** Products' and variants' custom fields (declared by plugins and the project; core indexes the indexed ones). */
export const catalogCustomFieldsMigration: Migration = {
  id: '0007_custom_fields',
  up: [
    `ALTER TABLE catalog_product ADD COLUMN custom_fields jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(custom_fields) = 'object')`,
    `ALTER TABLE catalog_variant ADD COLUMN custom_fields jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(custom_fields) = 'object')`,
  ],
};
