import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A product's place in a collection. */
export const CollectionProduct = defineEntity({
  name: 'CollectionProduct',
  tableName: 'catalog_collection_product',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    collectionId: p.uuid(),
    productId: p.uuid(),
    position: p.integer(),
    /** The product's creation time (it never changes): the key of `-created_at` collections. */
    productCreatedAt: p.datetime(),
    createdAt: p.datetime(),
  },
});
export type CollectionProduct = InferEntity<typeof CollectionProduct>;
