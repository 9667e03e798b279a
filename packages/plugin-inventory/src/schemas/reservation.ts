import { listQuery, Timestamp, Uuid } from '@qhatu/core';
import { z } from 'zod';
import { BooleanText, MAX_QUANTITY } from './stock.js';

const Line = z.strictObject({
  variantId: Uuid,
  quantity: z.number().int('must be a whole number').min(1, 'must be at least 1').max(MAX_QUANTITY),
});
const Lines = z.array(Line).min(1, 'give at least one line').max(500);

/** What other plugins pass to `Reservations` (validated there; not an HTTP body). */
export const ReserveInput = z.strictObject({ orderId: Uuid, lines: Lines, warehouseId: Uuid.optional() });
export type ReserveInput = z.input<typeof ReserveInput>;
export const ReservationLines = Lines.optional();
/** What short stock does to `Reservations.hold` (decision 0054). */
export const SHORTFALLS = ['refuse', 'backorder', 'accept'] as const;
export const HoldInput = z.strictObject({ orderId: Uuid, lines: Lines, shortfall: z.enum(SHORTFALLS) });
export type HoldInput = z.input<typeof HoldInput>;
export type Shortfall = (typeof SHORTFALLS)[number];
export type ReservationLine = z.input<typeof Line>;

export const ReservationOut = z
  .object({
    id: z.uuid(),
    order_id: z.uuid(),
    warehouse_id: z.uuid(),
    variant_id: z.uuid(),
    quantity: z.number().int().meta({ description: 'Units still held' }),
    consumed_quantity: z.number().int().meta({ description: 'Units fulfilled (taken from stock)' }),
    released_quantity: z.number().int().meta({ description: 'Units given back' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'StockReservation' });

export const ReservationListQuery = listQuery({
  sorts: ['created_at'],
  defaultSort: '-created_at',
  filters: { order_id: Uuid, variant_id: Uuid, warehouse_id: Uuid, active: BooleanText },
});
export type ReservationListQuery = z.output<typeof ReservationListQuery>;
