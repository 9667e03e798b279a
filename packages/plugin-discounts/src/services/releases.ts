import type { DomainEvent, Tx } from '@qhatu/core';

export const ORDER_CANCELLED = 'orders.order.cancelled';

/**
 * A cancelled order gives back the coupon uses it took, in the outbox relay's transaction: its
 * redemptions are marked released (kept for the record, no longer counted against the per-customer
 * limit) and each coupon's uses_count goes down by as many. Safe to run twice.
 */
export async function releaseCancelledOrder(event: DomainEvent, tx: Tx): Promise<void> {
  if (event.type !== ORDER_CANCELLED || typeof event.data.id !== 'string') return;
  await tx.em.execute(
    `WITH released AS (
       UPDATE discounts_redemption SET released_at = ?
        WHERE tenant_id = ? AND order_id = ? AND released_at IS NULL
        RETURNING coupon_id),
     per_coupon AS (SELECT coupon_id, count(*)::int AS n FROM released GROUP BY coupon_id)
     UPDATE discounts_coupon c SET uses_count = greatest(c.uses_count - p.n, 0), updated_at = ?
       FROM per_coupon p WHERE c.tenant_id = ? AND c.id = p.coupon_id`,
    [tx.now(), event.tenantId, event.data.id, tx.now(), event.tenantId],
  );
}

/**
 * An edit changed what an order's coupon takes off, inside the edit's transaction: the use records
 * the new `amount`, or, when the coupon no longer applies to the order (`amount` null), is released
 * as a cancellation releases it (the coupon's uses_count goes down by one). A released use stays
 * released. Returns whether a use was changed.
 */
export async function reviseRedemption(tx: Tx, orderId: string, couponId: string, amount: number | null): Promise<boolean> {
  if (amount !== null) {
    const changed = await tx.em.execute(
      'UPDATE discounts_redemption SET amount = ? WHERE tenant_id = ? AND order_id = ? AND coupon_id = ? AND released_at IS NULL AND amount <> ? RETURNING id',
      [amount, tx.tenantId, orderId, couponId, amount],
    );
    return changed.length > 0;
  }
  const [released] = await tx.em.execute<Array<{ n: number }>>(
    `WITH released AS (
       UPDATE discounts_redemption SET released_at = ?
        WHERE tenant_id = ? AND order_id = ? AND coupon_id = ? AND released_at IS NULL
        RETURNING id)
     UPDATE discounts_coupon c SET uses_count = greatest(c.uses_count - (SELECT count(*) FROM released)::int, 0), updated_at = ?
      WHERE c.tenant_id = ? AND c.id = ? AND EXISTS (SELECT 1 FROM released)
      RETURNING (SELECT count(*) FROM released)::int AS n`,
    [tx.now(), tx.tenantId, orderId, couponId, tx.now(), tx.tenantId, couponId],
  );
  return Boolean(released?.n);
}
