import { listQuery, Timestamp, Uuid } from '@qhatu/core';
import { z } from 'zod';
import { SHIPMENT_STATUSES, TRACKING_STATUSES } from '../entities/shipment.js';
import { ShippingAddressInput, ShippingAddressOut } from './address.js';
import { SideCm, WeightG } from './parcel.js';
import { Code } from './rate.js';

export const ShipmentCreate = z
  .strictObject({
    order_id: Uuid,
    fulfillment_id: Uuid.optional().meta({
      description:
        "The order's fulfilment this parcel carries; absent, it is found when the shipment is delivered (same tracking number, the order's only undelivered fulfilment, or, none open, one made of everything left to ship)",
    }),
    carrier: Code.meta({ example: 'olva' }),
    service_code: Code.meta({ example: 'express' }),
    weight_g: WeightG,
    length_cm: SideCm,
    width_cm: SideCm,
    height_cm: SideCm,
    origin_address: ShippingAddressInput,
    destination_address: ShippingAddressInput,
  })
  .meta({ id: 'ShipmentCreate' });
export type ShipmentCreate = z.output<typeof ShipmentCreate>;

export const LabelInput = z
  .strictObject({
    tracking_number: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9][A-Za-z0-9 ._/-]{0,99}$/, 'must be 1 to 100 letters, digits, spaces, dots, dashes, slashes or underscores')
      .meta({ example: 'OLVA-000123' }),
    label_url: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).max(2048).meta({ example: 'https://labels.example.com/OLVA-000123.pdf' }),
  })
  .meta({ id: 'ShipmentLabel' });
export type LabelInput = z.output<typeof LabelInput>;

export const TrackingInput = z
  .strictObject({
    status: z.enum(TRACKING_STATUSES).meta({
      description:
        'pre_transit and exception are recorded only; in_transit, out_for_delivery and available_for_pickup make the shipment shipped; ' +
        'delivered makes it delivered; return_to_sender and failure make it failed. Only the newest event (by timestamp) moves the shipment',
    }),
    location: z.string().trim().max(300).nullish().transform((s) => (s ? s : null)),
    description: z.string().trim().max(2000).nullish().transform((s) => (s ? s : null)),
    timestamp: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date and time, e.g. 2026-11-24T15:04:05Z' }),
  })
  .meta({ id: 'ShipmentTrackingEvent' });
export type TrackingInput = z.output<typeof TrackingInput>;

export const DeliveryInput = z
  .strictObject({
    fulfillment_id: Uuid.optional().meta({ description: "The order's fulfilment this parcel carries, when the shipment names none and the order has several open" }),
  })
  .meta({ id: 'ShipmentDelivery' });
export type DeliveryInput = z.output<typeof DeliveryInput>;

export const FailureInput = z.strictObject({ reason: z.string().trim().min(1, 'must not be empty').max(2000) }).meta({ id: 'ShipmentFailure' });
export type FailureInput = z.output<typeof FailureInput>;

export const TrackingEventOut = z
  .object({ status: z.enum(TRACKING_STATUSES), location: z.string().nullable(), description: z.string().nullable(), timestamp: Timestamp })
  .meta({ id: 'ShipmentTrackingEventOut' });

export const ShipmentOut = z
  .object({
    id: z.uuid(),
    tenant_id: z.uuid(),
    order_id: z.uuid(),
    fulfillment_id: z.uuid().nullable(),
    carrier: z.string(),
    service_code: z.string(),
    status: z.enum(SHIPMENT_STATUSES),
    origin_address: ShippingAddressOut,
    destination_address: ShippingAddressOut,
    weight_g: z.number().int(),
    dimensions: z.object({ length_cm: z.number().int(), width_cm: z.number().int(), height_cm: z.number().int() }),
    tracking_number: z.string().nullable(),
    label_url: z.string().nullable(),
    events: z.array(TrackingEventOut).meta({ description: 'Tracking history, oldest first (by timestamp)' }),
    failure_reason: z.string().nullable(),
    delivered_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Shipment' });

export const ShipmentListQuery = listQuery({
  filters: { order_id: Uuid, status: z.enum(SHIPMENT_STATUSES), tracking_number: z.string().trim().min(1).max(100) },
  sorts: ['created_at'],
  defaultSort: '-created_at',
});
export type ShipmentListQuery = z.output<typeof ShipmentListQuery>;
