import { tenantTable, type Migration } from '@qhatu/core';

export const offlineMigration: Migration = {
  id: '0001_offline',
  up: [
    `CREATE TABLE offline_method (
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       id uuid NOT NULL,
       name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
       kind text NOT NULL CHECK (kind IN ('cash_on_delivery', 'bank_transfer', 'wallet')),
       instructions text NOT NULL DEFAULT '' CHECK (char_length(instructions) <= 2000),
       currencies jsonb NOT NULL CHECK (jsonb_typeof(currencies) = 'array' AND jsonb_array_length(currencies) BETWEEN 1 AND 20),
       enabled boolean NOT NULL DEFAULT true,
       position integer NOT NULL DEFAULT 0 CHECK (position BETWEEN 0 AND 10000),
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id))`,
    // One method of a name per store (whatever its case): a second "Yape" is a 409.
    `CREATE UNIQUE INDEX offline_method_name ON offline_method (tenant_id, lower(name))`,
    `CREATE INDEX offline_method_position ON offline_method (tenant_id, position, id)`,
    `CREATE INDEX offline_method_created ON offline_method (tenant_id, created_at, id)`,
    `CREATE INDEX offline_method_name_sort ON offline_method (tenant_id, name, id)`,
    tenantTable('offline_method'),

    // A payment of an offline method, with the method as the shopper was shown it. No key to the
    // method: a method deleted later leaves its payments their copy.
    `CREATE TABLE offline_payment (
       tenant_id uuid NOT NULL,
       payment_id uuid NOT NULL,
       method_id uuid NOT NULL,
       method_name text NOT NULL,
       method_kind text NOT NULL CHECK (method_kind IN ('cash_on_delivery', 'bank_transfer', 'wallet')),
       instructions text NOT NULL,
       payer_reference text CHECK (char_length(payer_reference) <= 200),
       cancelled_at timestamptz,
       created_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, payment_id),
       FOREIGN KEY (tenant_id, payment_id) REFERENCES payments_payment (tenant_id, id) ON DELETE CASCADE)`,
    tenantTable('offline_payment'),

    `CREATE TABLE offline_receipt (
       tenant_id uuid NOT NULL,
       id uuid NOT NULL,
       payment_id uuid NOT NULL,
       order_id uuid NOT NULL,
       method_id uuid NOT NULL,
       amount bigint NOT NULL CHECK (amount > 0),
       currency char(3) NOT NULL,
       reference text CHECK (char_length(reference) BETWEEN 1 AND 200),
       note text CHECK (char_length(note) <= 1000),
       received_at timestamptz NOT NULL,
       recorded_by uuid,
       voided_at timestamptz,
       void_reason text CHECK (char_length(void_reason) <= 500),
       voided_by uuid,
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id),
       FOREIGN KEY (tenant_id, payment_id) REFERENCES offline_payment (tenant_id, payment_id) ON DELETE CASCADE)`,
    // An operation number pays once: a second receipt of it for the same method is a 409 while the first counts.
    `CREATE UNIQUE INDEX offline_receipt_reference ON offline_receipt (tenant_id, method_id, reference) WHERE reference IS NOT NULL AND voided_at IS NULL`,
    `CREATE INDEX offline_receipt_payment ON offline_receipt (tenant_id, payment_id, created_at, id)`,
    `CREATE INDEX offline_receipt_order ON offline_receipt (tenant_id, order_id, created_at, id)`,
    `CREATE INDEX offline_receipt_created ON offline_receipt (tenant_id, created_at, id)`,
    `CREATE INDEX offline_receipt_received ON offline_receipt (tenant_id, received_at, id)`,
    tenantTable('offline_receipt'),
  ],
};
