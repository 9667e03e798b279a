import { listQuery, Timestamp, Uuid } from '@qhatu/core';
import { z } from 'zod';
import { ADJUSTMENT_REASONS, type AdjustmentReason } from '../entities/stock-adjustment.js';

/** Units one stock record may hold. */
export const MAX_QUANTITY = 1_000_000_000;

/** A boolean in a query string. */
export const BooleanText = z.enum(['true', 'false'], { message: 'must be true or false' }).transform((v) => v === 'true');

/** Reasons that only add, and reasons that only remove; the others go either way. */
export const INBOUND_REASONS: readonly AdjustmentReason[] = ['received', 'returned'];
export const OUTBOUND_REASONS: readonly AdjustmentReason[] = ['sold', 'damaged', 'lost'];

export const StockAdjust = z
  .strictObject({
    variant_id: Uuid,
    delta: z
      .number()
      .int('must be a whole number')
      .min(-MAX_QUANTITY)
      .max(MAX_QUANTITY)
      .refine((d) => d !== 0, 'must not be 0')
      .meta({ description: 'Units to add (positive) or remove (negative)' }),
    reason: z.enum(ADJUSTMENT_REASONS).meta({
      description: 'received and returned add; sold, damaged and lost remove; correction, transfer and other go either way',
    }),
    note: z.string().trim().max(1000).nullable().optional(),
  })
  .superRefine((a, ctx) => {
    if (INBOUND_REASONS.includes(a.reason) && a.delta < 0) {
      ctx.addIssue({ code: 'custom', path: ['delta'], message: `must be positive for reason ${a.reason}` });
    }
    if (OUTBOUND_REASONS.includes(a.reason) && a.delta > 0) {
      ctx.addIssue({ code: 'custom', path: ['delta'], message: `must be negative for reason ${a.reason}` });
    }
  })
  .meta({ id: 'StockAdjust' });
export type StockAdjust = z.output<typeof StockAdjust>;

export const StockAdjustmentOut = z
  .object({
    id: z.uuid(),
    warehouse_id: z.uuid(),
    variant_id: z.uuid(),
    delta: z.number().int(),
    reason: z.enum(ADJUSTMENT_REASONS),
    note: z.string().nullable(),
    previous_quantity: z.number().int().meta({ description: 'On hand before' }),
    quantity: z.number().int().meta({ description: 'On hand after' }),
    available: z.number().int().meta({ description: 'On hand minus reserved, after' }),
    order_id: z.uuid().nullable().meta({ description: 'The order whose fulfilment consumed the stock' }),
    actor: z.object({
      kind: z.string().meta({ description: 'admin, storefront, customer, vendor, or system (no request)' }),
      token_id: z.uuid().nullable(),
    }),
    created_at: Timestamp,
  })
  .meta({ id: 'StockAdjustment' });

export const StockLevelOut = z
  .object({
    warehouse_id: z.uuid(),
    variant_id: z.uuid(),
    product_id: z.uuid().nullable(),
    sku: z.string().nullable(),
    on_hand: z.number().int(),
    reserved: z.number().int(),
    available: z.number().int(),
    updated_at: Timestamp,
  })
  .meta({ id: 'StockLevel' });

export const AdjustmentListQuery = listQuery({
  sorts: ['created_at'],
  defaultSort: '-created_at',
  filters: { variant_id: Uuid, reason: z.enum(ADJUSTMENT_REASONS), order_id: Uuid },
});
export type AdjustmentListQuery = z.output<typeof AdjustmentListQuery>;

export const StockListQuery = listQuery({
  sorts: ['created_at', 'updated_at', 'on_hand'],
  defaultSort: 'created_at',
  filters: { variant_id: Uuid },
});
export type StockListQuery = z.output<typeof StockListQuery>;
