import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const PRODUCT_STATUSES = ['active', 'draft', 'archived'] as const;
export type ProductStatus = (typeof PRODUCT_STATUSES)[number];

export interface ProductImage {
  id: string;
  media_id: string | null;
  url: string | null;
  alt_text: string | null;
  position: number;
}

export const Product = defineEntity({
  name: 'Product',
  tableName: 'catalog_product',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    title: p.string(),
    handle: p.string(),
    descriptionHtml: p.text().nullable(),
    status: p.string().$type<ProductStatus>(),
    brandId: p.uuid().nullable(),
    supplierId: p.uuid().nullable(),
    tags: p.json<string[]>(),
    images: p.json<ProductImage[]>(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Product = InferEntity<typeof Product>;
