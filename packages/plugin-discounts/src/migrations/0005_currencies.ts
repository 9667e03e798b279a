import type { Migration } from '@qhatu/core';

/**
 * Amounts per currency (decision 0097): a fixed coupon's and a fixed volume tier's amount, and a
 * coupon's minimum order, in the store's other currencies (`{"USD": 500}`); absent, derived from the
 * default currency's by the store's rate. Fixed tiers: `value` minor units off each unit.
 */
export const currenciesMigration: Migration = {
  id: '0005_currencies',
  up: [
    `ALTER TABLE discounts_coupon
       ADD COLUMN amounts jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(amounts) = 'object'),
       ADD COLUMN min_order_amounts jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(min_order_amounts) = 'object')`,
    `ALTER TABLE discounts_volume_discount
       DROP CONSTRAINT discounts_volume_discount_type_check,
       DROP CONSTRAINT discounts_volume_discount_value_check,
       ADD CONSTRAINT discounts_volume_discount_type_check CHECK (type IN ('percentage', 'fixed_amount')),
       ADD CONSTRAINT discounts_volume_discount_value_check CHECK (value >= 1 AND (type <> 'percentage' OR value <= 10000)),
       ADD COLUMN amounts jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(amounts) = 'object')`,
  ],
};
