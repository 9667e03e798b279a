import { defineMachine } from '@qhatu/core';
import { PAYMENT_STATUSES, type Payment, type PaymentStatus } from '../entities/payment.js';

export const REFUNDABLE: readonly PaymentStatus[] = ['paid', 'partially_refunded'];

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
