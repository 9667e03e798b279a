import { definePlugin } from '@qhatu/core';
import { PAYMENT_GATEWAY } from '@qhatu/plugin-payments';
import { instanceCachingFactory } from 'tsyringe';
import { OfflineMethod } from './entities/method.js';
import { OfflinePayment } from './entities/offline-payment.js';
import { OfflineReceipt } from './entities/receipt.js';
import { OfflineGateway } from './gateway.js';
import { offlineGraphQL } from './graphql/offline.js';
import { offlineMigration } from './migrations/0001_offline.js';
import { methodRoutes } from './routes/methods.js';
import { receiptRoutes } from './routes/receipts.js';
import { OFFLINE_EVENTS } from './services/events.js';
import { OfflineMethods } from './services/methods.js';
import { OfflineReceipts } from './services/receipts.js';

export { OfflineGateway } from './gateway.js';
export { OfflineMethod, METHOD_KINDS, type MethodKind } from './entities/method.js';
export { OfflinePayment } from './entities/offline-payment.js';
export { OfflineReceipt } from './entities/receipt.js';
export { OfflineMethods, OFFLINE, type MethodFilter } from './services/methods.js';
export { OfflineReceipts, type OfflinePaymentView, type ReceiptFilter } from './services/receipts.js';
export * from './services/events.js';

/**
 * Offline payment methods (cash on delivery, bank transfer, wallets) as the gateway `offline`:
 * payments wait, pending, for the receipts the staff record. Its methods, receipts and offline
 * payments are served under /api/v1/payments/offline; payments themselves are the payments plugin's.
 */
export default definePlugin({
  name: 'offline',
  dependsOn: ['payments'],
  entities: [OfflineMethod, OfflinePayment, OfflineReceipt],
  migrations: [offlineMigration],
  events: OFFLINE_EVENTS,
  register(container) {
    container.registerSingleton(OfflineMethods);
    container.registerSingleton(OfflineReceipts);
    // The gateway reads the store's methods and receipts: built once, with the database, when payments first asks.
    container.register(PAYMENT_GATEWAY, { useFactory: instanceCachingFactory((c) => c.resolve(OfflineGateway)) });
  },
  routes: async (app, { container }) => {
    await methodRoutes(app, container);
    await receiptRoutes(app, container);
  },
  graphql: offlineGraphQL,
});
