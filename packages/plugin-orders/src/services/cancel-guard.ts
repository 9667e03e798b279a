import type { Tx } from '@qhatu/core';
import type { DependencyContainer } from 'tsyringe';
import type { Order } from '../entities/order.js';

/**
 * A check run by `Orders.cancel` (and so by a checkout's abandon) once the order is locked and
 * before anything changes: it refuses by throwing an AppError, whose answer reaches the caller.
 * Register one with `container.register(ORDER_CANCEL_GUARD, { useValue: guard })`.
 */
export interface OrderCancelGuard {
  check(tx: Tx, order: Order): Promise<void> | void;
}

export const ORDER_CANCEL_GUARD = 'qhatu.orders.cancel-guard';

/** Resolves the registered guards when a cancel runs, so a plugin registered after orders counts. */
export const ORDER_CANCEL_GUARDS = Symbol.for('qhatu.orders.cancel-guards');
export type CancelGuards = () => OrderCancelGuard[];

export function cancelGuardsOf(container: DependencyContainer): CancelGuards {
  return () => (container.isRegistered(ORDER_CANCEL_GUARD, true) ? container.resolveAll<OrderCancelGuard>(ORDER_CANCEL_GUARD) : []);
}
