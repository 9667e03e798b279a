import type { EditSnapshot, OrderEdit } from '../entities/order-edit.js';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

const snapshotOut = (s: EditSnapshot) => ({ ...s, lines: s.lines.map((l) => ({ ...l, offer_id: l.offer_id ?? null })), coupon: s.coupon ?? null });

export function editOut(e: OrderEdit) {
  return {
    id: e.id,
    order_id: e.orderId,
    status: e.status,
    version: e.version ?? null,
    changes: e.changes as unknown as Array<Record<string, unknown>>,
    shipping: e.shipping ?? null,
    shipping_changed: e.shippingChanged,
    currency: e.currency.trim(),
    before: snapshotOut(e.before),
    after: snapshotOut(e.after),
    difference: e.difference,
    amount_paid: e.amountPaid,
    amount_due: e.amountDue,
    refund_amount: e.refundAmount,
    note: e.note ?? null,
    payment_url: e.paymentUrl ?? null,
    created_by: e.createdBy ?? null,
    confirmed_by: e.confirmedBy ?? null,
    confirmed_at: iso(e.confirmedAt),
    cancelled_at: iso(e.cancelledAt),
    created_at: e.createdAt.toISOString(),
    updated_at: e.updatedAt.toISOString(),
  };
}
