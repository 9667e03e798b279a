import { searchIndex, tenantTable, type Migration } from '@qhatu/core';

/**
 * Drafts with their lines (JSON: they are only ever read with their draft), numbered per store from
 * a counter row; an index behind each filter and sort of the list (status, customer, created range,
 * number), the order a draft placed, and the search of its e-mail.
 */
export const draftOrdersMigration: Migration = {
  id: '0001_draft_orders',
  up: [
    `CREATE TABLE draft_orders_counter (
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       last_number int NOT NULL,
       PRIMARY KEY (tenant_id))`,
    tenantTable('draft_orders_counter'),
    `CREATE TABLE draft_orders_draft (
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       id uuid NOT NULL,
       number int NOT NULL,
       status text NOT NULL CHECK (status IN ('open', 'invoice_sent', 'completed', 'cancelled')),
       customer_id uuid,
       email text,
       currency char(3) NOT NULL,
       lines jsonb NOT NULL DEFAULT '[]',
       shipping_address jsonb,
       shipping jsonb,
       discount jsonb,
       note text,
       subtotal bigint NOT NULL DEFAULT 0 CHECK (subtotal >= 0),
       discount_total bigint NOT NULL DEFAULT 0 CHECK (discount_total >= 0),
       shipping_total bigint NOT NULL DEFAULT 0 CHECK (shipping_total >= 0),
       tax_total bigint NOT NULL DEFAULT 0 CHECK (tax_total >= 0),
       shipping_tax bigint NOT NULL DEFAULT 0 CHECK (shipping_tax >= 0),
       prices_include_tax boolean NOT NULL DEFAULT false,
       total bigint NOT NULL DEFAULT 0 CHECK (total >= 0),
       order_id uuid,
       invoice_url text,
       invoice_sent_at timestamptz,
       completed_at timestamptz,
       cancelled_at timestamptz,
       cancel_reason text,
       created_by uuid,
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id))`,
    `CREATE UNIQUE INDEX draft_orders_draft_number ON draft_orders_draft (tenant_id, number)`,
    `CREATE INDEX draft_orders_draft_created ON draft_orders_draft (tenant_id, created_at, id)`,
    `CREATE INDEX draft_orders_draft_status ON draft_orders_draft (tenant_id, status, created_at, id)`,
    `CREATE INDEX draft_orders_draft_customer ON draft_orders_draft (tenant_id, customer_id, created_at, id) WHERE customer_id IS NOT NULL`,
    `CREATE UNIQUE INDEX draft_orders_draft_order ON draft_orders_draft (tenant_id, order_id) WHERE order_id IS NOT NULL`,
    tenantTable('draft_orders_draft'),
    ...searchIndex({ table: 'draft_orders_draft', columns: ['email'] }),
    `CREATE TABLE draft_orders_settings (
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       invoice_url text,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id))`,
    tenantTable('draft_orders_settings'),
  ],
};
