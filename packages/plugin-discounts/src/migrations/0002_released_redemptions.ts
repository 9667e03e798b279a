import type { Migration } from '@qhatu/core';

/** A cancelled order gives its coupon uses back: the redemption stays, marked released. */
export const releasedRedemptionsMigration: Migration = {
  id: '0002_released_redemptions',
  up: [`ALTER TABLE discounts_redemption ADD COLUMN released_at timestamptz`],
};
