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
