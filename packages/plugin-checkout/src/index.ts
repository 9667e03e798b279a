import { CONFIG, definePlugin, type QhatuConfig } from '@qhatu/core';
import { Cart } from './entities/cart.js';
import { CartItem } from './entities/cart-item.js';
import { Checkout } from './entities/checkout.js';
import { cartGraphQL } from './graphql/cart.js';
import { checkoutMachine } from './machines/checkout.js';
import { checkoutMigration } from './migrations/0001_checkout.js';
import { cartRoutes } from './routes/carts.js';
import { checkoutRoutes } from './routes/checkouts.js';
import { CART_EVENTS, Carts } from './services/carts.js';
import { CHECKOUT_EVENTS, Checkouts } from './services/checkouts.js';
import { CartPricing } from './services/pricing.js';
import { CHECKOUT_SETTINGS, readSettings } from './services/settings.js';

export { Cart } from './entities/cart.js';
export { CartItem } from './entities/cart-item.js';
export { Checkout, CHECKOUT_STATUSES, type CheckoutStatus, type CheckoutAddress, type CheckoutLine, type ShippingRate } from './entities/checkout.js';
export { checkoutMachine } from './machines/checkout.js';
export { Carts, type Shopper } from './services/carts.js';
export { Checkouts } from './services/checkouts.js';
export { CartPricing } from './services/pricing.js';
export { CHECKOUT_SETTINGS, type CheckoutSettings } from './services/settings.js';

/** Cart and checkout: carts priced by the catalog with coupons and volume discounts, and the checkout steps. */
export default definePlugin({
  name: 'checkout',
  dependsOn: ['catalog', 'discounts'],
  entities: [Cart, CartItem, Checkout],
  migrations: [checkoutMigration],
  machines: [checkoutMachine],
  events: [...CART_EVENTS, ...CHECKOUT_EVENTS],
  register(container) {
    container.register(CHECKOUT_SETTINGS, { useFactory: (c) => readSettings(c.resolve<QhatuConfig>(CONFIG)) });
    container.registerSingleton(CartPricing);
    container.registerSingleton(Carts);
    container.registerSingleton(Checkouts);
  },
  routes: async (app, { container }) => {
    await cartRoutes(app, container);
    await checkoutRoutes(app, container);
  },
  graphql: cartGraphQL,
});
