import type { Migration } from '@qhatu/core';

/** The abandoned-uploads sweep looks for old pending files across stores. */
export const pendingIndexMigration: Migration = {
  id: '0002_media_pending_index',
  up: [`CREATE INDEX media_file_pending ON media_file (created_at) WHERE status = 'pending'`],
};
