import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A file a buyer of the product (or of one variant of it) may download. */
export const ProductDownload = defineEntity({
  name: 'ProductDownload',
  tableName: 'catalog_product_download',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    productId: p.uuid(),
    /** Null: the download comes with every variant. */
    variantId: p.uuid().nullable(),
    fileName: p.string(),
    fileUrl: p.text(),
    fileSizeBytes: p.bigint('number').nullable(),
    /** Maximum downloads per purchase; null: unlimited. */
    downloadLimit: p.integer().nullable(),
    /** Days the link stays valid after purchase; null: forever. */
    downloadExpiryDays: p.integer().nullable(),
    position: p.integer(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type ProductDownload = InferEntity<typeof ProductDownload>;
