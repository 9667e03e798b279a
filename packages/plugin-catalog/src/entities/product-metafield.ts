import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const METAFIELD_TYPES = ['string', 'integer', 'decimal', 'boolean', 'json', 'date', 'datetime', 'url', 'color', 'reference'] as const;
export type MetafieldType = (typeof METAFIELD_TYPES)[number];

/** A typed custom field of a product or of one of its variants. */
export const ProductMetafield = defineEntity({
  name: 'ProductMetafield',
  tableName: 'catalog_product_metafield',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    productId: p.uuid(),
    variantId: p.uuid().nullable(),
    namespace: p.string(),
    key: p.string(),
    /** The canonical text of the value (see services/metafield-values.ts). */
    value: p.text(),
    valueType: p.string().$type<MetafieldType>(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type ProductMetafield = InferEntity<typeof ProductMetafield>;
