import type { Migration } from '@qhatu/core';

/** Carts' custom fields (declared by plugins and the project; core indexes the indexed ones), carried to the order at checkout. */
export const checkoutCustomFieldsMigration: Migration = {
  id: '0006_custom_fields',
  up: [`ALTER TABLE checkout_cart ADD COLUMN custom_fields jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(custom_fields) = 'object')`],
};
