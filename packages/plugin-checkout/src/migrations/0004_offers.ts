import type { Migration } from '@qhatu/core';

/** A cart line bought on a seller's offer (a marketplace) names it. */
export const checkoutOffersMigration: Migration = {
  id: '0004_offers',
  up: [`ALTER TABLE checkout_cart_item ADD COLUMN offer_id uuid`],
};
