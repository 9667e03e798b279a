import type { Tx } from '@qhatu/core';
import type { OfflineMethod } from '../entities/method.js';
import type { OfflineReceipt } from '../entities/receipt.js';

export const METHOD_CREATED = 'payments.offline_method.created';
export const METHOD_UPDATED = 'payments.offline_method.updated';
export const METHOD_DELETED = 'payments.offline_method.deleted';
export const RECEIPT_RECORDED = 'payments.offline_receipt.recorded';
export const RECEIPT_VOIDED = 'payments.offline_receipt.voided';

/** Every event type this plugin publishes (the payment's own events are the payments plugin's). */
export const OFFLINE_EVENTS = [METHOD_CREATED, METHOD_UPDATED, METHOD_DELETED, RECEIPT_RECORDED, RECEIPT_VOIDED];

export function publishMethod(tx: Tx, type: typeof METHOD_CREATED | typeof METHOD_UPDATED, m: OfflineMethod): void {
  tx.publish(type, { id: m.id, name: m.name, kind: m.kind, currencies: m.currencies, enabled: m.enabled, position: m.position, updated_at: m.updatedAt.toISOString() });
}

/** Where the payment stands once the receipt counts (or no longer does). */
export interface Standing {
  received_amount: number;
  outstanding_amount: number;
  payment_status: string;
}

export function publishReceipt(tx: Tx, type: typeof RECEIPT_RECORDED | typeof RECEIPT_VOIDED, r: OfflineReceipt, standing: Standing): void {
  tx.publish(type, {
    id: r.id,
    payment_id: r.paymentId,
    order_id: r.orderId,
    method_id: r.methodId,
    amount: r.amount,
    currency: r.currency,
    reference: r.reference ?? null,
    received_at: r.receivedAt.toISOString(),
    ...(type === RECEIPT_VOIDED ? { void_reason: r.voidReason ?? null } : {}),
    ...standing,
  });
}
