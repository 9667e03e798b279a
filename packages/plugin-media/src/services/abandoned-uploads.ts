import { CLOCK, Database, TenantContext, type Clock } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { MediaFiles } from './media-files.js';

export const ABANDONED_UPLOADS_JOB = 'media.abandoned-uploads';

/** A pending file this old was never confirmed: its signed address expired long ago. */
export const ABANDONED_AFTER_MS = 24 * 3_600_000;
const BATCH = 500;

/**
 * Uploads started and never confirmed: the record and any bytes that did arrive are deleted (as a
 * delete by the admin would, with `media.file.deleted`), every store in one run, oldest first.
 */
@injectable()
export class AbandonedUploads {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(MediaFiles) private readonly files: MediaFiles,
    @inject(CLOCK) private readonly clock: Clock,
  ) {}

  async sweep(log?: (error: unknown, row: { tenant_id: string; id: string }) => void): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - ABANDONED_AFTER_MS);
    const rows = await this.db.query<{ tenant_id: string; id: string }>(
      `SELECT tenant_id, id FROM media_file WHERE status = 'pending' AND created_at < ? ORDER BY created_at LIMIT ${BATCH}`,
      [cutoff],
    );
    let removed = 0;
    for (const row of rows) {
      try {
        if (await TenantContext.run({ tenantId: row.tenant_id }, () => this.files.removeAbandoned(row.id, cutoff))) removed += 1;
      } catch (error) {
        log?.(error, row);
      }
    }
    return removed;
  }
}
