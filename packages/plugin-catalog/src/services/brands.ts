import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, Database, paginate, searchWhere, type Page, type PageRequest, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { Brand } from '../entities/brand.js';
import type { BrandCreate } from '../schemas/brand.js';
import { CatalogMedia, type MediaUser } from './media.js';
import { resolveSlug, retryTaken } from './references.js';

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

  async list(page: PageRequest, filter: { q?: string }): Promise<{ items: BrandView[]; page: Page<Brand> }> {
    return this.db.tenant(async ({ em, tenantId }) => {
      const where = filter.q ? searchWhere('catalog_brand', filter.q) : {};
      const result = await paginate(em, Brand, where, page);
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
