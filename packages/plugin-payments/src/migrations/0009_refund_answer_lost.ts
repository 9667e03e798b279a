import type { Migration } from '@qhatu/core';

/**
 * When a refund's answer was lost on a gateway that cannot repeat refunds (decision 0108): the
 * refund stays pending, its amount counted, until the store records what the provider did. The
 * sweep's index of unanswered refunds leaves those out: they wait for the store, not the sweep.
 */
export const refundAnswerLostMigration: Migration = {
  id: '0009_refund_answer_lost',
  up: [
    `ALTER TABLE payments_refund ADD COLUMN answer_lost_at timestamptz`,
    `DROP INDEX payments_refund_unanswered`,
    `CREATE INDEX payments_refund_unanswered ON payments_refund (updated_at) WHERE status = 'pending' AND provider_refund_id IS NULL AND answer_lost_at IS NULL`,
  ],
};
