import { CONFIG, definePlugin, OutboxRelay, type QhatuConfig } from '@qhatu/core';
import { DraftOrder } from './entities/draft-order.js';
import { DraftOrderSettings } from './entities/settings.js';
import { draftOrderGraphQL } from './graphql/draft-orders.js';
import { DRAFT_EVENTS, draftOrderMachine } from './machines/draft-order.js';
import { draftOrdersMigration } from './migrations/0001_draft_orders.js';
import { draftOrderRoutes } from './routes/draft-orders.js';
import { DraftOrders, OVERRIDE_PERMISSION } from './services/drafts.js';
import { InvoiceLinks } from './services/invoice-links.js';
import { DraftInvoices } from './services/invoices.js';
import { DRAFT_PAYMENTS, paymentRecorderOf } from './services/offline-payments.js';
import { DraftPlacement } from './services/placement.js';
import { DraftPricing } from './services/pricing.js';
import { DraftReads } from './services/reads.js';
import { DRAFT_ORDER_SETTINGS, readSettings, StoreDraftSettings } from './services/settings.js';

export { DraftOrder, DRAFT_ORDER_STATUSES, type DraftOrderStatus, type DraftLine, type DraftShipping, type DraftDiscount, type PriceOverride } from './entities/draft-order.js';
export { DraftOrderSettings } from './entities/settings.js';
export { draftOrderMachine, DRAFT_EVENTS } from './machines/draft-order.js';
export { DraftOrders, OVERRIDE_PERMISSION } from './services/drafts.js';
export { DraftReads, type DraftFilter } from './services/reads.js';
export { DraftPricing, type PricedDraft } from './services/pricing.js';
export { DraftPlacement } from './services/placement.js';
export { DraftInvoices } from './services/invoices.js';
export { DRAFT_PAYMENTS, type DraftPaymentRecorder, type ReceivedPayment } from './services/offline-payments.js';
export { draftOut } from './routes/serialize.js';

export const ORDER_PAID_JOB = 'draft-orders.order-paid';
export const ORDER_CANCELLED_JOB = 'draft-orders.order-cancelled';

/**
 * Draft orders: staff build an order for a customer (catalog lines at the customer's prices, custom
 * lines, shipping, a discount), change it freely, then send a link to pay it or mark it paid by an
 * offline method; placing it makes the order as a checkout would.
 */
export default definePlugin({
  name: 'draft-orders',
  dependsOn: ['catalog', 'customers', 'discounts', 'orders'],
  entities: [DraftOrder, DraftOrderSettings],
  migrations: [draftOrdersMigration],
  machines: [draftOrderMachine],
  events: [...DRAFT_EVENTS],
  permissions: [
    { name: 'draft-orders.read', description: 'See draft orders and their settings' },
    { name: 'draft-orders.write', description: 'Create, change, invoice, complete and cancel draft orders' },
    { name: OVERRIDE_PERMISSION, description: "Set a draft line's price, a custom shipping price or a manual discount (with a reason)" },
  ],
  register(container) {
    container.register(DRAFT_ORDER_SETTINGS, { useFactory: (c) => readSettings(c.resolve<QhatuConfig>(CONFIG)) });
    // The payments and offline plugins when installed, whichever order the plugins register in.
    container.register(DRAFT_PAYMENTS, { useFactory: paymentRecorderOf });
    container.registerSingleton(StoreDraftSettings);
    container.registerSingleton(InvoiceLinks);
    container.registerSingleton(DraftPricing);
    container.registerSingleton(DraftPlacement);
    container.registerSingleton(DraftOrders);
    container.registerSingleton(DraftReads);
    container.registerSingleton(DraftInvoices);
  },
  onReady({ container }) {
    // An invoiced draft completes once its order is paid, or opens again if its order is cancelled elsewhere.
    const relay = container.resolve(OutboxRelay);
    relay.queueOn('orders.order.paid', ORDER_PAID_JOB);
    relay.queueOn('orders.order.cancelled', ORDER_CANCELLED_JOB);
  },
  jobs: {
    [ORDER_PAID_JOB]: {
      handler: (data: { id?: unknown }, { container }) => container.resolve(DraftOrders).orderPaid(data).then(() => undefined),
      attempts: 5,
      backoffMs: 2000,
    },
    [ORDER_CANCELLED_JOB]: {
      handler: (data: { id?: unknown }, { container }) => container.resolve(DraftOrders).orderCancelled(data).then(() => undefined),
      attempts: 5,
      backoffMs: 2000,
    },
  },
  routes: async (app, { container }) => draftOrderRoutes(app, container),
  graphql: draftOrderGraphQL,
});
