import type { Migration } from '@qhatu/core';

/**
 * The locale a customer is written to in (decision 0098): one of the store's locales, or none (the
 * store's default). An account link keeps the locale its registration chose, for the customer it creates.
 */
export const customersLocaleMigration: Migration = {
  id: '0005_locale',
  up: [
    `ALTER TABLE customers_customer ADD COLUMN locale text CHECK (locale ~ '^[a-z]{2,3}(-[A-Z]{2})?$')`,
    `ALTER TABLE customers_account_link ADD COLUMN locale text CHECK (locale ~ '^[a-z]{2,3}(-[A-Z]{2})?$')`,
  ],
};
