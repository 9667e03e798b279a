import type { Migration } from '@qhatu/core';

/** The tax of carts (an estimate) and checkouts, and whether the prices included it. */
export const checkoutTaxesMigration: Migration = {
  id: '0003_taxes',
  up: [
    `ALTER TABLE checkout_cart
       ADD COLUMN tax_total bigint NOT NULL DEFAULT 0,
       ADD COLUMN prices_include_tax boolean NOT NULL DEFAULT false`,
    `ALTER TABLE checkout_checkout
       ADD COLUMN shipping_tax bigint NOT NULL DEFAULT 0,
       ADD COLUMN prices_include_tax boolean NOT NULL DEFAULT false`,
  ],
};
