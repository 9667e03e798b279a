import { Database, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { CrmSettings, DEFAULT_SQL_THRESHOLD } from '../entities/settings.js';

export interface SettingsView {
  sqlThreshold: number;
  updatedAt: Date | null;
}

/** A store's CRM settings: the score at or above which qualify makes a lead `sql`. */
@injectable()
export class CrmSettingsService {
  constructor(@inject(Database) private readonly db: Database) {}

  /** Inside an open transaction of the store, reads in it. */
  async read(): Promise<SettingsView> {
    return this.db.tenant(async ({ em, tenantId }: Tx) => {
      const row = await em.findOne(CrmSettings, { tenantId });
      return { sqlThreshold: row?.sqlThreshold ?? DEFAULT_SQL_THRESHOLD, updatedAt: row?.updatedAt ?? null };
    });
  }

  async update(input: { sql_threshold: number }): Promise<SettingsView> {
    return this.db.tenant(async (tx) => {
      await tx.em.upsert(CrmSettings, { tenantId: tx.tenantId, sqlThreshold: input.sql_threshold, updatedAt: tx.now() });
      tx.publish('crm.settings.updated', { sql_threshold: input.sql_threshold });
      return { sqlThreshold: input.sql_threshold, updatedAt: tx.now() };
    });
  }
}
