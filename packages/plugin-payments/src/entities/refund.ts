import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { ReturnReason } from '../services/events.js';

export const REFUND_STATUSES = ['pending', 'processing', 'refunded', 'failed'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];
export const REFUND_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer', 'other'] as const;
export type RefundReason = (typeof REFUND_REASONS)[number];

export const Refund = defineEntity({
  name: 'PaymentRefund',
  tableName: 'payments_refund',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    paymentId: p.uuid(),
    amount: p.bigint('number'),
    /** The part of `amount` that is tax given back: the refund's share of the order's tax. */
    taxAmount: p.bigint('number'),
    reason: p.string().$type<RefundReason>().nullable(),
    status: p.string().$type<RefundStatus>(),
    providerRefundId: p.string().nullable(),
    failureReason: p.string().nullable(),
    /**
     * When the provider's answer to the refund call was lost on a gateway that cannot repeat a
     * refund (decision 0108): only the provider's dashboard can tell whether it refunded.
     */
    answerLostAt: p.datetime().nullable(),
    /** Why the store sent this money back by itself (`MoneyReturns`); null for a refund someone asked for. */
    returnedFor: p.string().$type<ReturnReason>().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Refund = InferEntity<typeof Refund>;

/**
 * A refund whose answer was lost on a gateway that cannot repeat it: pending, with no provider id,
 * until the store records what the provider did (`Refunds.recordOutcome`). Its amount still counts.
 */
export function unconfirmed(refund: Pick<Refund, 'status' | 'providerRefundId' | 'answerLostAt'>): boolean {
  return refund.status === 'pending' && !refund.providerRefundId && Boolean(refund.answerLostAt);
}
