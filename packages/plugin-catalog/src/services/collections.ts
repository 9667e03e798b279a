import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, Database, keyset, paginate, type Page, type PageRequest, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { Collection, type CollectionStatus } from '../entities/collection.js';
import type { CollectionCreate, CollectionReplace } from '../schemas/collection.js';
import { CatalogMedia, type MediaUser } from './media.js';
import { resolveSlug, retryTaken } from './references.js';
import { translatedSortPage } from './translated-sort.js';

export const COLLECTION_EVENTS = [
  'products.collection.created',
  'products.collection.updated',
  'products.collection.deleted',
  'products.collection.product_added',
  'products.collection.product_removed',
] as const;

export interface CollectionFilter {
  status?: CollectionStatus;
  /** Storefront callers see active collections only. */
  activeOnly?: boolean;
  /** A locale other than the store's default: a `title` sort is by the titles read in it. */
  locale?: string;
}

const COLUMNS = 'id, tenant_id, title, slug, description, status, sort_order, seo_title, seo_description, image_media_id, image_url, position, product_count, created_at, updated_at';

/** Collections themselves; their products are `CollectionProducts`. The only writer of both. */
@injectable()
export class Collections implements MediaUser {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(CatalogMedia) private readonly media: CatalogMedia,
  ) {}

  async create(input: CollectionCreate): Promise<Collection> {
    return retryTaken('catalog_collection_slug', { name: 'slug', requested: input.slug }, () =>
      this.db.tenant(async (tx) => {
        const { em } = tx;
        const slug = await resolveSlug(em, Collection, input.slug, input.title);
        const imageUrl = await this.media.urlOf(tx, input.image_media_id, 'body.image_media_id');
        // New collections go last when sorted by position.
        const last = await em.findOne(Collection, {}, { orderBy: { position: 'desc' }, fields: ['position'] });
        const at = tx.now();
        const collection = em.create(Collection, {
          id: randomUUID(),
          tenantId: tx.tenantId,
          title: input.title,
          slug,
          description: input.description ?? null,
          status: input.status ?? 'active',
          sortOrder: input.sort_order ?? 'manual',
          seoTitle: input.seo_title ?? null,
          seoDescription: input.seo_description ?? null,
          imageMediaId: input.image_media_id ?? null,
          imageUrl,
          position: last ? last.position + 1 : 0,
          productCount: 0,
          createdAt: at,
          updatedAt: at,
        });
        tx.publish('products.collection.created', collectionEvent(collection));
        await em.flush();
        return collection;
      }),
    );
  }

  async get(id: string, filter: Pick<CollectionFilter, 'activeOnly'> = {}): Promise<Collection> {
    return this.db.tenant(({ em }) => findCollection(em, id, filter));
  }

  /** The collection a storefront link names: in a locale, by its slug there or its own (decision 0096). */
  async getBySlug(slug: string, filter: { activeOnly?: boolean; locale?: string } = {}): Promise<Collection> {
    return this.db.tenant(async ({ em, tenantId }) => {
      const own = 'select id from catalog_collection where tenant_id = ? and slug = ?';
      const [row] = filter.locale
        ? await em.execute<Array<{ id: string | null }>>(
            `select coalesce((select resource_id from catalog_translation where tenant_id = ? and resource = 'collection' and locale = ? and handle = ?), (${own})) as id`,
            [tenantId, filter.locale, slug, tenantId, slug],
          )
        : await em.execute<Array<{ id: string | null }>>(own, [tenantId, slug]);
      if (!row?.id) throw AppError.notFound('Collection', 'COLLECTION_NOT_FOUND');
      return findCollection(em, row.id, filter);
    });
  }

  async list(page: PageRequest, filter: CollectionFilter): Promise<Page<Collection>> {
    return this.db.tenant(async ({ em, tenantId }) => {
      const where: Record<string, unknown> = {};
      if (filter.status) where.status = filter.status;
      if (filter.activeOnly) where.status = filter.status && filter.status !== 'active' ? '__none__' : 'active';
      if (filter.locale && page.sort.replace(/^-/, '') === 'title') return this.byTranslatedTitle(em, tenantId, page, filter.locale, where.status as string | undefined);
      return paginate(em, Collection, where, page);
    });
  }

  /** A page sorted by the titles read in `locale` (decision 0096), paged by them. */
  private async byTranslatedTitle(em: EntityManager, tenantId: string, page: PageRequest, locale: string, status: string | undefined): Promise<Page<Collection>> {
    const resume = keyset(page, { title: { sql: 'title', type: 'text' } });
    const conditions = () => [{ sql: 'tenant_id = ?', params: [tenantId] }, ...(status ? [{ sql: 'status = ?', params: [status] }] : [])];
    const statement = translatedSortPage({ table: 'catalog_collection', resource: 'collection', own: 'title', locale, columns: COLUMNS, conditions, tenantId, page, cursor: resume.params });
    const rows = await em.execute<Array<Record<string, unknown> & { id: string; sort_key: string }>>(statement.sql, statement.params);
    const keys = new Map(rows.map((r) => [r.id, r.sort_key]));
    return resume.finish(rows.map(({ sort_key: _, ...row }) => em.map(Collection, row)), (c) => keys.get(c.id));
  }

  /** PUT: every field as sent, defaults for the absent ones; an absent slug or position is kept. */
  async replace(id: string, input: CollectionReplace): Promise<Collection> {
    return retryTaken('catalog_collection_slug', { name: 'slug', requested: input.slug }, () =>
      this.db.tenant(async (tx) => {
        const { em } = tx;
        const collection = await lockCollection(em, id);
        collection.slug = await resolveSlug(em, Collection, input.slug, input.title, collection);
        const mediaId = input.image_media_id ?? null;
        if (mediaId !== collection.imageMediaId) {
          collection.imageUrl = await this.media.urlOf(tx, mediaId, 'body.image_media_id');
          collection.imageMediaId = mediaId;
        }
        collection.title = input.title;
        collection.description = input.description ?? null;
        collection.status = input.status ?? 'active';
        collection.sortOrder = input.sort_order ?? 'manual';
        collection.seoTitle = input.seo_title ?? null;
        collection.seoDescription = input.seo_description ?? null;
        if (input.position !== undefined) collection.position = input.position;
        collection.updatedAt = tx.now();
        tx.publish('products.collection.updated', collectionEvent(collection));
        await em.flush();
        return collection;
      }),
    );
  }

  /** The products stay; only their membership goes (by the foreign key's cascade). */
  async remove(id: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      const collection = await lockCollection(tx.em, id);
      tx.em.remove(collection);
      tx.publish('products.collection.deleted', { id, deleted_at: tx.now().toISOString() });
      await tx.em.flush();
    });
  }

  async detachMedia(tx: Tx, mediaId: string): Promise<void> {
    const covered = await tx.em.find(Collection, { imageMediaId: mediaId });
    for (const collection of covered) {
      collection.imageMediaId = null;
      collection.imageUrl = null;
      collection.updatedAt = tx.now();
      tx.publish('products.collection.updated', collectionEvent(collection));
    }
    if (covered.length > 0) await tx.em.flush();
  }
}

export async function findCollection(em: EntityManager, id: string, filter: { activeOnly?: boolean } = {}): Promise<Collection> {
  const collection = await em.findOne(Collection, { id, ...(filter.activeOnly ? { status: 'active' as const } : {}) });
  if (!collection) throw AppError.notFound('Collection', 'COLLECTION_NOT_FOUND');
  return collection;
}

/** Locks the row: writes to one collection (its counter included) happen one at a time. */
export async function lockCollection(em: EntityManager, id: string): Promise<Collection> {
  const collection = await em.findOne(Collection, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!collection) throw AppError.notFound('Collection', 'COLLECTION_NOT_FOUND');
  return collection;
}

export function collectionEvent(c: Collection) {
  return {
    id: c.id,
    title: c.title,
    slug: c.slug,
    status: c.status,
    product_count: c.productCount,
    updated_at: c.updatedAt.toISOString(),
  };
}
