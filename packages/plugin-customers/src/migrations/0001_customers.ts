import { tenantTable, type Migration } from '@qhatu/core';

/**
 * Customers, their passwords and their address books. E-mails are stored lower-case, so the
 * unique index makes them unique per store regardless of case; the partial unique index allows
 * one default address per customer.
 */
export const customersMigration: Migration = {
  id: '0001_customers',
  up: [
    `CREATE TABLE customers_customer (
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       id uuid NOT NULL,
       email text NOT NULL CHECK (email = lower(email)),
       first_name text NOT NULL DEFAULT '',
       last_name text NOT NULL DEFAULT '',
       phone text CHECK (phone ~ '^\\+[1-9][0-9]{6,14}$'),
       accepts_marketing boolean NOT NULL DEFAULT false,
       tags jsonb NOT NULL DEFAULT '[]',
       status text NOT NULL CHECK (status IN ('active', 'disabled')),
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id))`,
    `CREATE UNIQUE INDEX customers_customer_email ON customers_customer (tenant_id, email)`,
    `CREATE INDEX customers_customer_created ON customers_customer (tenant_id, created_at, id)`,
    `CREATE INDEX customers_customer_first_name ON customers_customer (tenant_id, first_name, id)`,
    `CREATE INDEX customers_customer_status ON customers_customer (tenant_id, status, created_at, id)`,
    tenantTable('customers_customer'),
    `CREATE TABLE customers_credential (
       tenant_id uuid NOT NULL,
       customer_id uuid NOT NULL,
       password_hash text NOT NULL CHECK (password_hash LIKE 'scrypt$%'),
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, customer_id),
       -- Deferred: a registration inserts the credential and its new customer in one flush, in no set order.
       FOREIGN KEY (tenant_id, customer_id) REFERENCES customers_customer (tenant_id, id)
         ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED)`,
    tenantTable('customers_credential'),
    `CREATE TABLE customers_address (
       tenant_id uuid NOT NULL,
       id uuid NOT NULL,
       customer_id uuid NOT NULL,
       first_name text,
       last_name text,
       company text,
       address1 text NOT NULL,
       address2 text,
       city text NOT NULL,
       province text,
       country_code text NOT NULL CHECK (country_code ~ '^[A-Z]{2}$'),
       zip text,
       phone text,
       is_default boolean NOT NULL DEFAULT false,
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id),
       FOREIGN KEY (tenant_id, customer_id) REFERENCES customers_customer (tenant_id, id) ON DELETE CASCADE)`,
    `CREATE INDEX customers_address_customer ON customers_address (tenant_id, customer_id, created_at, id)`,
    // At most one default per customer; the service keeps "exactly one when there are any".
    `CREATE UNIQUE INDEX customers_address_default ON customers_address (tenant_id, customer_id) WHERE is_default`,
    tenantTable('customers_address'),
  ],
};
