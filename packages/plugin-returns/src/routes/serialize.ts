import type { ReturnReason } from '../entities/reason.js';
import type { ReturnLine } from '../entities/return.js';
import type { ReturnView } from '../services/reads.js';
import type { ReturnSettingsView } from '../services/settings.js';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

function lineOut(l: ReturnLine) {
  return {
    id: l.id, kind: l.kind, line_item_id: l.lineItemId ?? null, variant_id: l.variantId ?? null, title: l.title, sku: l.sku ?? null, quantity: l.quantity,
    reason_code: l.reasonCode ?? null, note: l.note ?? null, received_quantity: l.receivedQuantity, restocked_quantity: l.restockedQuantity,
    damaged_quantity: l.damagedQuantity, warehouse_id: l.warehouseId ?? null, refund_amount: l.refundAmount, tax_amount: l.taxAmount, unit_price: l.unitPrice,
    shipped_quantity: l.shippedQuantity,
  };
}

export function returnOut({ ret: r, lines, refunds }: ReturnView) {
  return {
    id: r.id, number: r.number, name: `R${r.number}`, order_id: r.orderId, kind: r.kind, status: r.status, claim_type: r.claimType ?? null,
    resolution: r.resolution ?? null, customer_id: r.customerId ?? null, email: r.email, requested_by: r.requestedBy as 'customer' | 'staff',
    reason_code: r.reasonCode ?? null, note: r.note ?? null, currency: r.currency.trim(), shipping: r.shipping ?? null, refund_method: r.refundMethod ?? null,
    items_amount: r.itemsAmount, tax_amount: r.taxAmount, shipping_amount: r.shippingAmount, new_items_amount: r.newItemsAmount, refund_amount: r.refundAmount, account_amount: r.accountAmount,
    amount_due: r.amountDue, amount_paid: r.amountPaid,
    refunds: r.refunds.map((p) => ({ ...p, status: refunds.get(p.id)?.status ?? 'planned', failure_reason: refunds.get(p.id)?.failure_reason ?? null })),
    payment_url: r.paymentUrl ?? null, shipment: r.shipment ? { ...r.shipment, fulfillment_id: r.shipment.fulfillment_id ?? null } : null, reject_reason: r.rejectReason ?? null, lines: lines.map(lineOut),
    approved_at: iso(r.approvedAt), received_at: iso(r.receivedAt), refunded_at: iso(r.refundedAt), closed_at: iso(r.closedAt), cancelled_at: iso(r.cancelledAt),
    created_at: r.createdAt.toISOString(), updated_at: r.updatedAt.toISOString(),
  };
}

export const reasonOut = (r: ReturnReason) => ({ id: r.id, code: r.code, label: r.label, active: r.active, created_at: r.createdAt.toISOString(), updated_at: r.updatedAt.toISOString() });

export const settingsOut = (s: ReturnSettingsView) => ({ shipping_refund: s.shippingRefund, window_days: s.windowDays, updated_at: iso(s.updatedAt) });
