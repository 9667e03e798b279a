import { defineMachine } from '@qhatu/core';
import { ORDER_STATUSES, type Order, type OrderStatus } from '../entities/order.js';

/** States from which an order may still ship (ARCHITECTURE: not cancelled, refunded or fulfilled). */
export const SHIPPABLE: readonly OrderStatus[] = ['pending', 'confirmed', 'paid', 'ready_to_ship', 'in_transit', 'partially_fulfilled'];

/**
 * The order lifecycle. Events are published by the `Orders` service (their data differs per type),
 * so the transitions carry none.
 */
export const orderMachine = defineMachine<Order, OrderStatus>({
  name: 'order',
  field: 'status',
  states: ORDER_STATUSES,
  transitions: {
    // payments.payment.confirmed
    confirm: { from: ['pending'], to: 'confirmed' },
    // payment verified and stock reserved
    pay: { from: ['confirmed'], to: 'paid' },
    ready_to_ship: { from: ['paid'], to: 'ready_to_ship' },
    // operator reversal: a problem was found
    undo_ready_to_ship: { from: ['ready_to_ship'], to: 'paid' },
    // handed to the courier
    hand_to_courier: { from: ['ready_to_ship'], to: 'in_transit' },
    // delivery confirmed (in_transit), or direct delivery without courier (paid)
    deliver: { from: ['paid', 'in_transit'], to: 'fulfilled' },
    fulfill_partially: { from: SHIPPABLE.filter((s) => s !== 'in_transit'), to: 'partially_fulfilled' },
    fulfill: { from: SHIPPABLE, to: 'fulfilled' },
    cancel: { from: ['pending', 'confirmed', 'paid'], to: 'cancelled' },
    // an edit made it cost more than its payments cover (order-edits): it awaits the difference
    reopen_payment: { from: ['confirmed', 'paid', 'ready_to_ship', 'partially_fulfilled'], to: 'pending' },
    // set by the payments plugin through `Orders.markRefunded`
    refund: { from: ['confirmed', 'paid', 'ready_to_ship', 'in_transit', 'partially_fulfilled', 'fulfilled', 'cancelled'], to: 'refunded' },
  },
});
