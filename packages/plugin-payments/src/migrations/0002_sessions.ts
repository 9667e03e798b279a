import { tenantTable, type Migration } from '@qhatu/core';

export const sessionsMigration: Migration = {
  id: '0002_payment_sessions',
  up: [
    `CREATE TABLE payments_session (
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       id uuid NOT NULL,
       order_id uuid NOT NULL,
       gateway text NOT NULL,
       reference text NOT NULL,
       amount bigint NOT NULL CHECK (amount > 0),
       currency char(3) NOT NULL,
       client jsonb NOT NULL,
       data jsonb NOT NULL DEFAULT '{}',
       return_url text,
       payment_id uuid,
       expires_at timestamptz,
       created_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id),
       FOREIGN KEY (tenant_id, order_id) REFERENCES orders_order (tenant_id, id) ON DELETE CASCADE)`,
    // A payment names its session by the provider's reference.
    `CREATE UNIQUE INDEX payments_session_reference ON payments_session (tenant_id, gateway, reference)`,
    tenantTable('payments_session'),
    `ALTER TABLE payments_payment ADD COLUMN session_id uuid`,
    // A session pays once.
    `CREATE UNIQUE INDEX payments_payment_session ON payments_payment (tenant_id, session_id) WHERE session_id IS NOT NULL`,
    // The sweep's scan: payments and refunds still open.
    `CREATE INDEX payments_payment_open ON payments_payment (updated_at) WHERE status IN ('pending', 'processing')`,
    `CREATE INDEX payments_refund_open ON payments_refund (updated_at) WHERE status IN ('pending', 'processing')`,
  ],
};
