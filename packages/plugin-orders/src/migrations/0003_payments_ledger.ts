import { tenantTable, type Migration } from '@qhatu/core';

/**
 * What the order was paid and refunded, one row per payment (the payments plugin's id): the job
 * of each confirmed payment and each refund upsert their row, so a repeat counts nothing twice.
 * The order carries the sums, and an index serves the admin's revenue analytics by paid date.
 */
export const paymentsLedgerMigration: Migration = {
  id: '0003_payments_ledger',
  up: [
    `CREATE TABLE orders_payment (
       tenant_id uuid NOT NULL,
       order_id uuid NOT NULL,
       payment_id text NOT NULL,
       amount bigint NOT NULL CHECK (amount >= 0),
       currency char(3) NOT NULL,
       refunded_amount bigint NOT NULL DEFAULT 0 CHECK (refunded_amount >= 0),
       recorded_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, order_id, payment_id),
       FOREIGN KEY (tenant_id, order_id) REFERENCES orders_order (tenant_id, id) ON DELETE CASCADE)`,
    tenantTable('orders_payment'),
    `ALTER TABLE orders_order
       ADD COLUMN amount_paid bigint NOT NULL DEFAULT 0 CHECK (amount_paid >= 0),
       ADD COLUMN amount_refunded bigint NOT NULL DEFAULT 0 CHECK (amount_refunded >= 0)`,
    `CREATE INDEX orders_order_paid ON orders_order (tenant_id, paid_at) WHERE paid_at IS NOT NULL`,
  ],
};
