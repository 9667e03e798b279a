import type { Tx } from '@qhatu/core';
import type { Checkout } from '../entities/checkout.js';

/**
 * An extension point: what another plugin does when a checkout is abandoned, inside the abandon
 * transaction (so it is done, or nothing is, by the time the answer goes out). Register any
 * number with `container.register(CHECKOUT_ABANDONED_HOOK, { useToken: MyService })`.
 */
export interface CheckoutAbandonedHook {
  checkoutAbandoned(tx: Tx, checkout: Checkout): Promise<void>;
}

export const CHECKOUT_ABANDONED_HOOK = Symbol.for('qhatu.checkout.abandoned-hook');
/** Every registered hook, resolved once the plugins are registered. */
export const CHECKOUT_ABANDONED_HOOKS = Symbol.for('qhatu.checkout.abandoned-hooks');
