import { tenantTable, type Migration } from '@qhatu/core';

export const mediaFilesMigration: Migration = {
  id: '0001_media_files',
  up: [
    `CREATE TABLE media_file (
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       id uuid NOT NULL,
       original_name text NOT NULL CHECK (length(original_name) BETWEEN 1 AND 255),
       storage_key text NOT NULL,
       content_type text NOT NULL,
       size_bytes bigint NOT NULL CHECK (size_bytes > 0),
       status text NOT NULL CHECK (status IN ('pending', 'uploaded', 'failed')),
       alt_text text NOT NULL DEFAULT '',
       variants jsonb NOT NULL DEFAULT '[]',
       public_url text NOT NULL,
       failure_reason text,
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id))`,
    `CREATE UNIQUE INDEX media_file_storage_key ON media_file (tenant_id, storage_key)`,
    `CREATE INDEX media_file_created ON media_file (tenant_id, created_at, id)`,
    `CREATE INDEX media_file_updated ON media_file (tenant_id, updated_at, id)`,
    `CREATE INDEX media_file_status ON media_file (tenant_id, status, created_at, id)`,
    `CREATE INDEX media_file_content_type ON media_file (tenant_id, content_type, created_at, id)`,
    tenantTable('media_file'),
  ],
};
