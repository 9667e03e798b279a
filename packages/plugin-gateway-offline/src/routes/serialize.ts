import type { OfflineMethod } from '../entities/method.js';
import type { OfflineReceipt } from '../entities/receipt.js';
import type { OfflinePaymentView } from '../services/receipts.js';

const iso = (d: Date | null | undefined) => d?.toISOString() ?? null;

export function methodOut(m: OfflineMethod) {
  return {
    id: m.id,
    name: m.name,
    kind: m.kind,
    instructions: m.instructions,
    currencies: m.currencies,
    enabled: m.enabled,
    position: m.position,
    created_at: m.createdAt.toISOString(),
    updated_at: m.updatedAt.toISOString(),
  };
}

export function receiptOut(r: OfflineReceipt) {
  return {
    id: r.id,
    payment_id: r.paymentId,
    order_id: r.orderId,
    method_id: r.methodId,
    amount: r.amount,
    currency: r.currency,
    reference: r.reference ?? null,
    note: r.note ?? null,
    received_at: r.receivedAt.toISOString(),
    recorded_by: r.recordedBy ?? null,
    voided_at: iso(r.voidedAt),
    void_reason: r.voidReason ?? null,
    voided_by: r.voidedBy ?? null,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

export function offlinePaymentOut({ payment, offline, received }: OfflinePaymentView) {
  return {
    payment_id: payment.id,
    order_id: payment.orderId,
    status: payment.status,
    amount: payment.amount,
    currency: payment.currency,
    received_amount: received,
    outstanding_amount: payment.status === 'pending' ? Math.max(0, payment.amount - received) : 0,
    method: { id: offline.methodId, name: offline.methodName, kind: offline.methodKind, instructions: offline.instructions },
    payer_reference: offline.payerReference ?? null,
    cancelled_at: iso(offline.cancelledAt),
    created_at: offline.createdAt.toISOString(),
  };
}
