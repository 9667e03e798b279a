import { defineMachine } from '@qhatu/core';
import { CHECKOUT_STATUSES, type Checkout, type CheckoutStatus } from '../entities/checkout.js';
import { checkoutEvent } from '../services/views.js';

export const CHECKOUT_UPDATED = 'checkout.checkout.updated';
export const CHECKOUT_ABANDONED = 'checkout.checkout.abandoned';
export const CHECKOUT_COMPLETED = 'checkout.checkout.completed';

const OPEN: CheckoutStatus[] = ['pending', 'shipping_set', 'payment_pending'];

/**
 * The checkout's steps. The specification leaves the moves into shipping_set and payment_pending
 * open: addresses without a shipping rate give `shipping_set`; addresses with a rate make the
 * total final, and the checkout then awaits payment (`payment_pending`). The shipping step may be
 * sent again until an order is placed (entering payment_pending places it; the service then
 * refuses further shipping changes with 409 CHECKOUT_ORDER_PLACED). `complete` follows that
 * order being paid. `completed` and `abandoned` are final.
 */
export const checkoutMachine = defineMachine<Checkout, CheckoutStatus>({
  name: 'checkout',
  field: 'status',
  states: CHECKOUT_STATUSES,
  transitions: {
    set_addresses: { from: OPEN, to: 'shipping_set', event: CHECKOUT_UPDATED },
    await_payment: { from: OPEN, to: 'payment_pending', event: CHECKOUT_UPDATED },
    abandon: { from: OPEN, to: 'abandoned', event: CHECKOUT_ABANDONED },
    complete: { from: ['payment_pending'], to: 'completed', event: CHECKOUT_COMPLETED },
  },
  eventData: checkoutEvent,
});
