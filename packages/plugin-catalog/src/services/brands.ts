import { randomUUID } from 'node:crypto';
import { LockMode, raw, type FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, Database, keyset, paginate, searchWhere, type Page, type PageRequest, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { Brand } from '../entities/brand.js';
import type { BrandCreate } from '../schemas/brand.js';
import { CatalogMedia, type MediaUser } from './media.js';
import { resolveSlug, retryTaken } from './references.js';
import { translatedSortPage } from './translated-sort.js';

export const BRAND_EVENTS = ['products.brand.created', 'products.brand.updated', 'products.brand.deleted'] as const;

export interface BrandView {
  brand: Brand;
  /** Products of the brand, whatever their status; counted when read. */
  productCount: number;
}

/** Brands: the only place that writes them. */
@injectable()
export class Brands implements MediaUser {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(CatalogMedia) private readonly media: CatalogMedia,
  ) {}

  async create(input: BrandCreate): Promise<BrandView> {
    return retryTaken('catalog_brand_slug', { name: 'slug', requested: input.slug }, () =>
      this.db.tenant(async (tx) => {
        const { em } = tx;
        const slug = await resolveSlug(em, Brand, input.slug, input.name);
        const at = tx.now();
        const brand = em.create(Brand, {
          id: randomUUID(),
          tenantId: tx.tenantId,
          name: input.name,
          slug,
          description: input.description ?? null,
          color: input.color ?? null,
          logoMediaId: input.logo_media_id ?? null,
          logoUrl: await this.media.urlOf(tx, input.logo_media_id, 'body.logo_media_id'),
          websiteUrl: input.website_url ?? null,
          createdAt: at,
          updatedAt: at,
        });
        tx.publish('products.brand.created', brandEvent(brand));
        await em.flush();
        return { brand, productCount: 0 };
      }),
    );
  }

  async get(id: string): Promise<BrandView> {
    return this.db.tenant(async ({ em, tenantId }) => {
      const brand = await em.findOne(Brand, { id });
      if (!brand) throw AppError.notFound('Brand', 'BRAND_NOT_FOUND');
      return { brand, productCount: (await productCounts(em, tenantId, [id])).get(id) ?? 0 };
    });
  }

  /**
   * `locale`: another than the store's default, where `q` also finds a brand by its name there
   * (whole words, stemmed in its language) and a `name` sort is by the names read there.
   */
  async list(page: PageRequest, filter: { q?: string; locale?: string }): Promise<{ items: BrandView[]; page: Page<Brand> }> {
    return this.db.tenant(async ({ em, tenantId }) => {
      const { q, locale } = filter;
      const translatedName = (words: string, at: string) => ({ [raw((alias: string) => `${alias}.id in (select catalog_translation_matches('brand', ?, ?))`, [at, words])]: [] });
      const where: FilterQuery<Brand> = q ? (locale ? { $or: [searchWhere('catalog_brand', q), translatedName(q, locale)] } : searchWhere('catalog_brand', q)) : {};
      const result = locale && page.sort.replace(/^-/, '') === 'name' ? await byTranslatedName(em, tenantId, page, locale, q) : await paginate(em, Brand, where, page);
      const counts = await productCounts(em, tenantId, result.items.map((b) => b.id));
      return { items: result.items.map((brand) => ({ brand, productCount: counts.get(brand.id) ?? 0 })), page: result };
    });
  }

  /** PUT: every field as sent, null for the absent ones; an absent slug is kept. */
  async replace(id: string, input: BrandCreate): Promise<BrandView> {
    return retryTaken('catalog_brand_slug', { name: 'slug', requested: input.slug }, () =>
      this.db.tenant(async (tx) => {
        const { em } = tx;
        const brand = await em.findOne(Brand, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
        if (!brand) throw AppError.notFound('Brand', 'BRAND_NOT_FOUND');
        brand.slug = await resolveSlug(em, Brand, input.slug, input.name, brand);
        const mediaId = input.logo_media_id ?? null;
        if (mediaId !== brand.logoMediaId) {
          brand.logoUrl = await this.media.urlOf(tx, mediaId, 'body.logo_media_id');
          brand.logoMediaId = mediaId;
        }
        brand.name = input.name;
        brand.description = input.description ?? null;
        brand.color = input.color ?? null;
        brand.websiteUrl = input.website_url ?? null;
        brand.updatedAt = tx.now();
        tx.publish('products.brand.updated', brandEvent(brand));
        await em.flush();
        return { brand, productCount: (await productCounts(em, tx.tenantId, [id])).get(id) ?? 0 };
      }),
    );
  }

  /** Its products stay, without a brand (the foreign key sets their brand_id to null). */
  async remove(id: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      const brand = await tx.em.findOne(Brand, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!brand) throw AppError.notFound('Brand', 'BRAND_NOT_FOUND');
      tx.em.remove(brand);
      tx.publish('products.brand.deleted', { id, deleted_at: tx.now().toISOString() });
      await tx.em.flush();
    });
  }

  async detachMedia(tx: Tx, mediaId: string): Promise<void> {
    const brands = await tx.em.find(Brand, { logoMediaId: mediaId });
    for (const brand of brands) {
      brand.logoMediaId = null;
      brand.logoUrl = null;
      brand.updatedAt = tx.now();
      tx.publish('products.brand.updated', brandEvent(brand));
    }
    if (brands.length > 0) await tx.em.flush();
  }
}

const COLUMNS = 'id, tenant_id, name, slug, description, color, logo_media_id, logo_url, website_url, created_at, updated_at';

/** A page of brands in the order of their names read in `locale` (decision 0096), paged by them. */
async function byTranslatedName(em: EntityManager, tenantId: string, page: PageRequest, locale: string, q: string | undefined): Promise<Page<Brand>> {
  const resume = keyset(page, { name: { sql: 'name', type: 'text' } });
  const conditions = () => [
    { sql: 'tenant_id = ?', params: [tenantId] },
    ...(q ? [{ sql: `id in (select catalog_brand_matches(?)) or id in (select catalog_translation_matches('brand', ?, ?))`, params: [q, locale, q] }] : []),
  ];
  const statement = translatedSortPage({ table: 'catalog_brand', resource: 'brand', own: 'name', locale, columns: COLUMNS, conditions, tenantId, page, cursor: resume.params });
  const rows = await em.execute<Array<Record<string, unknown> & { id: string; sort_key: string }>>(statement.sql, statement.params);
  const keys = new Map(rows.map((r) => [r.id, r.sort_key]));
  return resume.finish(rows.map(({ sort_key: _, ...row }) => em.map(Brand, row)), (b) => keys.get(b.id));
}

/** Products per brand for a page of brands, in one statement. */
async function productCounts(em: EntityManager, tenantId: string, brandIds: string[]): Promise<Map<string, number>> {
  if (brandIds.length === 0) return new Map();
  const rows = await em.execute<Array<{ brand_id: string; n: number }>>(
    `select brand_id, count(*)::int as n from catalog_product where tenant_id = ? and brand_id in (?) group by brand_id`,
    [tenantId, brandIds],
  );
  return new Map(rows.map((r) => [r.brand_id, r.n]));
}

function brandEvent(b: Brand) {
  return { id: b.id, name: b.name, slug: b.slug, updated_at: b.updatedAt.toISOString() };
}
