import type { Migration } from '@qhatu/core';

/** The tax a refund gives back: its share of the order's tax (decision 0039). */
export const refundTaxMigration: Migration = {
  id: '0007_refund_tax',
  up: [`ALTER TABLE payments_refund ADD COLUMN tax_amount bigint NOT NULL DEFAULT 0 CHECK (tax_amount >= 0)`],
};
