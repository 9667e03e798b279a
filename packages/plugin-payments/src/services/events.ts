import type { Tx } from '@qhatu/core';
import type { Payment } from '../entities/payment.js';
import type { Refund } from '../entities/refund.js';

export const PAYMENT_CONFIRMED = 'payments.payment.confirmed';
export const PAYMENT_CAPTURED = 'payments.payment.captured';
export const PAYMENT_FAILED = 'payments.payment.failed';
export const PAYMENT_REFUNDED = 'payments.payment.refunded';
export const REFUND_REFUNDED = 'payments.refund.refunded';
export const REFUND_FAILED = 'payments.refund.failed';
/** Money the store sent back by itself (late, a cancelled order, no stock): the refund that carries it follows. */
export const PAYMENT_RETURNED = 'payments.payment.returned';
/** A refund that carried such money was recorded failed from the provider's dashboard: the money is sent back again. */
export const PAYMENT_RETURN_FAILED = 'payments.payment.return_failed';

export const PAYMENT_EVENTS = [PAYMENT_CONFIRMED, PAYMENT_CAPTURED, PAYMENT_FAILED, PAYMENT_REFUNDED, REFUND_REFUNDED, REFUND_FAILED, PAYMENT_RETURNED, PAYMENT_RETURN_FAILED];

/** Why the store sent money back by itself. */
export const RETURN_REASONS = ['late', 'order_cancelled', 'stock_unavailable'] as const;
export type ReturnReason = (typeof RETURN_REASONS)[number];

/** paid: the orders and checkout plugins listen to `confirmed`; `captured` is the specification's outbound event. */
export function publishPaid(tx: Tx, p: Payment): void {
  tx.publish(PAYMENT_CONFIRMED, { payment_id: p.id, order_id: p.orderId, amount: p.amount, currency: p.currency });
  tx.publish(PAYMENT_CAPTURED, {
    id: p.id,
    order_id: p.orderId,
    amount: p.amount,
    currency: p.currency,
    method: p.method ?? p.gateway,
    status: p.status,
    captured_at: (p.capturedAt ?? tx.now()).toISOString(),
  });
}

export function publishFailed(tx: Tx, p: Payment): void {
  tx.publish(PAYMENT_FAILED, { id: p.id, order_id: p.orderId, amount: p.amount, currency: p.currency, gateway: p.gateway, status: p.status, reason: p.failureReason });
}

export function publishRefund(tx: Tx, p: Payment, r: Refund): void {
  const data = { id: r.id, payment_id: p.id, order_id: p.orderId, amount: r.amount, tax_amount: r.taxAmount, currency: p.currency, reason: r.reason, status: r.status };
  if (r.status === 'failed') {
    tx.publish(REFUND_FAILED, { ...data, failure_reason: r.failureReason });
    return;
  }
  tx.publish(REFUND_REFUNDED, data);
  tx.publish(PAYMENT_REFUNDED, { id: p.id, order_id: p.orderId, amount: p.amount, refunded_amount: p.refundedAmount, currency: p.currency, status: p.status });
}

export function publishReturned(tx: Tx, p: Payment, r: Refund, reason: ReturnReason): void {
  tx.publish(PAYMENT_RETURNED, { id: p.id, order_id: p.orderId, refund_id: r.id, amount: r.amount, currency: p.currency, gateway: p.gateway, reason });
}

/** `refund`, which carried money the store sent back by itself, was recorded failed: the money must still go (decision 0112). */
export function publishReturnFailed(tx: Tx, p: Payment, r: Refund, reason: ReturnReason): void {
  tx.publish(PAYMENT_RETURN_FAILED, { id: p.id, order_id: p.orderId, refund_id: r.id, amount: r.amount, currency: p.currency, gateway: p.gateway, reason });
}
