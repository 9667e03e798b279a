import type { Migration } from '@qhatu/core';

/**
 * What the store gave up of an order's total (decision 0085): money refunded outside an edit,
 * kept as given when an edit then changes the order, so that the order owes only what the edit adds.
 */
export const orderAmountWaivedMigration: Migration = {
  id: '0010_amount_waived',
  up: [
    `ALTER TABLE orders_order
       ADD COLUMN amount_waived bigint NOT NULL DEFAULT 0 CHECK (amount_waived >= 0)`,
  ],
};
