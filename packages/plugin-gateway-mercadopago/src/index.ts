import { definePlugin } from '@qhatu/core';
import { PAYMENT_GATEWAY } from '@qhatu/plugin-payments';
import { mercadoPagoGateway } from './gateway.js';

export { mercadoPagoGateway, chargeResult, toMajor, MERCADOPAGO_CURRENCIES } from './gateway.js';
export { manifest, parseSignatureHeader, signatureHeader, verifySignature, TOLERANCE_SECONDS } from './signature.js';

/** Gateway 3: Mercado Pago. Notifications at POST /webhooks/mercadopago/<tenant id>. */
export default definePlugin({
  name: 'mercadopago',
  dependsOn: ['payments'],
  register(container) {
    container.register(PAYMENT_GATEWAY, { useValue: mercadoPagoGateway });
  },
});
