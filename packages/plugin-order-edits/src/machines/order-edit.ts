import { defineMachine } from '@qhatu/core';
import { ORDER_EDIT_STATUSES, type OrderEdit, type OrderEditStatus } from '../entities/order-edit.js';

export const EDIT_CREATED = 'order-edits.edit.created';
export const EDIT_CONFIRMED = 'order-edits.edit.confirmed';
export const EDIT_CANCELLED = 'order-edits.edit.cancelled';
export const EDIT_EVENTS = [EDIT_CREATED, EDIT_CONFIRMED, EDIT_CANCELLED] as const;

export function editEvent(e: OrderEdit): Record<string, unknown> {
  return {
    id: e.id,
    order_id: e.orderId,
    status: e.status,
    version: e.version ?? null,
    currency: e.currency.trim(),
    total_before: e.before.total,
    total_after: e.after.total,
    difference: e.difference,
    amount_due: e.amountDue,
    refund_amount: e.refundAmount,
    updated_at: e.updatedAt.toISOString(),
  };
}

/** open (previewed) → confirmed (applied: a version of the order) or cancelled (dropped); both final. */
export const orderEditMachine = defineMachine<OrderEdit, OrderEditStatus>({
  name: 'order edit',
  field: 'status',
  states: ORDER_EDIT_STATUSES,
  transitions: {
    confirm: { from: ['open'], to: 'confirmed', event: EDIT_CONFIRMED },
    cancel: { from: ['open'], to: 'cancelled', event: EDIT_CANCELLED },
  },
  eventData: editEvent,
});
