import type { Migration } from '@qhatu/core';

/**
 * A return of an order placed on a company's account (the B2B plugin) is refunded to that account:
 * `refund_method` `account`, and `account_amount`, what it took off what the company owes (the rest
 * of the refund went back through the order's payments). Returns refunded before credited nothing.
 */
export const accountRefundsMigration: Migration = {
  id: '0002_account_refunds',
  up: [
    `ALTER TABLE returns_return DROP CONSTRAINT returns_return_refund_method_check`,
    `ALTER TABLE returns_return ADD CONSTRAINT returns_return_refund_method_check CHECK (refund_method IN ('original_payments', 'store_credit', 'account'))`,
    `ALTER TABLE returns_return ADD COLUMN account_amount bigint NOT NULL DEFAULT 0 CHECK (account_amount >= 0 AND account_amount <= refund_amount)`,
  ],
};
