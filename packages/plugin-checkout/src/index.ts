import { CONFIG, definePlugin, Jobs, OutboxRelay, type QhatuConfig } from '@qhatu/core';
import { Cart } from './entities/cart.js';
import { CartItem } from './entities/cart-item.js';
import { Checkout } from './entities/checkout.js';
import { cartGraphQL } from './graphql/cart.js';
import { checkoutMachine } from './machines/checkout.js';
import { checkoutMigration } from './migrations/0001_checkout.js';
import { checkoutOrderMigration } from './migrations/0002_checkout_order.js';
import { checkoutTaxesMigration } from './migrations/0003_taxes.js';
import { checkoutOffersMigration } from './migrations/0004_offers.js';
import { checkoutHoldsMigration } from './migrations/0005_holds.js';
import { checkoutCustomFieldsMigration } from './migrations/0006_custom_fields.js';
import { checkoutMarketsMigration } from './migrations/0007_markets.js';
import { cartRoutes } from './routes/carts.js';
import { checkoutRoutes } from './routes/checkouts.js';
import { CHECKOUT_ABANDONED_HOOK, CHECKOUT_ABANDONED_HOOKS, type CheckoutAbandonedHook } from './services/abandonment.js';
import { CART_EVENTS, Carts } from './services/carts.js';
import { CHECKOUT_EVENTS, Checkouts } from './services/checkouts.js';
import { CHECKOUT_PAYMENT_MISMATCH, CheckoutCompletion, type OrderPaid } from './services/completion.js';
import { CheckoutHolds, HOLD_SWEEP_JOB } from './services/holds.js';
import { CartPricing } from './services/pricing.js';
import { CHECKOUT_SETTINGS, readSettings, type CheckoutSettings } from './services/settings.js';

export { Cart } from './entities/cart.js';
export { CartItem } from './entities/cart-item.js';
export { Checkout, CHECKOUT_STATUSES, type CheckoutStatus, type CheckoutAddress, type CheckoutLine, type ShippingRate } from './entities/checkout.js';
export { checkoutMachine } from './machines/checkout.js';
export { CHECKOUT_ABANDONED_HOOK, type CheckoutAbandonedHook } from './services/abandonment.js';
export { Carts, type Shopper } from './services/carts.js';
export { cartOut, type CartView } from './services/views.js';
export { CartOut } from './schemas/cart.js';
export { Checkouts } from './services/checkouts.js';
export { CheckoutCompletion, CHECKOUT_PAYMENT_MISMATCH, type OrderPaid } from './services/completion.js';
export { CheckoutHolds, HOLD_SWEEP_JOB, type HoldSweepResult } from './services/holds.js';
export { CartPricing } from './services/pricing.js';
export { CHECKOUT_SETTINGS, type CheckoutSettings } from './services/settings.js';

export const ORDER_PAID_EVENT = 'orders.order.paid';
export const CHECKOUT_ORDER_PAID_JOB = 'checkout.order-paid';

/** Cart and checkout: carts priced by the catalog with coupons and volume discounts, and the checkout steps. */
export default definePlugin({
  name: 'checkout',
  dependsOn: ['catalog', 'customers', 'discounts', 'orders'],
  entities: [Cart, CartItem, Checkout],
  migrations: [checkoutMigration, checkoutOrderMigration, checkoutTaxesMigration, checkoutOffersMigration, checkoutHoldsMigration, checkoutCustomFieldsMigration, checkoutMarketsMigration],
  // Other plugins and the project add fields to carts (`customFields: { cart: {...} }`); an order's field of the same name takes the cart's value.
  customFieldHosts: [{ entity: 'cart', table: 'checkout_cart', graphqlType: 'Cart', carriesTo: 'order' }],
  machines: [checkoutMachine],
  events: [...CART_EVENTS, ...CHECKOUT_EVENTS, CHECKOUT_PAYMENT_MISMATCH],
  register(container) {
    container.register(CHECKOUT_SETTINGS, { useFactory: (c) => readSettings(c.resolve<QhatuConfig>(CONFIG)) });
    container.register(CHECKOUT_ABANDONED_HOOKS, {
      useFactory: (c) => (c.isRegistered(CHECKOUT_ABANDONED_HOOK, true) ? c.resolveAll<CheckoutAbandonedHook>(CHECKOUT_ABANDONED_HOOK) : []),
    });
    container.registerSingleton(CartPricing);
    container.registerSingleton(Carts);
    container.registerSingleton(Checkouts);
    container.registerSingleton(CheckoutCompletion);
    container.registerSingleton(CheckoutHolds);
  },
  onReady({ container }) {
    // An order paid in full (and holding its stock) completes its checkout, in a job the relay queues.
    container.resolve(OutboxRelay).queueOn(ORDER_PAID_EVENT, CHECKOUT_ORDER_PAID_JOB);
  },
  jobs: {
    [CHECKOUT_ORDER_PAID_JOB]: {
      handler: (data: OrderPaid, { container }) => container.resolve(CheckoutCompletion).orderPaid(data).then(() => undefined),
      attempts: 5,
      backoffMs: 2000,
    },
    // Unpaid checkouts whose hold on stock ran out, every store in one run (decision 0059).
    [HOLD_SWEEP_JOB]: {
      handler: (_data: unknown, { container, log }) =>
        container.resolve(CheckoutHolds).sweep((err, row) => log.info({ err, tenantId: row.tenant_id, checkoutId: row.id }, 'checkout hold kept for now')),
      attempts: 1,
    },
  },
  // One queued run per interval slot, however many worker processes there are.
  background: ({ container }) => container.resolve(Jobs).every(HOLD_SWEEP_JOB, container.resolve<CheckoutSettings>(CHECKOUT_SETTINGS).holdSweepMs),
  routes: async (app, { container }) => {
    await cartRoutes(app, container);
    await checkoutRoutes(app, container);
  },
  graphql: cartGraphQL,
});
