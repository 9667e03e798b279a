import type { Migration } from '@qhatu/core';

/** A line of no catalog variant (a draft order's custom line): its title and price are the staff's, and it holds no stock. */
export const orderCustomLinesMigration: Migration = {
  id: '0009_custom_lines',
  up: [
    `ALTER TABLE orders_line_item
       ALTER COLUMN variant_id DROP NOT NULL,
       ALTER COLUMN product_id DROP NOT NULL,
       ADD CONSTRAINT orders_line_item_custom CHECK ((variant_id IS NULL) = (product_id IS NULL))`,
  ],
};
