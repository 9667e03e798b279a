import { tenantTable, type Migration } from '@qhatu/core';

export const storeCreditMigration: Migration = {
  id: '0001_store_credit',
  up: [
    // A customer's balance in one currency: the row every change locks, never below zero.
    `CREATE TABLE store_credit_balance (
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       customer_id uuid NOT NULL,
       currency char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
       balance bigint NOT NULL CHECK (balance >= 0),
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, customer_id, currency),
       FOREIGN KEY (tenant_id, customer_id) REFERENCES customers_customer (tenant_id, id) ON DELETE CASCADE)`,
    tenantTable('store_credit_balance'),

    // Every change of a balance, signed; balance_after is the balance once it was made.
    `CREATE TABLE store_credit_entry (
       tenant_id uuid NOT NULL,
       id uuid NOT NULL,
       customer_id uuid NOT NULL,
       currency char(3) NOT NULL,
       kind text NOT NULL CHECK (kind IN ('grant', 'deduct', 'spend', 'restore')),
       amount bigint NOT NULL CHECK (amount <> 0 AND (amount > 0) = (kind IN ('grant', 'restore'))),
       balance_after bigint NOT NULL CHECK (balance_after >= 0),
       reason text NOT NULL CHECK (char_length(reason) BETWEEN 1 AND 500),
       source_type text NOT NULL CHECK (char_length(source_type) BETWEEN 1 AND 50),
       source_id text CHECK (char_length(source_id) BETWEEN 1 AND 200),
       payment_id uuid,
       order_id uuid,
       created_by uuid,
       created_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id),
       FOREIGN KEY (tenant_id, customer_id, currency) REFERENCES store_credit_balance (tenant_id, customer_id, currency) ON DELETE CASCADE)`,
    // A return, a refund or a payment credits or debits once; staff may adjust as often as they need.
    `CREATE UNIQUE INDEX store_credit_entry_source ON store_credit_entry (tenant_id, source_type, source_id) WHERE source_type <> 'staff' AND source_id IS NOT NULL`,
    `CREATE INDEX store_credit_entry_customer ON store_credit_entry (tenant_id, customer_id, created_at, id)`,
    `CREATE INDEX store_credit_entry_customer_currency ON store_credit_entry (tenant_id, customer_id, currency, created_at, id)`,
    `CREATE INDEX store_credit_entry_payment ON store_credit_entry (tenant_id, payment_id) WHERE payment_id IS NOT NULL`,
    tenantTable('store_credit_entry'),

    // What the ledger answered a payment: its debit, or why there is none. Written once, under the payment's lock.
    `CREATE TABLE store_credit_payment (
       tenant_id uuid NOT NULL,
       payment_id uuid NOT NULL,
       entry_id uuid,
       failure_reason text CHECK (char_length(failure_reason) <= 500),
       created_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, payment_id),
       CHECK ((entry_id IS NULL) <> (failure_reason IS NULL)),
       FOREIGN KEY (tenant_id, payment_id) REFERENCES payments_payment (tenant_id, id) ON DELETE CASCADE,
       FOREIGN KEY (tenant_id, entry_id) REFERENCES store_credit_entry (tenant_id, id))`,
    `CREATE INDEX store_credit_payment_entry ON store_credit_payment (tenant_id, entry_id) WHERE entry_id IS NOT NULL`,
    tenantTable('store_credit_payment'),
  ],
};
