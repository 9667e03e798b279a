import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { CustomFieldValues } from '@qhatu/core';

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
    /** Declared by plugins and the project (core's `CustomFields`). */
    customFields: p.json<CustomFieldValues>().onCreate(() => ({})),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Product = InferEntity<typeof Product>;
