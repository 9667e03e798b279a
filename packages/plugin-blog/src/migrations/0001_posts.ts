import { tenantTable, type Migration } from '@qhatu/core';

/** Blog posts: one slug per store, lists by status in three orders, word search over titles. */
export const postsMigration: Migration = {
  id: '0001_blog_posts',
  up: [
    `CREATE TABLE blog_post (
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       id uuid NOT NULL,
       title text NOT NULL CHECK (length(title) BETWEEN 1 AND 255),
       slug text NOT NULL CHECK (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$'),
       content text NOT NULL DEFAULT '',
       excerpt text,
       author text,
       featured_image text,
       tags jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(tags) = 'array'),
       status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published', 'archived')),
       published_at timestamptz,
       archived_at timestamptz,
       search_words text NOT NULL DEFAULT '',
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id),
       CHECK (status <> 'published' OR published_at IS NOT NULL))`,
    `CREATE UNIQUE INDEX blog_post_slug ON blog_post (tenant_id, slug)`,
    // Every sort the list offers, alone and behind the status filter (the storefront's is always 'published').
    `CREATE INDEX blog_post_published ON blog_post (tenant_id, (coalesce(published_at, created_at)), id)`,
    `CREATE INDEX blog_post_status_published ON blog_post (tenant_id, status, (coalesce(published_at, created_at)), id)`,
    `CREATE INDEX blog_post_created ON blog_post (tenant_id, created_at, id)`,
    `CREATE INDEX blog_post_status_created ON blog_post (tenant_id, status, created_at, id)`,
    `CREATE INDEX blog_post_title ON blog_post (tenant_id, title, id)`,
    `CREATE INDEX blog_post_status_title ON blog_post (tenant_id, status, title, id)`,
    // A GIN index cannot lead with a uuid without an extension; the query still filters on tenant_id.
    `CREATE INDEX blog_post_search ON blog_post USING gin (to_tsvector('simple', search_words))`,
    tenantTable('blog_post'),
  ],
};
