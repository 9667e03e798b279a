import { defineMachine } from '@qhatu/core';
import { SHIPMENT_STATUSES, type Shipment, type ShipmentStatus, type TrackingStatus } from '../entities/shipment.js';

export const SHIPMENT_EVENTS = [
  'shipping.shipment.created',
  'shipping.shipment.label_generated',
  'shipping.shipment.shipped',
  'shipping.shipment.delivered',
  'shipping.shipment.failed',
  'shipping.shipment.tracking_updated',
] as const;

/** What shipment events carry. */
export function shipmentEvent(s: Shipment) {
  return {
    id: s.id,
    order_id: s.orderId,
    fulfillment_id: s.fulfillmentId ?? null,
    carrier: s.carrier,
    service_code: s.serviceCode,
    status: s.status,
    tracking_number: s.trackingNumber ?? null,
    label_url: s.labelUrl ?? null,
    failure_reason: s.failureReason ?? null,
    delivered_at: s.deliveredAt ? s.deliveredAt.toISOString() : null,
    updated_at: s.updatedAt.toISOString(),
  };
}

/** Every state but the final one. */
export const OPEN: ShipmentStatus[] = ['pending', 'label_generated', 'shipped', 'failed'];

/**
 * A shipment: created `pending`; `delivered` is final (no label, tracking or failure after it).
 * The specification allows label, delivered and failed from any state; tracking events move it
 * to `shipped`, `delivered` or `failed` (see `TRACKING_MOVES`).
 */
export const shipmentMachine = defineMachine<Shipment, ShipmentStatus>({
  name: 'shipment',
  field: 'status',
  states: SHIPMENT_STATUSES,
  transitions: {
    label: { from: OPEN, to: 'label_generated', event: 'shipping.shipment.label_generated' },
    // A tracking event says the parcel is moving (also after a failure: it was found, or resent).
    ship: { from: ['pending', 'label_generated', 'failed'], to: 'shipped', event: 'shipping.shipment.shipped' },
    deliver: { from: OPEN, to: 'delivered', event: 'shipping.shipment.delivered' },
    fail: { from: OPEN, to: 'failed', event: 'shipping.shipment.failed' },
  },
  eventData: shipmentEvent,
});

/** The move the newest tracking event makes; absent: the event is recorded only. */
export const TRACKING_MOVES: Partial<Record<TrackingStatus, { action: string; to: ShipmentStatus }>> = {
  in_transit: { action: 'ship', to: 'shipped' },
  out_for_delivery: { action: 'ship', to: 'shipped' },
  available_for_pickup: { action: 'ship', to: 'shipped' },
  delivered: { action: 'deliver', to: 'delivered' },
  return_to_sender: { action: 'fail', to: 'failed' },
  failure: { action: 'fail', to: 'failed' },
};
