import { definePlugin } from '@qhatu/core';
import { PAYMENT_GATEWAY } from '@qhatu/plugin-payments';
import { culqiGateway } from './gateway.js';

export { culqiGateway, chargeResult, CULQI_CURRENCIES, CULQI_REFUND_REASONS } from './gateway.js';
export { basicAuthHeader, verifyBasicAuth } from './basic-auth.js';

/** Gateway 2: Culqi. Notifications at POST /webhooks/culqi/<tenant id>. */
export default definePlugin({
  name: 'culqi',
  dependsOn: ['payments'],
  register(container) {
    container.register(PAYMENT_GATEWAY, { useValue: culqiGateway });
  },
});
