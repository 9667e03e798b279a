import { definePlugin, OutboxRelay } from '@qhatu/core';
import { RETURNED_LINES } from '@qhatu/plugin-marketplace';
import { ReturnReason } from './entities/reason.js';
import { Return, ReturnLine } from './entities/return.js';
import { ReturnSettings } from './entities/settings.js';
import { returnGraphQL } from './graphql/returns.js';
import { RETURN_EVENTS, RETURN_REFUNDED, returnMachine } from './machines/return.js';
import { returnsMigration } from './migrations/0001_returns.js';
import { accountRefundsMigration } from './migrations/0002_account_refunds.js';
import { returnSearchMigration } from './migrations/0003_search.js';
import { returnRoutes } from './routes/returns.js';
import { ACCOUNT_REFUNDS, accountRefundsOf } from './services/account-credit.js';
import { NOTIFIED_EVENTS, RETURN_MAILS, ReturnNotices } from './services/notices.js';
import { ReturnPaymentLinks } from './services/payment-links.js';
import { PAYMENT_REFUNDER, paymentRefunderOf } from './services/payment-refunds.js';
import { ReturnReads } from './services/reads.js';
import { ReturnReasons } from './services/reasons.js';
import { ReturnReceipts } from './services/receipts.js';
import { ReturnRequests } from './services/requests.js';
import { OrderReturnedLines } from './services/returned-lines.js';
import { StoreReturnSettings } from './services/settings.js';
import { ReturnSettlement } from './services/settlement.js';
import { STORE_CREDIT_GRANTS, storeCreditOf } from './services/store-credit.js';

export { Return, ReturnLine, RETURN_KINDS, RETURN_STATUSES, CLAIM_TYPES, CLAIM_RESOLUTIONS, REFUND_METHODS, type ReturnKind, type ReturnStatus, type RefundMethod } from './entities/return.js';
export { ReturnReason } from './entities/reason.js';
export { ReturnSettings, SHIPPING_REFUND_POLICIES, type ShippingRefundPolicy } from './entities/settings.js';
export { returnMachine, RETURN_EVENTS } from './machines/return.js';
export { ReturnRequests } from './services/requests.js';
export { ReturnReceipts } from './services/receipts.js';
export { ReturnSettlement } from './services/settlement.js';
export { ReturnReads, type ReturnView, type ReturnFilter } from './services/reads.js';
export { lineRefund, shippingRefund, nextShare } from './services/amounts.js';
export { returnOut } from './routes/serialize.js';

export const SEND_REFUNDS_JOB = 'returns.send-refunds';
/** The job that e-mails the customer about one step (`returns.notify-requested`, ...). */
export const notifyJob = (event: string) => `returns.notify-${event.split('.').pop()}`;

/**
 * Returns, exchanges and claims: customers and staff ask to send fulfilled items back (or swap them,
 * or claim missing and damaged ones); staff approve, receive them into stock or write them off,
 * and refund what each line was paid through the order's payments, as store credit, or to the
 * company's account of an order placed on account.
 */
export default definePlugin({
  name: 'returns',
  dependsOn: ['catalog', 'customers', 'inventory', 'orders'],
  entities: [Return, ReturnLine, ReturnReason, ReturnSettings],
  migrations: [returnsMigration, accountRefundsMigration, returnSearchMigration],
  machines: [returnMachine],
  events: [...RETURN_EVENTS],
  // The e-mails to the customer at each step; the store may write their texts per locale (decision 0098).
  mails: RETURN_MAILS,
  permissions: [
    { name: 'returns.read', description: 'See returns, exchanges and claims, the return reasons and settings' },
    { name: 'returns.write', description: 'Ask for, approve, reject, receive, ship and close returns; keep the reasons and settings' },
    { name: 'returns.refund', description: "Refund returns through the order's payments or as store credit, and record an exchange's payments" },
  ],
  register(container) {
    // The payments, store-credit and B2B plugins when installed, whichever order the plugins register in.
    container.register(PAYMENT_REFUNDER, { useFactory: paymentRefunderOf });
    container.register(STORE_CREDIT_GRANTS, { useFactory: storeCreditOf });
    container.register(ACCOUNT_REFUNDS, { useFactory: accountRefundsOf });
    // A marketplace's ledger takes a returned vendor line's worth back from its vendor.
    container.register(RETURNED_LINES, { useValue: new OrderReturnedLines() });
    container.registerSingleton(StoreReturnSettings);
    container.registerSingleton(ReturnReasons);
    container.registerSingleton(ReturnPaymentLinks);
    container.registerSingleton(ReturnRequests);
    container.registerSingleton(ReturnReceipts);
    container.registerSingleton(ReturnSettlement);
    container.registerSingleton(ReturnReads);
    container.registerSingleton(ReturnNotices);
  },
  onReady({ container }) {
    const relay = container.resolve(OutboxRelay);
    // Refunds through payments go out once the refund's transaction committed, each under the id it was planned with
    // (a refund to a company's account sends what the company had paid already).
    relay.queueOn(RETURN_REFUNDED, SEND_REFUNDS_JOB, (data) => data.refund_method !== 'store_credit' && typeof data.refund_amount === 'number' && data.refund_amount > 0);
    for (const type of NOTIFIED_EVENTS) relay.queueOn(type, notifyJob(type));
  },
  jobs: {
    [SEND_REFUNDS_JOB]: {
      handler: (data: { id?: unknown }, { container }) => (typeof data.id === 'string' ? container.resolve(ReturnSettlement).sendRefunds(data.id) : Promise.resolve()),
      attempts: 5,
      backoffMs: 2000,
    },
    ...Object.fromEntries(
      NOTIFIED_EVENTS.map((type) => [
        notifyJob(type),
        { handler: (data: { id?: unknown }, { container }: { container: import('tsyringe').DependencyContainer }) => container.resolve(ReturnNotices).send(type, data), attempts: 3, backoffMs: 5000 },
      ]),
    ),
  },
  routes: async (app, { container }) => returnRoutes(app, container),
  graphql: returnGraphQL,
});
