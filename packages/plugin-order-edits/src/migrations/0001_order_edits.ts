import { tenantTable, type Migration } from '@qhatu/core';

/** Edits of orders with their previews; a confirmed one is a numbered version of its order. */
export const orderEditsMigration: Migration = {
  id: '0001_order_edits',
  up: [
    `CREATE TABLE order_edits_edit (
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       id uuid NOT NULL,
       order_id uuid NOT NULL,
       status text NOT NULL CHECK (status IN ('open', 'confirmed', 'cancelled')),
       version int CHECK (version > 0),
       changes jsonb NOT NULL,
       shipping jsonb,
       shipping_changed boolean NOT NULL DEFAULT false,
       before jsonb NOT NULL,
       after jsonb NOT NULL,
       order_updated_at timestamptz NOT NULL,
       currency char(3) NOT NULL,
       amount_paid bigint NOT NULL DEFAULT 0,
       difference bigint NOT NULL DEFAULT 0,
       amount_due bigint NOT NULL DEFAULT 0 CHECK (amount_due >= 0),
       refund_amount bigint NOT NULL DEFAULT 0 CHECK (refund_amount >= 0),
       note text,
       payment_url text,
       created_by uuid,
       confirmed_by uuid,
       confirmed_at timestamptz,
       cancelled_at timestamptz,
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id),
       FOREIGN KEY (tenant_id, order_id) REFERENCES orders_order (tenant_id, id) ON DELETE CASCADE,
       CHECK ((status = 'confirmed') = (version IS NOT NULL)))`,
    `CREATE INDEX order_edits_edit_order ON order_edits_edit (tenant_id, order_id, created_at, id)`,
    `CREATE UNIQUE INDEX order_edits_edit_version ON order_edits_edit (tenant_id, order_id, version) WHERE version IS NOT NULL`,
    tenantTable('order_edits_edit'),
  ],
};
