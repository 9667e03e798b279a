import type { Migration } from '@qhatu/core';

/**
 * The tax of an order as it was placed: each line's rate (basis points), class and amount, the
 * shipping's tax, and whether the prices included it (then `total` did not add it).
 */
export const orderTaxesMigration: Migration = {
  id: '0004_taxes',
  up: [
    `ALTER TABLE orders_line_item
       ADD COLUMN tax_class text NOT NULL DEFAULT 'standard',
       ADD COLUMN tax_rate integer NOT NULL DEFAULT 0 CHECK (tax_rate >= 0),
       ADD COLUMN tax_amount bigint NOT NULL DEFAULT 0 CHECK (tax_amount >= 0),
       ADD COLUMN discount_amount bigint NOT NULL DEFAULT 0 CHECK (discount_amount >= 0)`,
    `ALTER TABLE orders_order
       ADD COLUMN prices_include_tax boolean NOT NULL DEFAULT false,
       ADD COLUMN shipping_tax bigint NOT NULL DEFAULT 0 CHECK (shipping_tax >= 0)`,
  ],
};
