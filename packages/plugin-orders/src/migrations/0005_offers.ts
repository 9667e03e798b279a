import type { Migration } from '@qhatu/core';

/** A line bought on a seller's offer (a marketplace) names it; its stock is the offer's. */
export const orderOffersMigration: Migration = {
  id: '0005_offers',
  up: [
    `ALTER TABLE orders_line_item ADD COLUMN offer_id uuid`,
    `CREATE INDEX orders_line_item_offer ON orders_line_item (tenant_id, offer_id) WHERE offer_id IS NOT NULL`,
  ],
};
