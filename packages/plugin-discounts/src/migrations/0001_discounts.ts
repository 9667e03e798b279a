import { tenantTable, type Migration } from '@qhatu/core';

/**
 * Coupons, their redemptions and volume discount tiers. The checks repeat the service's rules so
 * that no writer, however it got there, can store a coupon used beyond `max_uses`.
 */
export const discountsMigration: Migration = {
  id: '0001_discounts',
  up: [
    `CREATE TABLE discounts_coupon (
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       id uuid NOT NULL,
       code text NOT NULL CHECK (code = upper(code)),
       type text NOT NULL CHECK (type IN ('percentage', 'fixed_amount')),
       value bigint NOT NULL CHECK (value > 0),
       currency char(3) NOT NULL,
       min_order_amount bigint NOT NULL DEFAULT 0 CHECK (min_order_amount >= 0),
       max_uses int CHECK (max_uses > 0),
       max_uses_per_customer int CHECK (max_uses_per_customer > 0),
       applicable_to text NOT NULL CHECK (applicable_to IN ('all', 'products', 'collections')),
       applicable_ids jsonb NOT NULL DEFAULT '[]',
       starts_at timestamptz,
       expires_at timestamptz,
       is_active boolean NOT NULL DEFAULT true,
       uses_count int NOT NULL DEFAULT 0 CHECK (uses_count >= 0),
       deleted_at timestamptz,
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id),
       CHECK (type <> 'percentage' OR value <= 10000),
       CHECK (starts_at IS NULL OR expires_at IS NULL OR starts_at < expires_at),
       CHECK (max_uses IS NULL OR uses_count <= max_uses))`,
    // A code is unique among the coupons that are not deleted; a deleted coupon's code can be reused.
    `CREATE UNIQUE INDEX discounts_coupon_code ON discounts_coupon (tenant_id, code) WHERE deleted_at IS NULL`,
    `CREATE INDEX discounts_coupon_created ON discounts_coupon (tenant_id, created_at, id) WHERE deleted_at IS NULL`,
    `CREATE INDEX discounts_coupon_code_order ON discounts_coupon (tenant_id, code, id) WHERE deleted_at IS NULL`,
    tenantTable('discounts_coupon'),
    `CREATE TABLE discounts_redemption (
       tenant_id uuid NOT NULL,
       id uuid NOT NULL,
       coupon_id uuid NOT NULL,
       customer_id uuid,
       customer_email text CHECK (customer_email = lower(customer_email)),
       order_id uuid,
       amount bigint NOT NULL CHECK (amount >= 0),
       currency char(3) NOT NULL,
       created_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id),
       FOREIGN KEY (tenant_id, coupon_id) REFERENCES discounts_coupon (tenant_id, id) ON DELETE CASCADE)`,
    // An order uses a coupon once.
    `CREATE UNIQUE INDEX discounts_redemption_order ON discounts_redemption (tenant_id, coupon_id, order_id) WHERE order_id IS NOT NULL`,
    `CREATE INDEX discounts_redemption_customer ON discounts_redemption (tenant_id, coupon_id, customer_id) WHERE customer_id IS NOT NULL`,
    `CREATE INDEX discounts_redemption_email ON discounts_redemption (tenant_id, coupon_id, customer_email) WHERE customer_email IS NOT NULL`,
    `CREATE INDEX discounts_redemption_created ON discounts_redemption (tenant_id, coupon_id, created_at, id)`,
    tenantTable('discounts_redemption'),
    `CREATE TABLE discounts_volume_discount (
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       id uuid NOT NULL,
       product_id uuid NOT NULL,
       min_quantity int NOT NULL CHECK (min_quantity >= 1),
       type text NOT NULL CHECK (type IN ('percentage')),
       value int NOT NULL CHECK (value BETWEEN 1 AND 10000),
       currency char(3) NOT NULL,
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id))`,
    `CREATE UNIQUE INDEX discounts_volume_discount_tier ON discounts_volume_discount (tenant_id, product_id, min_quantity)`,
    `CREATE INDEX discounts_volume_discount_created ON discounts_volume_discount (tenant_id, created_at, id)`,
    tenantTable('discounts_volume_discount'),
  ],
};
