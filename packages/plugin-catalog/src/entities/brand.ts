import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const Brand = defineEntity({
  name: 'Brand',
  tableName: 'catalog_brand',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    name: p.string(),
    slug: p.string(),
    description: p.text().nullable(),
    /** `#rgb` or `#rrggbb`. */
    color: p.string().nullable(),
    logoMediaId: p.uuid().nullable(),
    /** The logo's public URL, resolved from the media file when it is set. */
    logoUrl: p.text().nullable(),
    websiteUrl: p.text().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Brand = InferEntity<typeof Brand>;
