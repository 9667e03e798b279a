import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const FULFILLMENT_STATUSES = ['shipped', 'delivered'] as const;
export type FulfillmentStatus = (typeof FULFILLMENT_STATUSES)[number];

export interface FulfillmentItem {
  /** Null for a replacement item: it is not one of the order's lines. */
  line_item_id: string | null;
  /** Null for a custom line (no catalog variant). */
  variant_id: string | null;
  title: string;
  quantity: number;
  /** The return (an exchange's new items, a claim's replacement) the item ships for; null (absent in older rows) for the order's own lines. */
  return_id?: string | null;
}

/** A replacement shipment: its items are a return's, not the order's lines (decision 0087). */
export const isReplacement = (f: { items: FulfillmentItem[] }): boolean => f.items.some((i) => Boolean(i.return_id));

/** One shipment of some or all of an order's items, or of a return's replacement items. */
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
