import { defineMachine } from '@qhatu/core';
import { RETURN_STATUSES, type Return, type ReturnStatus } from '../entities/return.js';

export const RETURN_REQUESTED = 'returns.return.requested';
export const RETURN_APPROVED = 'returns.return.approved';
export const RETURN_REJECTED = 'returns.return.rejected';
export const RETURN_CANCELLED = 'returns.return.cancelled';
export const RETURN_RECEIVED = 'returns.return.received';
export const RETURN_REFUNDED = 'returns.return.refunded';
export const RETURN_SHIPPED = 'returns.return.shipped';
export const RETURN_CLOSED = 'returns.return.closed';
/** A receipt of some units (partial or not); `returns.return.received` follows once every unit is in. */
export const RETURN_ITEMS_RECEIVED = 'returns.return.items_received';
export const RETURN_EVENTS = [
  RETURN_REQUESTED, RETURN_APPROVED, RETURN_REJECTED, RETURN_CANCELLED, RETURN_ITEMS_RECEIVED, RETURN_RECEIVED, RETURN_REFUNDED, RETURN_SHIPPED, RETURN_CLOSED,
] as const;

/** What every return event carries. */
export function returnEvent(r: Return): Record<string, unknown> {
  return {
    id: r.id,
    number: r.number,
    order_id: r.orderId,
    kind: r.kind,
    status: r.status,
    claim_type: r.claimType ?? null,
    resolution: r.resolution ?? null,
    customer_id: r.customerId ?? null,
    currency: r.currency.trim(),
    refund_method: r.refundMethod ?? null,
    items_amount: r.itemsAmount,
    shipping_amount: r.shippingAmount,
    new_items_amount: r.newItemsAmount,
    refund_amount: r.refundAmount,
    account_amount: r.accountAmount,
    amount_due: r.amountDue,
    updated_at: r.updatedAt.toISOString(),
  };
}

/**
 * requested → approved or rejected; approved → partially_received → received (line by line);
 * received → refunded → closed. A claim (nothing comes back) is refunded or closed (its
 * replacement shipped) from approved; an exchange whose new items cover what came back is closed
 * from received. requested and approved may be cancelled. rejected, cancelled and closed are final.
 */
export const returnMachine = defineMachine<Return, ReturnStatus>({
  name: 'return',
  field: 'status',
  states: RETURN_STATUSES,
  transitions: {
    approve: { from: ['requested'], to: 'approved', event: RETURN_APPROVED },
    reject: { from: ['requested'], to: 'rejected', event: RETURN_REJECTED },
    cancel: { from: ['requested', 'approved'], to: 'cancelled', event: RETURN_CANCELLED },
    receive_partially: { from: ['approved', 'partially_received'], to: 'partially_received' },
    receive: { from: ['approved', 'partially_received'], to: 'received', event: RETURN_RECEIVED },
    refund: { from: ['approved', 'received'], to: 'refunded', event: RETURN_REFUNDED },
    close: { from: ['approved', 'received', 'refunded'], to: 'closed', event: RETURN_CLOSED },
  },
  eventData: returnEvent,
});
