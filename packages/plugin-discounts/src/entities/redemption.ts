import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** One use of a coupon: who, for which order, how much it took off. */
export const Redemption = defineEntity({
  name: 'CouponRedemption',
  tableName: 'discounts_redemption',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    couponId: p.uuid(),
    customerId: p.uuid().nullable(),
    /** Lower-cased; guests are counted by e-mail for the per-customer limit. */
    customerEmail: p.string().nullable(),
    orderId: p.uuid().nullable(),
    /** Minor units of `currency`. */
    amount: p.bigint('number'),
    currency: p.string(),
    createdAt: p.datetime(),
    /** Set when the order was cancelled: the use was given back to the coupon. */
    releasedAt: p.datetime().nullable(),
  },
});
export type Redemption = InferEntity<typeof Redemption>;
