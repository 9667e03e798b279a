import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** `draft` of the specification's create description is not used: a shipment is created `pending`. */
export const SHIPMENT_STATUSES = ['pending', 'label_generated', 'shipped', 'delivered', 'failed'] as const;
export type ShipmentStatus = (typeof SHIPMENT_STATUSES)[number];

/** What a carrier reports; the newest event sets the shipment's status (see `TRACKING_MOVES`). */
export const TRACKING_STATUSES = [
  'pre_transit',
  'in_transit',
  'out_for_delivery',
  'available_for_pickup',
  'exception',
  'delivered',
  'return_to_sender',
  'failure',
] as const;
export type TrackingStatus = (typeof TRACKING_STATUSES)[number];

export interface ShippingAddress {
  name: string;
  line1: string;
  line2: string | null;
  city: string;
  state: string | null;
  postal_code: string;
  /** ISO 3166-1 alpha-2, upper-case. */
  country: string;
  phone: string | null;
}

export interface TrackingEvent {
  status: TrackingStatus;
  location: string | null;
  description: string | null;
  /** ISO 8601 UTC. */
  timestamp: string;
}

/** A parcel of an order on its way: its label, its tracking history, its outcome. */
export const Shipment = defineEntity({
  name: 'Shipment',
  tableName: 'shipping_shipment',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    orderId: p.uuid(),
    /** The order's fulfilment this parcel carries: given on create, or found when it is delivered. */
    fulfillmentId: p.uuid().nullable(),
    carrier: p.string(),
    serviceCode: p.string(),
    status: p.string().$type<ShipmentStatus>(),
    originAddress: p.json<ShippingAddress>(),
    destinationAddress: p.json<ShippingAddress>(),
    weightG: p.integer(),
    lengthCm: p.integer(),
    widthCm: p.integer(),
    heightCm: p.integer(),
    trackingNumber: p.string().nullable(),
    labelUrl: p.string().nullable(),
    /** In timestamp order, oldest first. */
    events: p.json<TrackingEvent[]>(),
    failureReason: p.string().nullable(),
    deliveredAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Shipment = InferEntity<typeof Shipment>;
