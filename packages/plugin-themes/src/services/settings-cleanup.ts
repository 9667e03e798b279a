import { Database, plainText } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import type { ThemeSettings } from '../entities/catalog-theme.js';
import { cleanSettings } from './storefront-settings.js';

/** Where settings and text live, by table: its key, its settings columns, its plain-text columns. */
const TABLES = [
  { table: 'themes_catalog', keys: ['id'], settings: ['baseline'], text: ['display_name', 'description', 'author'] },
  { table: 'themes_installed', keys: ['tenant_id', 'id'], settings: ['draft', 'published'], text: ['display_name'] },
  { table: 'themes_version', keys: ['tenant_id', 'id'], settings: ['snapshot'], text: ['label'] },
] as const;

const BATCH = 100;

type Table = (typeof TABLES)[number];

/**
 * Cleans what was stored before storefront markup was checked (the rows migration 0002 marked):
 * settings as a draft is cleaned now, except that a bad URL becomes "" and a reserved key goes
 * instead of refusing, and text without markup. Runs when the plugin starts, a batch per
 * transaction; processes starting together share the rows (SKIP LOCKED), and a row a store
 * is writing is left for the next start.
 */
@injectable()
export class SettingsCleanup {
  constructor(@inject(Database) private readonly db: Database) {}

  /** How many rows were cleaned. */
  async run(): Promise<number> {
    let cleaned = 0;
    for (const table of TABLES) {
      for (let n = BATCH; n === BATCH; cleaned += n) n = await this.batch(table);
    }
    return cleaned;
  }

  private batch({ table, keys, settings, text }: Table): Promise<number> {
    const columns = [...keys, ...settings, ...text].join(', ');
    const assignments = [...settings.map((c) => `${c} = ?::jsonb`), ...text.map((c) => `${c} = ?`), 'markup_checked = true'].join(', ');
    const where = keys.map((k) => `${k} = ?`).join(' and ');
    return this.db.platform(async ({ em }) => {
      const rows = await em.execute<Array<Record<string, unknown>>>(
        `select ${columns} from ${table} where not markup_checked order by id limit ${BATCH} for update skip locked`,
      );
      for (const row of rows) {
        const values = [
          ...settings.map((c) => JSON.stringify(cleanSettings(row[c] as ThemeSettings, c, () => undefined))),
          ...text.map((c) => plainText(row[c] as string)),
          ...keys.map((k) => row[k]),
        ];
        await em.execute(`update ${table} set ${assignments} where ${where}`, values);
      }
      return rows.length;
    });
  }
}
