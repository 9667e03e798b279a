import { tenantTable, type Migration } from '@qhatu/core';

/**
 * How a store lets shoppers sign up (its own choice, or the platform's default when null), and the
 * single-use links that finish a sign-up: only a SHA-256 digest of each link's token is kept.
 */
export const accountLinksMigration: Migration = {
  id: '0002_account_links',
  up: [
    `CREATE TABLE customers_settings (
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       registration text CHECK (registration IN ('verify', 'instant', 'claim')),
       account_url text,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id))`,
    tenantTable('customers_settings'),
    `CREATE TABLE customers_account_link (
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       id uuid NOT NULL,
       token_hash text NOT NULL CHECK (token_hash ~ '^[0-9a-f]{64}$'),
       email text NOT NULL CHECK (email = lower(email)),
       customer_id uuid,
       first_name text NOT NULL DEFAULT '',
       last_name text NOT NULL DEFAULT '',
       expires_at timestamptz NOT NULL,
       used_at timestamptz,
       created_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id),
       FOREIGN KEY (tenant_id, customer_id) REFERENCES customers_customer (tenant_id, id) ON DELETE CASCADE)`,
    `CREATE UNIQUE INDEX customers_account_link_token ON customers_account_link (tenant_id, token_hash)`,
    `CREATE INDEX customers_account_link_email ON customers_account_link (tenant_id, email, created_at)`,
    `CREATE INDEX customers_account_link_customer ON customers_account_link (tenant_id, customer_id) WHERE customer_id IS NOT NULL`,
    tenantTable('customers_account_link'),
    // One row per registration e-mail sent, for the hourly cap per address; swept after a day.
    `CREATE TABLE customers_registration_mail (
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       id uuid NOT NULL,
       email text NOT NULL,
       sent_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id))`,
    `CREATE INDEX customers_registration_mail_email ON customers_registration_mail (tenant_id, email, sent_at)`,
    tenantTable('customers_registration_mail'),
  ],
};
