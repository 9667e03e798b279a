import { LockMode } from '@mikro-orm/core';
import { AppError, type Tx } from '@qhatu/core';
import type { Fulfillment } from '../entities/fulfillment.js';
import { LineItem } from '../entities/line-item.js';
import { Order } from '../entities/order.js';
import { orderMachine } from '../machines/order.js';
import { ACTION_EVENTS, publishFulfilled, publishMove } from './events.js';

export const orderNotFound = () => AppError.notFound('Order', 'ORDER_NOT_FOUND');

/** The order, locked for this transaction (every change of an order starts here), or 404. */
export async function lockOrder(tx: Tx, id: string): Promise<Order> {
  const order = await tx.em.findOne(Order, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!order) throw orderNotFound();
  return order;
}

export async function linesOf(tx: Tx, orderId: string): Promise<LineItem[]> {
  return tx.em.find(LineItem, { orderId }, { orderBy: { position: 'asc' } });
}

/** 409 INVALID_STATE_TRANSITION unless `action` is allowed now (checked before any stock moves). */
export function assertCan(order: Order, action: string): void {
  if (orderMachine.can(order, action)) return;
  const t = orderMachine.transitions[action];
  const allowed = t.from === '*' ? 'any state' : t.from.join(', ');
  throw new AppError(409, 'INVALID_STATE_TRANSITION', `Cannot ${action.replace(/_/g, ' ')} an order that is ${order.status}`, [
    { message: `allowed from: ${allowed}`, from: order.status, action },
  ]);
}

/** A note in the order's history; the status stays. */
export function addHistoryNote(tx: Tx, order: Order, note: string): Order {
  const at = tx.now();
  order.history = [...order.history, { action: 'note', from: order.status, to: order.status, note, at: at.toISOString() }];
  order.updatedAt = at;
  return order;
}

/**
 * Moves the order by `action` through the machine, records the move in its history and publishes
 * the move's event (orders.order.fulfilled with the shipment that completed the order).
 */
export async function move(tx: Tx, order: Order, action: string, note: string | null = null, shipment: Fulfillment | null = null): Promise<Order> {
  const from = order.status;
  await orderMachine.apply(tx, order, action);
  const at = tx.now();
  order.history = [...order.history, { action, from, to: order.status, note, at: at.toISOString() }];
  order.updatedAt = at;
  if (order.status === 'paid' && !order.paidAt) order.paidAt = at;
  if (order.status === 'fulfilled') order.fulfilledAt = at;
  if (order.status === 'cancelled') {
    order.cancelledAt = at;
    order.cancelReason = note;
  }
  if (order.status === 'fulfilled') publishFulfilled(tx, order, shipment);
  else if (from !== order.status) publishMove(tx, ACTION_EVENTS[action], order, from, note);
  return order;
}
