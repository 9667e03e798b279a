import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, Database, paginate, type Page, type PageRequest, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { Collection, type CollectionStatus } from '../entities/collection.js';
import type { CollectionCreate, CollectionReplace } from '../schemas/collection.js';
import { CatalogMedia, type MediaUser } from './media.js';
import { resolveSlug, retryTaken } from './references.js';

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
}

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

  async list(page: PageRequest, filter: CollectionFilter): Promise<Page<Collection>> {
    return this.db.tenant(async ({ em }) => {
      const where: Record<string, unknown> = {};
      if (filter.status) where.status = filter.status;
      if (filter.activeOnly) where.status = filter.status && filter.status !== 'active' ? '__none__' : 'active';
      return paginate(em, Collection, where, page);
    });
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
