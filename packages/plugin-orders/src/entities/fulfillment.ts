import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const FULFILLMENT_STATUSES = ['shipped', 'delivered'] as const;
export type FulfillmentStatus = (typeof FULFILLMENT_STATUSES)[number];

export interface FulfillmentItem {
  line_item_id: string;
  /** Null for a custom line (no catalog variant). */
  variant_id: string | null;
  title: string;
  quantity: number;
}

/** One shipment of some or all of an order's items. */
export const Fulfillment = defineEntity({
  name: 'OrderFulfillment',
  tableName: 'orders_fulfillment',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    orderId: p.uuid(),
    status: p.string().$type<FulfillmentStatus>(),
    carrier: p.string().nullable(),
    trackingNumber: p.string().nullable(),
    trackingUrl: p.string().nullable(),
    estimatedDelivery: p.datetime().nullable(),
    items: p.json<FulfillmentItem[]>(),
    shippedAt: p.datetime(),
    deliveredAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Fulfillment = InferEntity<typeof Fulfillment>;
