import { definePlugin } from '@qhatu/core';
import { PAYMENT_GATEWAY } from '@qhatu/plugin-payments';
import { stripeGateway } from './gateway.js';

export { stripeGateway, intentResult } from './gateway.js';
export { STRIPE_CURRENCIES } from './currencies.js';
export { signStripePayload, verifyStripeSignature, TOLERANCE_SECONDS } from './signature.js';

/** Gateway 1: Stripe. Notifications at POST /webhooks/stripe/<tenant id>. */
export default definePlugin({
  name: 'stripe',
  dependsOn: ['payments'],
  register(container) {
    container.register(PAYMENT_GATEWAY, { useValue: stripeGateway });
  },
});
