import { definePlugin } from '@qhatu/core';
import { PAYMENT_GATEWAY } from '@qhatu/plugin-payments';
import { izipayGateway } from './gateway.js';

export { izipayGateway, mismatch, IZIPAY_CURRENCIES } from './gateway.js';
export { basicAuth, errorReason, lyra, type LyraError, type LyraPayment, type LyraTransaction } from './lyra.js';
export { HASH_ALGORITHM, HASH_KEYS, krHash, readKrPost, verifyKrHash, verifyKrPost, type KrPost } from './signature.js';
export { chargeResult, methodOf, readKrAnswer, refundResult, refusal, verdict } from './transactions.js';

/** Gateway 5: Izipay (Lyra Krypton REST V4). Notifications (IPN) at POST /webhooks/izipay/<tenant id>. */
export default definePlugin({
  name: 'izipay',
  dependsOn: ['payments'],
  register(container) {
    container.register(PAYMENT_GATEWAY, { useValue: izipayGateway });
  },
});
