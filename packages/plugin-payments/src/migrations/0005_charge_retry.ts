import type { Migration } from '@qhatu/core';

/**
 * A charge whose answer was lost (a timeout, a dropped connection) on a gateway whose calls are
 * idempotent is repeated rather than failed: the client's payment fields are kept for that, sealed.
 */
export const chargeRetryMigration: Migration = {
  id: '0005_payment_charge_retry',
  up: [
    `ALTER TABLE payments_payment ADD COLUMN retry_fields text`,
    `CREATE INDEX payments_payment_retry ON payments_payment (updated_at) WHERE retry_fields IS NOT NULL`,
    `CREATE INDEX payments_refund_unanswered ON payments_refund (updated_at) WHERE status = 'pending' AND provider_refund_id IS NULL`,
  ],
};
