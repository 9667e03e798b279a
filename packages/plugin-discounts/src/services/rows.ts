import type { Coupon } from '../entities/coupon.js';

/** A `discounts_coupon` row read with SQL, as the entity's fields (bigints as numbers, as the entity maps them). */
export function couponFromRow(row: Record<string, unknown>): Coupon {
  const date = (value: unknown) => (value == null ? null : new Date(value as string | Date));
  const json = <T>(value: unknown, empty: T): T => (value == null ? empty : ((typeof value === 'string' ? JSON.parse(value) : value) as T));
  return {
    id: row.id as string,
    tenantId: row.tenant_id as string,
    code: row.code as string,
    type: row.type as Coupon['type'],
    value: Number(row.value),
    currency: row.currency as string,
    amounts: json(row.amounts, {}),
    minOrderAmount: Number(row.min_order_amount),
    minOrderAmounts: json(row.min_order_amounts, {}),
    maxUses: row.max_uses == null ? null : Number(row.max_uses),
    maxUsesPerCustomer: row.max_uses_per_customer == null ? null : Number(row.max_uses_per_customer),
    applicableTo: row.applicable_to as Coupon['applicableTo'],
    applicableIds: (typeof row.applicable_ids === 'string' ? JSON.parse(row.applicable_ids) : row.applicable_ids) as string[],
    startsAt: date(row.starts_at),
    expiresAt: date(row.expires_at),
    isActive: Boolean(row.is_active),
    usesCount: Number(row.uses_count),
    deletedAt: date(row.deleted_at),
    createdAt: date(row.created_at)!,
    updatedAt: date(row.updated_at)!,
  } as Coupon;
}
