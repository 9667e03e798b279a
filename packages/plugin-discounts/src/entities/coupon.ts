import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const COUPON_TYPES = ['percentage', 'fixed_amount'] as const;
export type CouponType = (typeof COUPON_TYPES)[number];

export const COUPON_TARGETS = ['all', 'products', 'collections'] as const;
export type CouponTarget = (typeof COUPON_TARGETS)[number];

/** Minor units by ISO 4217 code (`{"USD": 500}`): an amount set for each of the store's other currencies. */
export type AmountsByCurrency = Record<string, number>;

/** What a coupon is right now, derived from its fields and the clock (never stored). */
export const COUPON_STATUSES = ['active', 'scheduled', 'expired', 'exhausted', 'inactive', 'deleted'] as const;
export type CouponStatus = (typeof COUPON_STATUSES)[number];

export const Coupon = defineEntity({
  name: 'Coupon',
  tableName: 'discounts_coupon',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    /** Upper-cased on the way in: codes are case-insensitive. */
    code: p.string(),
    type: p.string().$type<CouponType>(),
    /** Basis points (percentage, 1..10000) or minor units of `currency` (fixed_amount). */
    value: p.bigint('number'),
    /** The coupon's own currency: `value` (fixed_amount) and `minOrderAmount` are in it. */
    currency: p.string(),
    /** A fixed_amount coupon's value in other currencies of the store, minor units by code. */
    amounts: p.json<AmountsByCurrency>(),
    minOrderAmount: p.bigint('number'),
    /** The minimum order in other currencies of the store, minor units by code. */
    minOrderAmounts: p.json<AmountsByCurrency>(),
    maxUses: p.integer().nullable(),
    maxUsesPerCustomer: p.integer().nullable(),
    applicableTo: p.string().$type<CouponTarget>(),
    applicableIds: p.json<string[]>(),
    startsAt: p.datetime().nullable(),
    expiresAt: p.datetime().nullable(),
    isActive: p.boolean(),
    usesCount: p.integer(),
    /** Set by DELETE: the coupon stays for the orders that used it but never validates or lists again. */
    deletedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Coupon = InferEntity<typeof Coupon>;
