import { randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { AppError, Database, keyset, pgDate, plainText, type KeysetColumn, type Page, type PageRequest, type SqlReader } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { CatalogTheme, type ThemeSettings } from '../entities/catalog-theme.js';
import type { CatalogThemeInput } from '../schemas/theme-store.js';
import { storefrontSettings } from './storefront-settings.js';

/** A theme the platform ships with a fixed id, so that seeding it again changes nothing. */
export interface CatalogThemeSeed extends Omit<CatalogThemeInput, 'is_free' | 'description' | 'tags' | 'currency'> {
  id: string;
  description?: string;
  tags?: string[];
  currency?: string;
}

export const EMPTY_SETTINGS: ThemeSettings = { section_order: [], sections: {} };

const COLUMNS = `id, name, display_name, description, preview_url, thumbnail_url, price, currency, author, tags, created_at, updated_at`;

const SORTS: Record<string, KeysetColumn> = {
  created_at: { sql: 'created_at', type: 'timestamptz' },
  display_name: { sql: 'display_name', type: 'text' },
  price: { sql: 'price', type: 'int' },
};

export type CatalogThemeView = Omit<CatalogTheme, 'baseline'>;

function toTheme(r: Record<string, unknown>): CatalogThemeView {
  return {
    id: r.id as string,
    name: r.name as string,
    displayName: r.display_name as string,
    description: r.description as string,
    previewUrl: (r.preview_url as string | null) ?? null,
    thumbnailUrl: (r.thumbnail_url as string | null) ?? null,
    price: Number(r.price),
    currency: r.currency as string,
    author: r.author as string,
    tags: r.tags as string[],
    createdAt: pgDate(r.created_at),
    updatedAt: pgDate(r.updated_at),
  };
}

export const themeNotFound = () => AppError.notFound('Theme', 'THEME_NOT_FOUND');

/** Reads a catalog theme inside a store's read or transaction; the catalog has no tenant. */
export async function readCatalogTheme(sql: SqlReader, id: string): Promise<CatalogThemeView> {
  const [row] = await sql.query(`select ${COLUMNS} from themes_catalog where id = ?`, [id]);
  if (!row) throw themeNotFound();
  return toTheme(row);
}

/** The platform's theme store: the operator adds themes, every store reads them. */
@injectable()
export class ThemeCatalog {
  constructor(@inject(Database) private readonly db: Database) {}

  async create(input: CatalogThemeInput): Promise<CatalogThemeView> {
    const baseline = input.settings ? storefrontSettings(input.settings, 'body.settings') : EMPTY_SETTINGS;
    try {
      return await this.db.platform(async ({ em, now }) => {
        const at = now();
        const theme = em.create(CatalogTheme, {
          id: randomUUID(),
          name: input.name,
          displayName: input.display_name,
          description: input.description,
          previewUrl: input.preview_url ?? null,
          thumbnailUrl: input.thumbnail_url ?? null,
          price: input.price,
          currency: input.currency,
          author: input.author,
          tags: input.tags,
          baseline,
          createdAt: at,
          updatedAt: at,
        });
        await em.flush();
        return theme;
      });
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) {
        throw AppError.conflict(`A theme named "${input.name}" is already in the catalog`, 'THEME_NAME_TAKEN', [{ path: 'body.name', message: 'is taken' }]);
      }
      throw error;
    }
  }

  /**
   * Adds the themes that are not in the catalog yet (by id or name); ones already there are left
   * as they are. Seeds are cleaned as the platform's own additions are: text without markup, and
   * settings a storefront may render.
   */
  async seed(themes: readonly CatalogThemeSeed[]): Promise<void> {
    if (themes.length === 0) return;
    await this.db.platform(async ({ em, now }) => {
      for (const t of themes) {
        await em.execute(
          `insert into themes_catalog (id, name, display_name, description, preview_url, thumbnail_url, price, currency, author, tags, baseline, created_at, updated_at)
           values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?, ?) on conflict do nothing`,
          [t.id, t.name, plainText(t.display_name), plainText(t.description ?? ''), t.preview_url ?? null, t.thumbnail_url ?? null, t.price, t.currency ?? 'USD',
            plainText(t.author), JSON.stringify((t.tags ?? []).map(plainText)), JSON.stringify(storefrontSettings(t.settings ?? EMPTY_SETTINGS, `seed ${t.name}`)), now(), now()],
        );
      }
    });
  }

  async list(page: PageRequest, filter: { is_free?: boolean; tag?: string }): Promise<Page<CatalogThemeView>> {
    return this.db.read(async (sql) => {
      const conditions: string[] = [];
      const params: unknown[] = [];
      if (filter.is_free !== undefined) conditions.push(filter.is_free ? '(price = 0)' : 'not (price = 0)');
      if (filter.tag) {
        conditions.push('tags @> ?::jsonb');
        params.push(JSON.stringify([filter.tag]));
      }
      const resume = keyset(page, SORTS);
      if (resume.where) {
        conditions.push(resume.where);
        params.push(...resume.params);
      }
      const where = conditions.length ? `where ${conditions.join(' and ')}` : '';
      const rows = await sql.query(`select ${COLUMNS} from themes_catalog ${where} ${resume.tail}`, params);
      const field = page.sort.replace(/^-/, '');
      return resume.finish(rows.map(toTheme), (t) => (field === 'display_name' ? t.displayName : field === 'price' ? t.price : t.createdAt.toISOString()));
    });
  }

  async get(id: string): Promise<CatalogThemeView> {
    return this.db.read((sql) => readCatalogTheme(sql, id));
  }
}
