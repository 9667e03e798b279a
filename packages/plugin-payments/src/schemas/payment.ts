import { CurrencyCode, listQuery, Money, Timestamp, Uuid } from '@qhatu/core';
import { z } from 'zod';
import { PAYMENT_STATUSES } from '../entities/payment.js';
import { REFUND_REASONS, REFUND_STATUSES } from '../entities/refund.js';

export const PaymentCreate = z
  .looseObject({
    order_id: Uuid,
    gateway: z.string().min(1).max(40).meta({ example: 'stripe' }),
    amount: Money.min(1).meta({ description: 'Minor units of the currency' }),
    currency: CurrencyCode,
  })
  .meta({ id: 'PaymentCreate', description: "Plus the gateway's own fields (GET /api/v1/payments/gateways lists them), e.g. payment_method_id for stripe" });

export const RefundCreate = z
  .strictObject({
    amount: Money.meta({ description: 'Minor units; 0 refunds everything not yet refunded' }),
    reason: z.enum(REFUND_REASONS).optional(),
  })
  .meta({ id: 'PaymentRefundCreate' });

export const RefundOut = z
  .object({
    id: z.uuid(),
    payment_id: z.uuid(),
    amount: Money,
    tax_amount: Money.meta({ description: "The tax this refund gives back (part of amount): its share of the order's tax_total, so that refunding a whole order gives back exactly its tax" }),
    reason: z.enum(REFUND_REASONS).nullable(),
    status: z.enum(REFUND_STATUSES),
    provider_refund_id: z.string().nullable(),
    failure_reason: z.string().nullable(),
    unconfirmed: z.boolean().meta({
      description:
        "True while the provider's answer to this refund was lost on a gateway that cannot repeat a refund (Culqi, Izipay, Pay-me, Niubiz): it stays pending, its amount still counted, until the store checks the provider's dashboard and records the outcome (POST /api/v1/payments/{id}/refunds/{refund_id}/outcome)",
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'PaymentRefund' });

export const RefundParams = z.object({ id: Uuid, refund_id: Uuid });

export const RefundOutcomeRecord = z
  .strictObject({
    status: z.enum(['refunded', 'failed']).meta({ description: "What the provider's dashboard shows: refunded (the money went back) or failed (no refund was made; the amount is free again)" }),
    provider_refund_id: z.string().min(1).max(200).optional().meta({ description: "The provider's id of the refund, as its dashboard shows it" }),
  })
  .meta({ id: 'PaymentRefundOutcome' });

export const PaymentOut = z
  .object({
    id: z.uuid(),
    order_id: z.uuid(),
    gateway: z.string(),
    amount: Money,
    currency: z.string(),
    status: z.enum(PAYMENT_STATUSES),
    method: z.string().nullable(),
    provider_payment_id: z.string().nullable(),
    failure_reason: z.string().nullable().meta({ description: "The provider's reason when failed" }),
    next_action: z.record(z.string(), z.unknown()).nullable().meta({ description: 'What the client must do next (3-D Secure), while pending' }),
    refunded_amount: Money,
    refundable_amount: Money.meta({
      description: 'What a refund may still ask for: the amount less every refund not failed (pending and unconfirmed ones hold theirs); 0 unless the payment is paid or partially_refunded',
    }),
    captured_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
    refunds: z.array(RefundOut),
  })
  .meta({ id: 'Payment' });

export const PaymentSessionCreate = z
  .strictObject({
    order_id: Uuid,
    gateway: z.string().min(1).max(40).meta({ example: 'niubiz' }),
    amount: Money.min(1).optional().meta({ description: 'Part of what is still due, for a split payment (minor units); absent: everything still due' }),
    client_ip: z.union([z.ipv4(), z.ipv6()]).optional().meta({ description: "The shopper's IP address, for the provider's antifraud checks" }),
    return_url: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .max(2000)
      .optional()
      .meta({ description: "Where the shopper's browser goes after a provider form that posts back to Qhatu (Niubiz), with payment_id and status added" }),
  })
  .meta({ id: 'PaymentSessionCreate' });

export const PaymentSessionOut = z
  .object({
    id: z.uuid(),
    gateway: z.string(),
    order_id: z.uuid(),
    amount: Money,
    currency: z.string(),
    reference: z.string().meta({ description: "The provider's reference: the value of the gateway's session field in POST /api/v1/payments" }),
    client: z.record(z.string(), z.unknown()).meta({ description: "What the provider's browser form needs (never a secret)" }),
    return_url: z.string().nullable(),
    payment_id: z.uuid().nullable().meta({ description: 'The payment that used the session; a session pays once' }),
    expires_at: Timestamp.nullable(),
    created_at: Timestamp,
  })
  .meta({ id: 'PaymentSession' });

export const PaymentConfirm = z
  .record(z.string().max(60), z.unknown())
  .nullish()
  .meta({ id: 'PaymentConfirm', description: "The provider's authentication result as the gateway names it (culqi: authentication_3ds {eci, xid, cavv, protocolVersion, directoryServerTransactionId}); empty to re-read the payment" });

export const PaymentListQuery = listQuery({
  filters: {
    order_id: Uuid,
    status: z.enum(PAYMENT_STATUSES),
    gateway: z.string().min(1).max(40),
    /** The provider's id of the payment (a pi_…, a charge id): finds it from the provider's dashboard. */
    provider_payment_id: z.string().min(1).max(255),
  },
  sorts: ['created_at', 'amount'],
  defaultSort: '-created_at',
});
