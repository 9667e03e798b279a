import { tenantTable, type Migration } from '@qhatu/core';

/** Brands and suppliers; a product's brand_id and supplier_id now reference them. */
export const brandsSuppliersMigration: Migration = {
  id: '0002_brands_suppliers',
  up: [
    `CREATE TABLE catalog_brand (
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       id uuid NOT NULL,
       name text NOT NULL,
       slug text NOT NULL,
       description text,
       color text CHECK (color ~ '^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$'),
       logo_media_id uuid,
       logo_url text,
       website_url text,
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id))`,
    `CREATE UNIQUE INDEX catalog_brand_slug ON catalog_brand (tenant_id, slug)`,
    `CREATE INDEX catalog_brand_name ON catalog_brand (tenant_id, name, id)`,
    `CREATE INDEX catalog_brand_created ON catalog_brand (tenant_id, created_at, id)`,
    `CREATE INDEX catalog_brand_logo ON catalog_brand (tenant_id, logo_media_id) WHERE logo_media_id IS NOT NULL`,
    tenantTable('catalog_brand'),
    `CREATE TABLE catalog_supplier (
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       id uuid NOT NULL,
       name text NOT NULL,
       code text,
       email text,
       phone text,
       address jsonb,
       metadata jsonb NOT NULL DEFAULT '{}',
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id))`,
    `CREATE UNIQUE INDEX catalog_supplier_code ON catalog_supplier (tenant_id, code) WHERE code IS NOT NULL`,
    `CREATE INDEX catalog_supplier_created ON catalog_supplier (tenant_id, created_at, id)`,
    `CREATE INDEX catalog_supplier_name ON catalog_supplier (tenant_id, name, id)`,
    tenantTable('catalog_supplier'),
    // Until now nothing could be referenced: ids stored before this migration point nowhere.
    `UPDATE catalog_product SET brand_id = NULL, supplier_id = NULL WHERE brand_id IS NOT NULL OR supplier_id IS NOT NULL`,
    // Deleting a brand or a supplier keeps its products and clears the reference (PostgreSQL 15+).
    `ALTER TABLE catalog_product
       ADD CONSTRAINT catalog_product_brand_fk FOREIGN KEY (tenant_id, brand_id)
         REFERENCES catalog_brand (tenant_id, id) ON DELETE SET NULL (brand_id),
       ADD CONSTRAINT catalog_product_supplier_fk FOREIGN KEY (tenant_id, supplier_id)
         REFERENCES catalog_supplier (tenant_id, id) ON DELETE SET NULL (supplier_id)`,
    `CREATE INDEX catalog_product_brand ON catalog_product (tenant_id, brand_id) WHERE brand_id IS NOT NULL`,
    `CREATE INDEX catalog_product_supplier ON catalog_product (tenant_id, supplier_id) WHERE supplier_id IS NOT NULL`,
  ],
};
