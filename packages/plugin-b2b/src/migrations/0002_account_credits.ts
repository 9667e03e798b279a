import { tenantTable, type Migration } from '@qhatu/core';

/**
 * Returns of orders on account: the worth of goods a company sent back is set against what it owes
 * for the order (`credited`), each credit kept once per source (a return refunded twice, or by two
 * requests at once, credits once). Orders already on account credited nothing.
 */
export const accountCreditsMigration: Migration = {
  id: '0002_account_credits',
  up: [
    `ALTER TABLE b2b_account_order ADD COLUMN credited bigint NOT NULL DEFAULT 0 CHECK (credited >= 0)`,
    `CREATE TABLE b2b_account_credit (
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       id uuid NOT NULL,
       order_id uuid NOT NULL,
       b2b_customer_id uuid NOT NULL,
       amount bigint NOT NULL CHECK (amount > 0),
       applied bigint NOT NULL CHECK (applied >= 0 AND applied <= amount),
       reason text NOT NULL CHECK (char_length(reason) BETWEEN 1 AND 500),
       source_type text NOT NULL CHECK (char_length(source_type) BETWEEN 1 AND 50),
       source_id text NOT NULL CHECK (char_length(source_id) BETWEEN 1 AND 200),
       created_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id),
       FOREIGN KEY (tenant_id, order_id) REFERENCES b2b_account_order (tenant_id, order_id) ON DELETE CASCADE,
       FOREIGN KEY (tenant_id, b2b_customer_id) REFERENCES b2b_customer (tenant_id, id))`,
    `CREATE UNIQUE INDEX b2b_account_credit_source ON b2b_account_credit (tenant_id, source_type, source_id)`,
    `CREATE INDEX b2b_account_credit_order ON b2b_account_credit (tenant_id, order_id, created_at)`,
    `CREATE INDEX b2b_account_credit_customer ON b2b_account_credit (tenant_id, b2b_customer_id, created_at)`,
    tenantTable('b2b_account_credit'),
  ],
};
