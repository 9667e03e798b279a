import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A store's purchase of a paid theme, at the price of the day. */
export const ThemePurchase = defineEntity({
  name: 'ThemePurchase',
  tableName: 'themes_purchase',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    themeCatalogId: p.uuid(),
    price: p.integer(),
    currency: p.string(),
    purchasedBy: p.uuid().nullable(),
    purchasedAt: p.datetime(),
  },
});
export type ThemePurchase = InferEntity<typeof ThemePurchase>;
