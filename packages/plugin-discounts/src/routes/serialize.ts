import type { Coupon } from '../entities/coupon.js';
import type { Redemption } from '../entities/redemption.js';
import type { VolumeDiscount } from '../entities/volume-discount.js';
import type { CouponVerdict } from '../services/discounts.js';
import { couponStatus } from '../services/rules.js';

const iso = (d: Date | null | undefined) => d?.toISOString() ?? null;

export function couponOut(c: Coupon, now: Date) {
  return {
    id: c.id,
    code: c.code,
    type: c.type,
    value: c.value,
    currency: c.currency,
    amounts: c.amounts ?? {},
    min_order_amount: c.minOrderAmount,
    min_order_amounts: c.minOrderAmounts ?? {},
    max_uses: c.maxUses ?? null,
    max_uses_per_customer: c.maxUsesPerCustomer ?? null,
    applicable_to: c.applicableTo,
    applicable_ids: c.applicableIds,
    starts_at: iso(c.startsAt),
    expires_at: iso(c.expiresAt),
    is_active: c.isActive,
    uses_count: c.usesCount,
    status: couponStatus(c, now),
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
    deleted_at: iso(c.deletedAt),
  };
}

export function verdictOut(v: CouponVerdict) {
  return {
    valid: v.valid,
    discount_amount: v.discountAmount,
    reason: v.reason ?? '',
    message: v.message,
    coupon_id: v.coupon?.id ?? null,
  };
}

export function redemptionOut(r: Redemption) {
  return {
    id: r.id,
    coupon_id: r.couponId,
    customer_id: r.customerId ?? null,
    customer_email: r.customerEmail ?? null,
    order_id: r.orderId ?? null,
    amount: r.amount,
    currency: r.currency,
    created_at: r.createdAt.toISOString(),
    released_at: r.releasedAt?.toISOString() ?? null,
  };
}

export function volumeDiscountOut(t: VolumeDiscount) {
  return {
    id: t.id,
    product_id: t.productId,
    min_quantity: t.minQuantity,
    type: t.type,
    value: t.value,
    currency: t.currency,
    amounts: t.amounts ?? {},
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
  };
}
