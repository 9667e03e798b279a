import type { Migration } from '@qhatu/core';

/** Customers' custom fields (declared by plugins and the project; core indexes the indexed ones). */
export const customersCustomFieldsMigration: Migration = {
  id: '0004_custom_fields',
  up: [`ALTER TABLE customers_customer ADD COLUMN custom_fields jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(custom_fields) = 'object')`],
};
