import { tenantTable, type Migration } from '@qhatu/core';

/**
 * A store's tax settings (one row, absent until first changed), its tax regions (a country, or a
 * province of it) with a rate per tax class, and the classes named for products and variants.
 */
export const taxesMigration: Migration = {
  id: '0001_taxes',
  up: [
    `CREATE TABLE taxes_setting (
       tenant_id uuid PRIMARY KEY,
       prices_include_tax boolean,
       tax_shipping boolean NOT NULL DEFAULT true,
       shipping_tax_class text NOT NULL DEFAULT 'standard',
       origin_country char(2),
       origin_province text,
       updated_at timestamptz NOT NULL)`,
    tenantTable('taxes_setting'),
    `CREATE TABLE taxes_region (
       tenant_id uuid NOT NULL,
       id uuid NOT NULL,
       name text NOT NULL,
       country_code char(2) NOT NULL,
       province text,
       rates jsonb NOT NULL DEFAULT '{}',
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id))`,
    tenantTable('taxes_region'),
    // One region per country and province; also what a checkout's lookup reads.
    `CREATE UNIQUE INDEX taxes_region_place ON taxes_region (tenant_id, country_code, (coalesce(province, '')))`,
    `CREATE INDEX taxes_region_created ON taxes_region (tenant_id, created_at, id)`,
    `CREATE TABLE taxes_assignment (
       tenant_id uuid NOT NULL,
       id uuid NOT NULL,
       target_type text NOT NULL CHECK (target_type IN ('product', 'variant')),
       tax_class text NOT NULL,
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id))`,
    tenantTable('taxes_assignment'),
    `CREATE INDEX taxes_assignment_created ON taxes_assignment (tenant_id, created_at, id)`,
    `CREATE INDEX taxes_assignment_class ON taxes_assignment (tenant_id, tax_class, created_at, id)`,
  ],
};
