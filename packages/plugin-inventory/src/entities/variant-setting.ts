import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * How the store keeps stock of one variant (decision 0054). Without a row a variant is tracked
 * once it has a stock record, and is never sold short.
 */
export const VariantSetting = defineEntity({
  name: 'InventoryVariantSetting',
  tableName: 'inventory_variant_setting',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    variantId: p.uuid(),
    /** true or false as the store said; null: tracked once the variant has a stock record. */
    tracked: p.boolean().nullable(),
    /** Sold beyond what is available: the rest is backordered until stock arrives. */
    allowBackorder: p.boolean(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type VariantSetting = InferEntity<typeof VariantSetting>;
