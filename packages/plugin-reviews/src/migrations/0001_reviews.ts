import { tenantTable, type Migration } from '@qhatu/core';

export const reviewsMigration: Migration = {
  id: '0001_reviews',
  up: [
    `CREATE TABLE reviews_review (
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       id uuid NOT NULL,
       product_id uuid NOT NULL,
       customer_id uuid NOT NULL,
       order_id uuid,
       verified_purchase boolean NOT NULL DEFAULT false,
       author_name text NOT NULL DEFAULT '',
       rating smallint NOT NULL CHECK (rating BETWEEN 1 AND 5),
       title text CHECK (char_length(title) <= 200),
       body text CHECK (char_length(body) <= 5000),
       status text NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
       moderated_at timestamptz,
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id),
       -- A deleted product takes its reviews, rating and overrides with it. A customer cannot be
       -- deleted under their reviews: the rating must lose them through Reviews.remove first.
       FOREIGN KEY (tenant_id, product_id) REFERENCES catalog_product (tenant_id, id) ON DELETE CASCADE,
       FOREIGN KEY (tenant_id, customer_id) REFERENCES customers_customer (tenant_id, id))`,
    // One review per customer and product; a lost race for it is the same 409 as the check.
    `CREATE UNIQUE INDEX reviews_review_customer_product ON reviews_review (tenant_id, product_id, customer_id)`,
    // A product's reviews of one status, newest or oldest first (the storefront's list).
    `CREATE INDEX reviews_review_product_status ON reviews_review (tenant_id, product_id, status, created_at, id)`,
    // The moderation queue: every product's reviews of one status.
    `CREATE INDEX reviews_review_status ON reviews_review (tenant_id, status, created_at, id)`,
    `CREATE INDEX reviews_review_created ON reviews_review (tenant_id, created_at, id)`,
    `CREATE INDEX reviews_review_customer ON reviews_review (tenant_id, customer_id, created_at, id)`,
    tenantTable('reviews_review'),

    // The approved reviews of a product, kept by every move in the moving transaction.
    `CREATE TABLE reviews_rating (
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       product_id uuid NOT NULL,
       total_reviews int NOT NULL CHECK (total_reviews >= 0),
       rating_sum bigint NOT NULL CHECK (rating_sum >= 0),
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, product_id),
       FOREIGN KEY (tenant_id, product_id) REFERENCES catalog_product (tenant_id, id) ON DELETE CASCADE)`,
    tenantTable('reviews_rating'),

    // The store's settings; a field without a row has its default.
    `CREATE TABLE reviews_setting (
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       field text NOT NULL,
       value jsonb NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, field))`,
    tenantTable('reviews_setting'),

    // A product's overrides of the store's settings.
    `CREATE TABLE reviews_product_setting (
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       product_id uuid NOT NULL,
       field text NOT NULL,
       value jsonb NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, product_id, field),
       FOREIGN KEY (tenant_id, product_id) REFERENCES catalog_product (tenant_id, id) ON DELETE CASCADE)`,
    tenantTable('reviews_product_setting'),
  ],
};
