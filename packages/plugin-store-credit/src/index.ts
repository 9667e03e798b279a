import { definePlugin, OutboxRelay } from '@qhatu/core';
import { PAYMENT_GATEWAY } from '@qhatu/plugin-payments';
import { instanceCachingFactory } from 'tsyringe';
import { StoreCreditBalance } from './entities/balance.js';
import { StoreCreditEntry } from './entities/entry.js';
import { StoreCreditPayment } from './entities/payment.js';
import { ADJUST_PERMISSION, StoreCreditGateway } from './gateway.js';
import { creditGraphQL } from './graphql/credit.js';
import { storeCreditMigration } from './migrations/0001_store_credit.js';
import { creditRoutes } from './routes/credit.js';
import { StoreCreditAccounts } from './services/accounts.js';
import { STORE_CREDIT_EVENTS } from './services/events.js';
import { STORE_CREDIT, StoreCreditLedger } from './services/ledger.js';
import { CREDIT_MAILS, CREDIT_NOTICE_JOB, CreditNotices, type EntryEvent } from './services/notices.js';

export { StoreCreditBalance } from './entities/balance.js';
export { StoreCreditEntry, ENTRY_KINDS, type EntryKind } from './entities/entry.js';
export { StoreCreditPayment } from './entities/payment.js';
export { StoreCreditGateway, STORE_CREDIT_GATEWAY, ADJUST_PERMISSION } from './gateway.js';
export { STORE_CREDIT, StoreCreditLedger, InsufficientCredit, type StoreCreditService, type GrantInput, type GrantResult, type CreditSource } from './services/ledger.js';
export { StoreCreditAccounts, type BalanceView, type EntryFilter, type AdjustmentInput } from './services/accounts.js';
export { CREDIT_NOTICE_JOB, CreditNotices } from './services/notices.js';
export * from './services/events.js';

/**
 * Store credit: each customer's balance per currency, kept as a ledger that never goes below
 * zero; given by returns (through `STORE_CREDIT`) or staff, and spent as the payment gateway
 * `store_credit`, alone or beside another payment of the order.
 */
export default definePlugin({
  name: 'store-credit',
  dependsOn: ['customers', 'orders', 'payments'],
  entities: [StoreCreditBalance, StoreCreditEntry, StoreCreditPayment],
  migrations: [storeCreditMigration],
  events: STORE_CREDIT_EVENTS,
  // The e-mails to the customer about their balance; the store may write their texts per locale (decision 0098).
  mails: CREDIT_MAILS,
  permissions: [
    { name: 'store-credit.read', description: "Read customers' store-credit balances and ledgers" },
    { name: ADJUST_PERMISSION, description: "Grant and deduct store credit, and pay a customer's orders with the customer's credit" },
  ],
  register(container) {
    container.registerSingleton(StoreCreditLedger);
    // The contract other plugins call (plugin-returns' credit for a return): the ledger itself.
    container.register(STORE_CREDIT, { useFactory: instanceCachingFactory((c) => c.resolve(StoreCreditLedger)) });
    container.registerSingleton(StoreCreditAccounts);
    container.registerSingleton(CreditNotices);
    container.register(PAYMENT_GATEWAY, { useFactory: instanceCachingFactory((c) => c.resolve(StoreCreditGateway)) });
  },
  onReady({ container }) {
    // Each change of a balance is e-mailed to its customer once it committed.
    const relay = container.resolve(OutboxRelay);
    for (const type of STORE_CREDIT_EVENTS) relay.queueOn(type, CREDIT_NOTICE_JOB);
  },
  jobs: {
    [CREDIT_NOTICE_JOB]: {
      handler: (data: EntryEvent, { container }) => container.resolve(CreditNotices).send(data),
      attempts: 3,
      backoffMs: 5000,
    },
  },
  routes: async (app, { container }) => creditRoutes(app, container),
  graphql: creditGraphQL,
});
