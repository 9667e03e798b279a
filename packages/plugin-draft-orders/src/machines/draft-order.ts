import { defineMachine } from '@qhatu/core';
import { DRAFT_ORDER_STATUSES, type DraftOrder, type DraftOrderStatus } from '../entities/draft-order.js';

export const DRAFT_CREATED = 'draft-orders.draft.created';
export const DRAFT_UPDATED = 'draft-orders.draft.updated';
export const DRAFT_INVOICE_SENT = 'draft-orders.draft.invoice_sent';
export const DRAFT_REOPENED = 'draft-orders.draft.reopened';
export const DRAFT_COMPLETED = 'draft-orders.draft.completed';
export const DRAFT_CANCELLED = 'draft-orders.draft.cancelled';
export const DRAFT_EVENTS = [DRAFT_CREATED, DRAFT_UPDATED, DRAFT_INVOICE_SENT, DRAFT_REOPENED, DRAFT_COMPLETED, DRAFT_CANCELLED] as const;

/** What every draft event carries. */
export function draftEvent(d: DraftOrder): Record<string, unknown> {
  return {
    id: d.id,
    number: d.number,
    status: d.status,
    customer_id: d.customerId ?? null,
    email: d.email ?? null,
    currency: d.currency,
    subtotal: d.subtotal,
    discount_total: d.discountTotal,
    shipping_total: d.shippingTotal,
    tax_total: d.taxTotal,
    total: d.total,
    order_id: d.orderId ?? null,
    updated_at: d.updatedAt.toISOString(),
  };
}

/**
 * open → invoice_sent (the order is placed and a link to pay it sent; sent again: the same) →
 * completed (its order paid, or marked paid by staff). A draft with an invoice out may be reopened
 * (its unpaid order cancelled) to change it; open and invoice_sent drafts may be cancelled.
 * completed and cancelled are final. Changing lines, customer, shipping or discount: open only.
 */
export const draftOrderMachine = defineMachine<DraftOrder, DraftOrderStatus>({
  name: 'draft order',
  field: 'status',
  states: DRAFT_ORDER_STATUSES,
  transitions: {
    edit: { from: ['open'], to: 'open' },
    send_invoice: { from: ['open', 'invoice_sent'], to: 'invoice_sent', event: DRAFT_INVOICE_SENT },
    reopen: { from: ['invoice_sent'], to: 'open', event: DRAFT_REOPENED },
    complete: { from: ['open', 'invoice_sent'], to: 'completed', event: DRAFT_COMPLETED },
    cancel: { from: ['open', 'invoice_sent'], to: 'cancelled', event: DRAFT_CANCELLED },
  },
  eventData: draftEvent,
});
