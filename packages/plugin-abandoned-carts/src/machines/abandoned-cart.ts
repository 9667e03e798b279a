import { defineMachine } from '@qhatu/core';
import { ABANDONED_CART_STATUSES, type AbandonedCart, type AbandonedCartStatus } from '../entities/abandoned-cart.js';

export const ABANDONED_CART_REMINDED = 'abandoned-carts.cart.reminded';
export const ABANDONED_CART_RECOVERED = 'abandoned-carts.cart.recovered';

/**
 * abandoned → reminded → recovered. A reminder may be sent again (reminded → reminded, counted);
 * recover works from abandoned and from reminded; recovered is final.
 */
export const abandonedCartMachine = defineMachine<AbandonedCart, AbandonedCartStatus>({
  name: 'abandoned cart',
  field: 'status',
  states: ABANDONED_CART_STATUSES,
  transitions: {
    remind: { from: ['abandoned', 'reminded'], to: 'reminded', event: ABANDONED_CART_REMINDED },
    recover: { from: ['abandoned', 'reminded'], to: 'recovered', event: ABANDONED_CART_RECOVERED },
  },
  eventData: (c) => ({
    id: c.id,
    cart_id: c.cartId,
    checkout_id: c.checkoutId,
    customer_id: c.customerId,
    status: c.status,
    currency: c.currency,
    value_cents: c.valueCents,
    reminder_count: c.reminderCount,
    recovered_by: c.recoveredBy,
    recovered_value_cents: c.recoveredValueCents,
  }),
});
