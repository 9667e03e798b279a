import { tenantTable, type Migration } from '@qhatu/core';

/** Digital downloads and metafields of products; a variant's own rows go with the variant. */
export const downloadsMetafieldsMigration: Migration = {
  id: '0004_downloads_metafields',
  up: [
    // Lets a row name a variant *of its own product* with one foreign key.
    `ALTER TABLE catalog_variant ADD CONSTRAINT catalog_variant_of_product UNIQUE (tenant_id, product_id, id)`,
    `CREATE TABLE catalog_product_download (
       tenant_id uuid NOT NULL,
       id uuid NOT NULL,
       product_id uuid NOT NULL,
       variant_id uuid,
       file_name text NOT NULL,
       file_url text NOT NULL,
       file_size_bytes bigint CHECK (file_size_bytes >= 0),
       download_limit int CHECK (download_limit > 0),
       download_expiry_days int CHECK (download_expiry_days > 0),
       position int NOT NULL CHECK (position >= 0),
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id),
       FOREIGN KEY (tenant_id, product_id) REFERENCES catalog_product (tenant_id, id) ON DELETE CASCADE,
       FOREIGN KEY (tenant_id, product_id, variant_id) REFERENCES catalog_variant (tenant_id, product_id, id) ON DELETE CASCADE)`,
    `CREATE INDEX catalog_product_download_product ON catalog_product_download (tenant_id, product_id, position, created_at)`,
    `CREATE INDEX catalog_product_download_variant ON catalog_product_download (tenant_id, product_id, variant_id) WHERE variant_id IS NOT NULL`,
    tenantTable('catalog_product_download'),
    `CREATE TABLE catalog_product_metafield (
       tenant_id uuid NOT NULL,
       id uuid NOT NULL,
       product_id uuid NOT NULL,
       variant_id uuid,
       namespace text NOT NULL,
       key text NOT NULL,
       value text NOT NULL,
       value_type text NOT NULL CHECK (value_type IN (
         'string', 'integer', 'decimal', 'boolean', 'json', 'date', 'datetime', 'url', 'color', 'reference')),
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id),
       FOREIGN KEY (tenant_id, product_id) REFERENCES catalog_product (tenant_id, id) ON DELETE CASCADE,
       FOREIGN KEY (tenant_id, product_id, variant_id) REFERENCES catalog_variant (tenant_id, product_id, id) ON DELETE CASCADE)`,
    // One namespace+key per product, and per variant of it (NULLS NOT DISTINCT: PostgreSQL 15+).
    `CREATE UNIQUE INDEX catalog_product_metafield_key
       ON catalog_product_metafield (tenant_id, product_id, variant_id, namespace, key) NULLS NOT DISTINCT`,
    tenantTable('catalog_product_metafield'),
  ],
};
