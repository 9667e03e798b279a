import type { Migration } from '@qhatu/core';

/** The hold sweep's look over every store for checkouts awaiting payment too long (decision 0059). */
export const checkoutHoldsMigration: Migration = {
  id: '0005_holds',
  up: [`CREATE INDEX checkout_checkout_awaiting ON checkout_checkout (updated_at) WHERE status = 'payment_pending'`],
};
