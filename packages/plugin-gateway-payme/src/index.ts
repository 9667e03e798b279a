import { definePlugin } from '@qhatu/core';
import { PAYMENT_GATEWAY } from '@qhatu/plugin-payments';
import { paymeGateway } from './gateway.js';

export { paymeGateway, WHOLE_OPERATION_ONLY } from './gateway.js';
export { ALG_API_VERSION, authBaseUrl, TOKEN_SCOPE } from './client.js';
export { parseProviderPaymentId, PAYME_CURRENCIES, paymeAmount, providerPaymentId, transactionResult } from './operation.js';
export { alignetKey, verifySignature } from './signature.js';

/** Gateway 6: Pay-me by Alignet. Sessions open Pay-me Flex; notifications at POST /webhooks/payme/<tenant id>. */
export default definePlugin({
  name: 'payme',
  dependsOn: ['payments'],
  register(container) {
    container.register(PAYMENT_GATEWAY, { useValue: paymeGateway });
  },
});
