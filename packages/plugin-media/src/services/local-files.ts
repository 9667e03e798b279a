import { Database, Uuid } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';

/**
 * What the local adapter's public file route may serve: the original or a recorded variant of a
 * file that is `uploaded`. Bytes of a pending upload (not confirmed yet) or of a failed file are
 * not media of the store, even when they sit on disk.
 */
@injectable()
export class LocalFiles {
  constructor(@inject(Database) private readonly db: Database) {}

  async isPublished(key: string): Promise<boolean> {
    const [tenantId, fileId] = key.split('/');
    if (!Uuid.safeParse(tenantId).success || !Uuid.safeParse(fileId).success) return false;
    // A public GET per image of every page: one indexed read, without the ORM.
    const rows = await this.db.read(
      (sql) =>
        sql.query<{ found: boolean }>(
          `select true as found from media_file
            where tenant_id = ? and id = ? and status = 'uploaded'
              and (storage_key = ? or variants @> jsonb_build_array(jsonb_build_object('storage_key', ?::text)))`,
          [tenantId, fileId, key, key],
        ),
      tenantId,
    );
    return rows.length > 0;
  }
}
