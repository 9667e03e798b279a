import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** The specification shows `percentage` only. */
export const VOLUME_DISCOUNT_TYPES = ['percentage'] as const;
export type VolumeDiscountType = (typeof VOLUME_DISCOUNT_TYPES)[number];

/** One tier: from `minQuantity` units of one product, `value` basis points off those units. */
export const VolumeDiscount = defineEntity({
  name: 'VolumeDiscount',
  tableName: 'discounts_volume_discount',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    productId: p.uuid(),
    minQuantity: p.integer(),
    type: p.string().$type<VolumeDiscountType>(),
    /** Basis points, 1..10000. */
    value: p.integer(),
    currency: p.string(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type VolumeDiscount = InferEntity<typeof VolumeDiscount>;
