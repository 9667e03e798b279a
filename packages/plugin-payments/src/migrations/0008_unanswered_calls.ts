import type { Migration } from '@qhatu/core';

/**
 * What a charge needs to be asked again is committed with the payment, before the provider is
 * called: `awaiting_answer` names the call whose answer is not recorded yet (`charge`, or a
 * `confirm` that repeats it), and `retry_fields` holds the client's fields, sealed, until then. A
 * payment left pending with neither before this (no answer ever recorded) is awaiting its charge's.
 */
export const unansweredCallsMigration: Migration = {
  id: '0008_payment_unanswered_calls',
  up: [
    `ALTER TABLE payments_payment ADD COLUMN awaiting_answer text CHECK (awaiting_answer IN ('charge', 'confirm'))`,
    `UPDATE payments_payment SET awaiting_answer = 'charge'
      WHERE status = 'pending' AND provider_payment_id IS NULL AND (retry_fields IS NOT NULL OR next_action IS NULL)`,
    `DROP INDEX payments_payment_retry`,
    `CREATE INDEX payments_payment_unanswered ON payments_payment (updated_at) WHERE awaiting_answer IS NOT NULL`,
  ],
};
