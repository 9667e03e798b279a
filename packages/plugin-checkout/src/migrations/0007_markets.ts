import type { Migration } from '@qhatu/core';

/**
 * The market a cart was made in (decision 0097), and the tax mode it was last priced with by its
 * market (null: the store's tax setting). No foreign key to `core_market`: a market may be
 * deleted, and its carts and checkouts keep their currency and tax mode.
 */
export const checkoutMarketsMigration: Migration = {
  id: '0007_markets',
  up: [
    `ALTER TABLE checkout_cart ADD COLUMN market_id uuid, ADD COLUMN market_prices_include_tax boolean`,
    `ALTER TABLE checkout_checkout ADD COLUMN market_id uuid, ADD COLUMN market_prices_include_tax boolean`,
  ],
};
