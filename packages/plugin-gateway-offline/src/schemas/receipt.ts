import { listQuery, Timestamp, Uuid } from '@qhatu/core';
import { z } from 'zod';
import { METHOD_KINDS } from '../entities/method.js';

const Reference = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');

export const ReceiptInput = z
  .strictObject({
    payment_id: Uuid,
    amount: z
      .number({ message: 'must be a whole number of minor units' })
      .int('must be a whole number of minor units')
      .min(1, 'must be at least 1')
      .max(Number.MAX_SAFE_INTEGER)
      .meta({ description: "Minor units of the payment's currency; at most what is still outstanding" }),
    reference: Reference.nullish().meta({ description: "The bank's or wallet's operation number, the courier's slip; one receipt per reference and method" }),
    received_at: z.iso
      .datetime({ offset: true, message: 'must be a date-time with its offset, e.g. 2026-05-04T15:30:00-05:00' })
      .optional()
      .meta({ description: 'When the money came in; now when left out; never in the future' }),
    note: z.string().max(1000, 'must be at most 1000 characters').nullish(),
  })
  .meta({ id: 'OfflineReceiptCreate' });
export type ReceiptInput = z.infer<typeof ReceiptInput>;

export const VoidInput = z
  .strictObject({ reason: z.string().trim().min(1, 'must say why').max(500, 'must be at most 500 characters') })
  .meta({ id: 'OfflineReceiptVoid' });

export const ReceiptOut = z
  .object({
    id: Uuid,
    payment_id: Uuid,
    order_id: Uuid,
    method_id: Uuid,
    amount: z.number().int(),
    currency: z.string(),
    reference: z.string().nullable(),
    note: z.string().nullable(),
    received_at: Timestamp,
    recorded_by: Uuid.nullable(),
    voided_at: Timestamp.nullable(),
    void_reason: z.string().nullable(),
    voided_by: Uuid.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'OfflineReceipt' });

/** An offline payment: the method the shopper was shown, and what the store received of it. */
export const OfflinePaymentOut = z
  .object({
    payment_id: Uuid,
    order_id: Uuid,
    status: z.string().meta({ description: "The payment's status (pending until what was received reaches its amount, then paid)" }),
    amount: z.number().int(),
    currency: z.string(),
    received_amount: z.number().int().meta({ description: 'What the receipts that count add up to' }),
    outstanding_amount: z.number().int().meta({ description: 'What is still to be received; 0 once paid' }),
    method: z.object({ id: Uuid, name: z.string(), kind: z.enum(METHOD_KINDS), instructions: z.string() }),
    payer_reference: z.string().nullable(),
    cancelled_at: Timestamp.nullable(),
    created_at: Timestamp,
  })
  .meta({ id: 'OfflinePayment' });

/** A receipt as its recording (or voiding) answers it: with the payment as it now stands. */
export const ReceiptWithPaymentOut = ReceiptOut.extend({ payment: OfflinePaymentOut }).meta({ id: 'OfflineReceiptWithPayment' });

const BooleanText = z.enum(['true', 'false'], { message: 'must be true or false' }).transform((v) => v === 'true');

export const ReceiptListQuery = listQuery({
  filters: { payment_id: Uuid, order_id: Uuid, method_id: Uuid, voided: BooleanText },
  sorts: ['created_at', 'received_at'],
  defaultSort: '-created_at',
});
