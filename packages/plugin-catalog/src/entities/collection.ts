import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const COLLECTION_STATUSES = ['active', 'draft'] as const;
export type CollectionStatus = (typeof COLLECTION_STATUSES)[number];

/** `manual`: by each product's position, then the time it was added; `-created_at`: newest product first. */
export const COLLECTION_SORT_ORDERS = ['manual', '-created_at'] as const;
export type CollectionSortOrder = (typeof COLLECTION_SORT_ORDERS)[number];

export const Collection = defineEntity({
  name: 'Collection',
  tableName: 'catalog_collection',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    title: p.string(),
    slug: p.string(),
    description: p.text().nullable(),
    status: p.string().$type<CollectionStatus>(),
    sortOrder: p.string().$type<CollectionSortOrder>(),
    seoTitle: p.string().nullable(),
    seoDescription: p.text().nullable(),
    imageMediaId: p.uuid().nullable(),
    /** The cover's public URL, resolved from the media file when it is set. */
    imageUrl: p.text().nullable(),
    position: p.integer(),
    /** Kept by the service in the transaction that adds or removes a product. */
    productCount: p.integer(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Collection = InferEntity<typeof Collection>;
