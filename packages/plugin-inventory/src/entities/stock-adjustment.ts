import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const ADJUSTMENT_REASONS = ['received', 'returned', 'sold', 'damaged', 'lost', 'correction', 'transfer', 'other'] as const;
export type AdjustmentReason = (typeof ADJUSTMENT_REASONS)[number];

/** One change of on-hand stock: the audit trail (who, when, how much, why, what it left). */
export const StockAdjustment = defineEntity({
  name: 'StockAdjustment',
  tableName: 'inventory_adjustment',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    warehouseId: p.uuid(),
    variantId: p.uuid(),
    delta: p.integer(),
    reason: p.string().$type<AdjustmentReason>(),
    note: p.string().nullable(),
    /** On hand before and after. */
    previousQuantity: p.integer(),
    quantity: p.integer(),
    /** Available (on hand − reserved) after. */
    available: p.integer(),
    /** The order a fulfilment consumed stock for. */
    orderId: p.uuid().nullable(),
    /** The token kind that made it (`admin`, `customer`, ...), or `system` outside a request. */
    actorKind: p.string(),
    actorTokenId: p.uuid().nullable(),
    createdAt: p.datetime(),
  },
});
export type StockAdjustment = InferEntity<typeof StockAdjustment>;
