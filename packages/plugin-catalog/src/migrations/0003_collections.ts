import { tenantTable, type Migration } from '@qhatu/core';

/**
 * Collections and their products. `product_count` is a stored counter kept by the service in the
 * transaction that adds or removes a product, so a page sorted by it is one indexed statement.
 */
export const collectionsMigration: Migration = {
  id: '0003_collections',
  up: [
    `CREATE TABLE catalog_collection (
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       id uuid NOT NULL,
       title text NOT NULL,
       slug text NOT NULL,
       description text,
       status text NOT NULL CHECK (status IN ('active', 'draft')),
       sort_order text NOT NULL CHECK (sort_order IN ('manual', '-created_at')),
       seo_title text,
       seo_description text,
       image_media_id uuid,
       image_url text,
       position int NOT NULL DEFAULT 0 CHECK (position >= 0),
       product_count int NOT NULL DEFAULT 0 CHECK (product_count >= 0),
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id))`,
    `CREATE UNIQUE INDEX catalog_collection_slug ON catalog_collection (tenant_id, slug)`,
    `CREATE INDEX catalog_collection_created ON catalog_collection (tenant_id, created_at, id)`,
    `CREATE INDEX catalog_collection_title ON catalog_collection (tenant_id, title, id)`,
    `CREATE INDEX catalog_collection_position ON catalog_collection (tenant_id, position, id)`,
    `CREATE INDEX catalog_collection_product_count ON catalog_collection (tenant_id, product_count, id)`,
    `CREATE INDEX catalog_collection_image ON catalog_collection (tenant_id, image_media_id) WHERE image_media_id IS NOT NULL`,
    tenantTable('catalog_collection'),
    // product_created_at copies the product's (immutable) creation time so that `-created_at`
    // collections page on an index of their own.
    `CREATE TABLE catalog_collection_product (
       tenant_id uuid NOT NULL,
       id uuid NOT NULL,
       collection_id uuid NOT NULL,
       product_id uuid NOT NULL,
       position int NOT NULL CHECK (position >= 0),
       product_created_at timestamptz NOT NULL,
       created_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id),
       FOREIGN KEY (tenant_id, collection_id) REFERENCES catalog_collection (tenant_id, id) ON DELETE CASCADE,
       FOREIGN KEY (tenant_id, product_id) REFERENCES catalog_product (tenant_id, id) ON DELETE CASCADE)`,
    `CREATE UNIQUE INDEX catalog_collection_product_pair ON catalog_collection_product (tenant_id, collection_id, product_id)`,
    `CREATE INDEX catalog_collection_product_manual ON catalog_collection_product (tenant_id, collection_id, position, created_at, id)`,
    `CREATE INDEX catalog_collection_product_newest ON catalog_collection_product (tenant_id, collection_id, product_created_at, product_id)`,
    `CREATE INDEX catalog_collection_product_product ON catalog_collection_product (tenant_id, product_id)`,
    tenantTable('catalog_collection_product'),
  ],
};
