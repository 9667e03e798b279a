import type { Migration } from '@qhatu/core';

/** The order placed when a checkout awaits payment, and when the payment completed it. */
export const checkoutOrderMigration: Migration = {
  id: '0002_checkout_order',
  up: [
    `ALTER TABLE checkout_checkout ADD COLUMN order_id uuid, ADD COLUMN completed_at timestamptz`,
    // One checkout per order: the payment confirmation finds its checkout by this index.
    `CREATE UNIQUE INDEX checkout_checkout_order ON checkout_checkout (tenant_id, order_id) WHERE order_id IS NOT NULL`,
  ],
};
