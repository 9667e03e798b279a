import { Database, pgDate } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import type { ThemeSettings } from '../entities/catalog-theme.js';
import { noActiveTheme } from './theme-editor.js';

export interface LiveTheme {
  id: string;
  themeCatalogId: string;
  themeName: string;
  displayName: string;
  settings: ThemeSettings;
  publishedAt: Date | null;
}

/**
 * What the storefront renders: the active theme and its published settings, never the draft.
 * Asked on every page a storefront builds, so it is one statement without the ORM.
 */
@injectable()
export class LiveThemes {
  constructor(@inject(Database) private readonly db: Database) {}

  async current(): Promise<LiveTheme> {
    const [row] = await this.db.read((sql) =>
      sql.query<{ id: string; theme_catalog_id: string; theme_name: string; display_name: string; published: ThemeSettings; published_at: unknown }>(
        `select id, theme_catalog_id, theme_name, display_name, published, published_at from themes_installed where tenant_id = ? and is_active`,
        [sql.tenantId],
      ),
    );
    if (!row) throw noActiveTheme();
    return {
      id: row.id,
      themeCatalogId: row.theme_catalog_id,
      themeName: row.theme_name,
      displayName: row.display_name,
      settings: row.published,
      publishedAt: row.published_at ? pgDate(row.published_at) : null,
    };
  }
}
