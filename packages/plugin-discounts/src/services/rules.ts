import { AppError, type ErrorDetail } from '@qhatu/core';
import type { Coupon, CouponStatus, CouponTarget, CouponType } from '../entities/coupon.js';

/** Codes are case-insensitive: trimmed and upper-cased everywhere they come in. */
export function normalizeCode(code: string): string {
  return code.trim().toUpperCase();
}

export const CODE_PATTERN = /^[A-Z0-9_-]{1,64}$/;

/** `bp` basis points of `amount`, rounded down: never more than the exact share. */
export function basisPointsOf(amount: number | bigint, bp: number): number {
  return Number((BigInt(amount) * BigInt(bp)) / 10_000n);
}

/** What a coupon takes off `eligible` minor units: never more than `eligible`. */
export function couponDiscount(coupon: Pick<Coupon, 'type' | 'value'>, eligible: number): number {
  return coupon.type === 'percentage' ? basisPointsOf(eligible, Math.min(coupon.value, 10_000)) : Math.min(coupon.value, eligible);
}

export function couponStatus(c: Coupon, now: Date): CouponStatus {
  if (c.deletedAt) return 'deleted';
  if (!c.isActive) return 'inactive';
  if (c.expiresAt && c.expiresAt <= now) return 'expired';
  if (c.startsAt && c.startsAt > now) return 'scheduled';
  if (c.maxUses != null && c.usesCount >= c.maxUses) return 'exhausted';
  return 'active';
}

/** Why a coupon does not apply: stable codes, the `reason` of validate and of COUPON_INVALID details. */
export const REFUSALS = {
  not_found: 'No coupon has this code',
  inactive: 'The coupon is not active',
  not_started: 'The coupon is not valid yet',
  expired: 'The coupon has expired',
  usage_limit_reached: 'The coupon has been used as many times as it may be',
  customer_usage_limit_reached: 'This customer has used the coupon as many times as it may',
  customer_required: 'The coupon is limited per customer: name the customer (customer_id or customer_email)',
  currency_mismatch: "The coupon has no amount in the order's currency",
  min_order_amount_not_met: 'The order amount is below the minimum of the coupon',
  not_applicable: 'The coupon applies to none of the products of the order',
  items_required: "The coupon is limited to some products: send the order's items with their prices",
  discount_amount_too_high: 'The discount amount is more than the coupon gives',
} as const;
export type Refusal = keyof typeof REFUSALS;

/** The availability part of a coupon's rules (no order needed). */
export function availabilityRefusal(c: Coupon, now: Date): Refusal | null {
  const status = couponStatus(c, now);
  const byStatus: Record<CouponStatus, Refusal | null> = {
    active: null,
    deleted: 'not_found',
    inactive: 'inactive',
    expired: 'expired',
    scheduled: 'not_started',
    exhausted: 'usage_limit_reached',
  };
  return byStatus[status];
}

/** The specification's 422 COUPON_INVALID, with the stable reason in its details. */
export function couponInvalid(reason: Refusal, extra: Record<string, unknown> = {}): AppError {
  return AppError.unprocessable('COUPON_INVALID', REFUSALS[reason], [{ message: REFUSALS[reason], reason, ...extra }]);
}

/** The fields whose combination has rules, as they will be stored. */
export interface CouponTerms {
  type: CouponType;
  value: number;
  applicableTo: CouponTarget;
  applicableIds: string[];
  startsAt: Date | null;
  expiresAt: Date | null;
}

/** Rules across fields, on the coupon as it will be once created or changed; 400 with every failing field. */
export function assertCouponTerms(terms: CouponTerms): void {
  const details: ErrorDetail[] = [];
  if (terms.type === 'percentage' && terms.value > 10_000) {
    details.push({ path: 'body.value', message: 'a percentage is at most 10000 basis points (100.00%)' });
  }
  if (terms.applicableTo === 'all' && terms.applicableIds.length > 0) {
    details.push({ path: 'body.applicable_ids', message: 'must be empty when applicable_to is all' });
  }
  if (terms.applicableTo !== 'all' && terms.applicableIds.length === 0) {
    details.push({ path: 'body.applicable_ids', message: `name at least one id when applicable_to is ${terms.applicableTo}` });
  }
  if (terms.startsAt && terms.expiresAt && terms.startsAt >= terms.expiresAt) {
    details.push({ path: 'body.expires_at', message: 'must be after starts_at' });
  }
  if (details.length > 0) throw AppError.validation(`${details[0].path}: ${details[0].message}`, details);
}
