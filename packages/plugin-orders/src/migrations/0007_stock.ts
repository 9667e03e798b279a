import { tenantTable, type Migration } from '@qhatu/core';

/** Units sold without stock per line, and each store's policy for paid orders that cannot get theirs (decision 0055). */
export const orderStockMigration: Migration = {
  id: '0007_stock',
  up: [
    `ALTER TABLE orders_line_item ADD COLUMN backordered_quantity int NOT NULL DEFAULT 0
       CHECK (backordered_quantity >= 0 AND backordered_quantity <= quantity)`,
    // Set once the store's policy gave up on the stock of a paid order: it is refunded, never paid.
    `ALTER TABLE orders_order ADD COLUMN stock_unavailable_at timestamptz`,
    `CREATE TABLE orders_settings (
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       stock_policy text NOT NULL CHECK (stock_policy IN ('refund', 'wait')),
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id))`,
    tenantTable('orders_settings'),
  ],
};
