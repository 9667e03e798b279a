import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** Units of one variant held in one warehouse for one order until fulfilled or released. */
export const StockReservation = defineEntity({
  name: 'StockReservation',
  tableName: 'inventory_reservation',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    orderId: p.uuid(),
    warehouseId: p.uuid(),
    variantId: p.uuid(),
    /** Still held. */
    quantity: p.integer(),
    consumedQuantity: p.integer(),
    releasedQuantity: p.integer(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type StockReservation = InferEntity<typeof StockReservation>;
