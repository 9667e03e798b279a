import type { Migration } from '@qhatu/core';

/** The orders' custom fields (declared by plugins and the project; core indexes the indexed ones). */
export const orderCustomFieldsMigration: Migration = {
  id: '0008_custom_fields',
  up: [`ALTER TABLE orders_order ADD COLUMN custom_fields jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(custom_fields) = 'object')`],
};
