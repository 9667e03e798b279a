import { CurrencyCode, Money, Timestamp, Uuid } from '@qhatu/core';
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
    reason: z.enum(REFUND_REASONS).nullable(),
    status: z.enum(REFUND_STATUSES),
    provider_refund_id: z.string().nullable(),
    failure_reason: z.string().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'PaymentRefund' });

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
    captured_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
    refunds: z.array(RefundOut),
  })
  .meta({ id: 'Payment' });
