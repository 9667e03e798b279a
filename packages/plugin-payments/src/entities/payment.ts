import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const PAYMENT_STATUSES = ['pending', 'processing', 'paid', 'failed', 'partially_refunded', 'refunded'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const Payment = defineEntity({
  name: 'Payment',
  tableName: 'payments_payment',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    orderId: p.uuid(),
    gateway: p.string(),
    amount: p.bigint('number'),
    currency: p.string(),
    status: p.string().$type<PaymentStatus>(),
    providerPaymentId: p.string().nullable(),
    method: p.string().nullable(),
    failureReason: p.string().nullable(),
    nextAction: p.json<Record<string, unknown>>().nullable(),
    /** What the gateway keeps while the payment is pending (`ChargeResult.keep`); never shown. */
    gatewayData: p.json<Record<string, unknown>>().nullable(),
    /**
     * The client's payment fields, sealed, from the moment the payment is recorded until the
     * provider's answer to its charge is: what a repeat of the charge needs. Never shown.
     */
    retryFields: p.text().nullable(),
    /** The provider call whose answer is not recorded yet (`charge` or `confirm`); null once answered. */
    awaitingAnswer: p.string().$type<'charge' | 'confirm'>().nullable(),
    /** The payment session it paid, for gateways that open one. */
    sessionId: p.uuid().nullable(),
    /** Sum of the refunds the provider confirmed. */
    refundedAmount: p.bigint('number'),
    capturedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Payment = InferEntity<typeof Payment>;
