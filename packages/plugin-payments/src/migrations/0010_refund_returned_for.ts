import type { Migration } from '@qhatu/core';

/**
 * Why the store sent a refund's money back by itself (a late payment, a cancelled order, no
 * stock): recorded failed from the provider's dashboard, such a refund is sent again (decision 0112).
 */
export const refundReturnedForMigration: Migration = {
  id: '0010_refund_returned_for',
  up: [`ALTER TABLE payments_refund ADD COLUMN returned_for text CHECK (returned_for IN ('late', 'order_cancelled', 'stock_unavailable'))`],
};
