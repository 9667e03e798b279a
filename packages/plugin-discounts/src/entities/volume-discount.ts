import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { AmountsByCurrency } from './coupon.js';

/** `percentage` (the specification's) and `fixed_amount`: minor units off each unit. */
export const VOLUME_DISCOUNT_TYPES = ['percentage', 'fixed_amount'] as const;
export type VolumeDiscountType = (typeof VOLUME_DISCOUNT_TYPES)[number];

/** One tier: from `minQuantity` units of one product, `value` basis points (or minor units of `currency`) off each of those units. */
export const VolumeDiscount = defineEntity({
  name: 'VolumeDiscount',
  tableName: 'discounts_volume_discount',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    productId: p.uuid(),
    minQuantity: p.integer(),
    type: p.string().$type<VolumeDiscountType>(),
    /** percentage: basis points, 1..10000; fixed_amount: minor units of `currency` off each unit. */
    value: p.integer(),
    currency: p.string(),
    /** A fixed_amount tier's value in other currencies of the store, minor units by code. */
    amounts: p.json<AmountsByCurrency>(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type VolumeDiscount = InferEntity<typeof VolumeDiscount>;
