import { definePlugin } from '@qhatu/core';
import { PAYMENT_GATEWAY } from '@qhatu/plugin-payments';
import { paypalGateway } from './gateway.js';

export { paypalGateway, PAYPAL_REFUND_NOTES } from './gateway.js';
export { PAYPAL_CURRENCIES, toPayPalValue, fromPayPalValue } from './money.js';
export { orderResult, sessionCustomId, boundSession, type PayPalOrder } from './orders.js';
export { verifyWebhook, parseWebhook, TRANSMISSION_HEADERS } from './webhooks.js';

/** Gateway 7: PayPal. Webhooks at POST /webhooks/paypal/<tenant id>; payment sessions open PayPal orders. */
export default definePlugin({
  name: 'paypal',
  dependsOn: ['payments'],
  register(container) {
    container.register(PAYMENT_GATEWAY, { useValue: paypalGateway });
  },
});
