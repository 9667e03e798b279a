import { definePlugin } from '@qhatu/core';
import { PAYMENT_GATEWAY } from '@qhatu/plugin-payments';
import { niubizGateway } from './gateway.js';

export { niubizGateway, externalReferenceId, NIUBIZ_CURRENCIES, NIUBIZ_REFUND_COMMENTS } from './gateway.js';
export { toDecimal } from './amounts.js';

/** Gateway 4: Niubiz Pago Web. The checkout form posts back to POST /webhooks/niubiz/<tenant id>?session=<id>. */
export default definePlugin({
  name: 'niubiz',
  dependsOn: ['payments'],
  register(container) {
    container.register(PAYMENT_GATEWAY, { useValue: niubizGateway });
  },
});
