import type { SqlTx, Tx } from '@qhatu/core';
import type { Fulfillment } from '../entities/fulfillment.js';
import type { LineItem } from '../entities/line-item.js';
import type { Order, OrderStatus } from '../entities/order.js';

/** Every event type this plugin publishes. */
export const ORDER_EVENTS = [
  'orders.order.created',
  'orders.order.confirmed',
  'orders.order.paid',
  'orders.order.stock_shortage',
  'orders.order.stock_unavailable',
  'orders.order.payment_mismatch',
  'orders.order.ready_to_ship',
  'orders.order.ready_to_ship_reverted',
  'orders.order.in_transit',
  'orders.order.partially_fulfilled',
  'orders.order.fulfilled',
  'orders.order.cancelled',
  'orders.order.refunded',
  'orders.order.payment_due',
  'orders.fulfillment.created',
  'orders.fulfillment.delivered',
] as const;

/** The event each machine action publishes. */
export const ACTION_EVENTS: Record<string, (typeof ORDER_EVENTS)[number]> = {
  confirm: 'orders.order.confirmed',
  pay: 'orders.order.paid',
  ready_to_ship: 'orders.order.ready_to_ship',
  undo_ready_to_ship: 'orders.order.ready_to_ship_reverted',
  hand_to_courier: 'orders.order.in_transit',
  deliver: 'orders.order.fulfilled',
  fulfill_partially: 'orders.order.partially_fulfilled',
  fulfill: 'orders.order.fulfilled',
  cancel: 'orders.order.cancelled',
  refund: 'orders.order.refunded',
  reopen_payment: 'orders.order.payment_due',
};

/** The specification's orders.order.created: exactly these fields. */
export function publishCreated(tx: Tx | SqlTx, order: Order, lines: LineItem[]): void {
  tx.publish('orders.order.created', {
    id: order.id,
    status: order.status,
    total: order.total,
    currency: order.currency,
    customer: { email: order.customerEmail, name: order.customerName || null },
    items: lines.map((l) => ({ sku: l.sku, name: l.title, qty: l.quantity, price: l.unitPriceAmount })),
    created_at: order.createdAt.toISOString(),
  });
}

/** The specification's orders.order.fulfilled: exactly these fields; tracking from the shipment that completed it. */
export function publishFulfilled(tx: Tx, order: Order, shipment: Fulfillment | null): void {
  tx.publish('orders.order.fulfilled', {
    id: order.id,
    status: order.status,
    tracking_number: shipment?.trackingNumber ?? null,
    carrier: shipment?.carrier ?? null,
    fulfilled_at: (order.fulfilledAt ?? tx.now()).toISOString(),
  });
}

/** Any other move of the order. */
export function publishMove(tx: Tx, type: string, order: Order, from: OrderStatus, note: string | null): void {
  tx.publish(type, {
    id: order.id,
    number: order.number,
    status: order.status,
    previous_status: from,
    note,
    updated_at: order.updatedAt.toISOString(),
  });
}

export function publishFulfillment(tx: Tx, type: 'orders.fulfillment.created' | 'orders.fulfillment.delivered', f: Fulfillment): void {
  tx.publish(type, {
    id: f.id,
    order_id: f.orderId,
    status: f.status,
    carrier: f.carrier,
    tracking_number: f.trackingNumber,
    items: f.items.map((i) => ({ variant_id: i.variant_id, quantity: i.quantity, return_id: i.return_id ?? null })),
    ...(type === 'orders.fulfillment.delivered' ? { delivered_at: f.deliveredAt?.toISOString() ?? null } : { shipped_at: f.shippedAt.toISOString() }),
  });
}
