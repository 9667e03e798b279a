import { defineMachine } from '@qhatu/core';
import { PAYMENT_STATUSES, type Payment, type PaymentStatus } from '../entities/payment.js';
import type { Refund } from '../entities/refund.js';

export const REFUNDABLE: readonly PaymentStatus[] = ['paid', 'partially_refunded'];

/**
 * What a refund may still ask for: the amount less every refund that is not failed (a pending or
 * unconfirmed one holds its amount until it is settled); 0 while the payment is not refundable.
 * `refunds` are the payment's (failed ones may be among them).
 */
export function refundableOf(payment: Pick<Payment, 'amount' | 'status'>, refunds: ReadonlyArray<Pick<Refund, 'amount' | 'status'>>): number {
  if (!REFUNDABLE.includes(payment.status)) return 0;
  return Math.max(0, payment.amount - refunds.reduce((sum, r) => sum + (r.status === 'failed' ? 0 : r.amount), 0));
}

/**
 * The payment lifecycle of the specification. Events are published by the `Payments` service
 * (their data differs per type), so the transitions carry none.
 */
export const paymentMachine = defineMachine<Payment, PaymentStatus>({
  name: 'payment',
  field: 'status',
  states: PAYMENT_STATUSES,
  transitions: {
    // gateway progress
    process: { from: ['pending'], to: 'processing' },
    // gateway failure
    fail: { from: ['pending', 'processing'], to: 'failed' },
    // gateway capture confirmed (the order is confirmed through payments.payment.confirmed)
    capture: { from: ['processing'], to: 'paid' },
    refund_partially: { from: REFUNDABLE, to: 'partially_refunded' },
    refund_fully: { from: REFUNDABLE, to: 'refunded' },
  },
});
