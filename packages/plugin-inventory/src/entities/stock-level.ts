import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** What one warehouse holds of one variant: available = onHand − reserved, never negative. */
export const StockLevel = defineEntity({
  name: 'StockLevel',
  tableName: 'inventory_stock',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    warehouseId: p.uuid(),
    variantId: p.uuid(),
    onHand: p.integer(),
    reserved: p.integer(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type StockLevel = InferEntity<typeof StockLevel>;
