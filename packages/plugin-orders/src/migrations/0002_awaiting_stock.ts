import type { Migration } from '@qhatu/core';

/** A paid-for order short of stock remembers its payment, so that restocking can finish it. */
export const awaitingStockMigration: Migration = {
  id: '0002_awaiting_stock',
  up: [
    `ALTER TABLE orders_order ADD COLUMN awaiting_stock_payment_id text`,
    `CREATE INDEX orders_order_awaiting_stock ON orders_order (tenant_id, created_at) WHERE awaiting_stock_payment_id IS NOT NULL`,
  ],
};
