import { Money, Timestamp, Uuid } from '@qhatu/core';
import { z } from 'zod';
import { ABANDONED_CART_STATUSES } from '../entities/abandoned-cart.js';

export const ABANDONED_MAX_LIMIT = 100;

export const AbandonedCartListQuery = z.strictObject({
  status: z.enum(['all', ...ABANDONED_CART_STATUSES]).default('all'),
  limit: z.coerce
    .number({ message: 'must be a whole number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .default(25)
    .transform((n) => Math.min(n, ABANDONED_MAX_LIMIT))
    .meta({ description: `Page size; default 25, values above ${ABANDONED_MAX_LIMIT} are clamped` }),
  offset: z.coerce
    .number({ message: 'must be a whole number' })
    .int('must be a whole number')
    .min(0, 'must be 0 or more')
    .max(1_000_000, 'must be at most 1000000')
    .default(0)
    .meta({ description: 'Rows to skip (offset pagination)' }),
});

export const AbandonedCartParams = z.object({ id: Uuid });

export const AbandonedCartOut = z
  .object({
    id: Uuid,
    cart_id: Uuid,
    checkout_id: Uuid.nullable(),
    customer_id: Uuid.nullable(),
    email: z.string().nullable(),
    status: z.enum(ABANDONED_CART_STATUSES),
    currency: z.string(),
    item_count: z.number().int(),
    value_cents: Money,
    reminder_count: z.number().int(),
    last_reminded_at: Timestamp.nullable(),
    recovered_at: Timestamp.nullable(),
    recovered_by: z.enum(['admin', 'shopper']).nullable(),
    recovered_value_cents: Money.nullable(),
    restored_cart_id: Uuid.nullable().meta({ description: 'The new cart the recovery link opened when this one was frozen by its abandoned checkout' }),
    abandoned_at: Timestamp,
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'AbandonedCart' });

export const AbandonedCartMetricsOut = z
  .object({
    total_abandoned: z.number().int(),
    lost_value_cents: Money,
    recovered_count: z.number().int(),
    recovered_value_cents: Money,
    recovery_rate: z.number().meta({ description: 'recovered_count / total_abandoned × 100, two decimals' }),
    reminder_sent_count: z.number().int(),
  })
  .meta({ id: 'AbandonedCartMetrics' });

export const AbandonedCartList = z
  .object({
    data: z.array(AbandonedCartOut),
    metrics: AbandonedCartMetricsOut,
    meta: z.object({
      pagination: z.object({ limit: z.number().int(), offset: z.number().int(), total: z.number().int(), has_next: z.boolean() }),
    }),
  })
  .meta({ id: 'AbandonedCartPage' });

export const RestoreQuery = z.strictObject({
  token: z.string().min(1).max(4096).meta({ description: 'The token of the recovery link' }),
});
