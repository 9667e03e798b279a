import { tenantTable, type Migration } from '@qhatu/core';

export const abandonedCartsMigration: Migration = {
  id: '0001_abandoned_carts',
  up: [
    `CREATE TABLE abandoned_carts_cart (
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       id uuid NOT NULL,
       cart_id uuid NOT NULL,
       checkout_id uuid,
       customer_id uuid,
       email text,
       currency char(3) NOT NULL,
       item_count int NOT NULL CHECK (item_count >= 0),
       value_cents bigint NOT NULL CHECK (value_cents >= 0),
       status text NOT NULL CHECK (status IN ('abandoned', 'reminded', 'recovered')),
       reminder_count int NOT NULL DEFAULT 0 CHECK (reminder_count >= 0),
       last_reminded_at timestamptz,
       recovered_at timestamptz,
       recovered_by text CHECK (recovered_by IN ('admin', 'shopper')),
       recovered_value_cents bigint CHECK (recovered_value_cents >= 0),
       abandoned_at timestamptz NOT NULL,
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id),
       FOREIGN KEY (tenant_id, cart_id) REFERENCES checkout_cart (tenant_id, id) ON DELETE CASCADE
         DEFERRABLE INITIALLY DEFERRED)`,
    // A cart is recorded once: a sweep that finds it again does nothing.
    `CREATE UNIQUE INDEX abandoned_carts_cart_cart ON abandoned_carts_cart (tenant_id, cart_id)`,
    // The list (newest first, by status) and the sweep's look for open records.
    `CREATE INDEX abandoned_carts_cart_status ON abandoned_carts_cart (tenant_id, status, abandoned_at, id)`,
    `CREATE INDEX abandoned_carts_cart_abandoned ON abandoned_carts_cart (tenant_id, abandoned_at, id)`,
    tenantTable('abandoned_carts_cart'),
  ],
};
