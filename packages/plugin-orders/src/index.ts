import { Database, definePlugin, Jobs, OutboxRelay } from '@qhatu/core';
import { Fulfillment } from './entities/fulfillment.js';
import { LineItem } from './entities/line-item.js';
import { Order } from './entities/order.js';
import { orderGraphQL } from './graphql/orders.js';
import { orderMachine } from './machines/order.js';
import { ordersMigration } from './migrations/0001_orders.js';
import { awaitingStockMigration } from './migrations/0002_awaiting_stock.js';
import { paymentsLedgerMigration } from './migrations/0003_payments_ledger.js';
import { orderRoutes } from './routes/orders.js';
import { ORDER_EVENTS } from './services/events.js';
import { Fulfillments } from './services/fulfillments.js';
import { SalesAnalytics } from './services/analytics.js';
import { OrderReads } from './services/order-reads.js';
import { Orders, type PaymentConfirmed } from './services/orders.js';
import { CatalogPrices, OrderPrices } from './services/prices.js';
import { Shipping } from './services/shipping.js';
import { OrderTaxes, taxCalculatorOf } from './services/taxes.js';
import { orderTaxesMigration } from './migrations/0004_taxes.js';
import { orderOffersMigration } from './migrations/0005_offers.js';
import { ordersSearchMigration } from './migrations/0006_search.js';
import { orderStockMigration } from './migrations/0007_stock.js';
import { orderCustomFieldsMigration } from './migrations/0008_custom_fields.js';
import { orderCustomLinesMigration } from './migrations/0009_custom_lines.js';
import { orderAmountWaivedMigration } from './migrations/0010_amount_waived.js';
import { orderChangesMigration } from './migrations/0011_changes.js';
import { OrderSettings } from './entities/settings.js';
import { orderSettingsRoutes } from './routes/settings.js';
import { Settlement } from './services/settlement.js';
import { StoreOrderSettings } from './services/settings.js';
import { LineOffers, NoLineOffers } from './services/offers.js';
import { instanceCachingFactory } from 'tsyringe';
import { cancelGuardsOf, ORDER_CANCEL_GUARDS } from './services/cancel-guard.js';
import { STORE_SHIPPING_PRICES, storeShippingPrices } from './services/store-shipping-prices.js';

export { Order, ORDER_STATUSES, type OrderStatus, type ShippingAddress, type OrderHistoryEntry } from './entities/order.js';
export { LineItem } from './entities/line-item.js';
export { Fulfillment, FULFILLMENT_STATUSES, isReplacement, type FulfillmentStatus, type FulfillmentItem } from './entities/fulfillment.js';
export { orderMachine } from './machines/order.js';
export { Orders, FIRST_ORDER_NUMBER, PaymentConfirmedData, type PlaceOrderInput, type PaymentConfirmed } from './services/orders.js';
export { OrderReads, type OrderView, type OrderFilter } from './services/order-reads.js';
export { SalesAnalytics, REVENUE_STATUSES, type SalesRange, type SalesFigures } from './services/analytics.js';
export { Fulfillments, type FulfillmentInput, type ReplacementInput } from './services/fulfillments.js';
export type { ReplacementItem } from './services/shipping.js';
export { OrderPrices, CatalogPrices, type LinePrices } from './services/prices.js';
export { ORDER_EVENTS } from './services/events.js';
export { StoreOrderSettings, DEFAULT_STOCK_POLICY, type OrderSettingsView } from './services/settings.js';
export { OrderSettings, STOCK_POLICIES, type StockPolicy } from './entities/settings.js';
export { ORDER_CANCEL_GUARD, type OrderCancelGuard } from './services/cancel-guard.js';
export { LineOffers, NoLineOffers, offerUnitPrice, type LineOffersStrategy, type OfferTerms } from './services/offers.js';
export {
  TAX_CALCULATOR, OrderTaxes, NO_TAX, allocate, quoteFits, taxCalculatorOf, taxesFor, taxOf,
  type TaxCalculator, type TaxRequest, type TaxQuote, type TaxableLine, type LineTax, type TaxAddress,
} from './services/taxes.js';
export { amountDue, awaitsPayment, isCovered, waivedBy, AMOUNT_DUE_SQL, SHIPPED_STATUSES, type PaymentEntry } from './services/ledger.js';
export { OrderAddress } from './schemas/order.js';
export { SHIPPING_PRICES, STORE_SHIPPING_PRICES, storeShippingPrices, type ShippingDestination, type StoreShippingPrices } from './services/store-shipping-prices.js';
export { REVISABLE, type OrderRevision, type RevisedLine } from './services/revision.js';
export { orderOut, lineItemOut, fulfillmentOut } from './routes/serialize.js';

export const PAYMENT_CONFIRMED_EVENT = 'payments.payment.confirmed';
export const PAYMENT_CONFIRMED_JOB = 'orders.payment-confirmed';
export const STOCK_ARRIVED_JOB = 'orders.stock-arrived';
/** Forgets which transactions changed orders an hour ago (the staff's kept order pages are checked against the last ten minutes). */
export const PRUNE_CHANGES_JOB = 'orders.prune-changes';

/** Orders: price snapshots, numbers per store, the order lifecycle, fulfilments and their stock. */
export default definePlugin({
  name: 'orders',
  dependsOn: ['catalog', 'customers', 'inventory'],
  entities: [Order, LineItem, Fulfillment, OrderSettings],
  migrations: [ordersMigration, awaitingStockMigration, paymentsLedgerMigration, orderTaxesMigration, orderOffersMigration, ordersSearchMigration, orderStockMigration, orderCustomFieldsMigration, orderCustomLinesMigration, orderAmountWaivedMigration, orderChangesMigration],
  // Other plugins and the project add fields to orders (`customFields: { order: {...} }`).
  customFieldHosts: [{ entity: 'order', table: 'orders_order', graphqlType: 'Order' }],
  machines: [orderMachine],
  events: [...ORDER_EVENTS],
  permissions: [
    { name: 'orders.read', description: 'Read orders, their fulfilments and the sales analytics' },
    { name: 'orders.write', description: 'Create and cancel orders' },
    { name: 'orders.fulfil', description: 'Move orders through packing, shipping and delivery, and record fulfilments' },
  ],
  register(container) {
    if (!container.isRegistered(OrderPrices)) container.register(OrderPrices, { useValue: new CatalogPrices() });
    // A marketplace registered after the orders replaces it: the last registration is the one resolved.
    container.register(LineOffers, { useValue: new NoLineOffers() });
    // Resolved once every plugin registered: the taxes plugin (or a provider replacing it) may load after orders.
    container.register(OrderTaxes, { useFactory: instanceCachingFactory((c) => taxCalculatorOf(c)) });
    // The shipping plugin's prices, or null: resolved once every plugin registered, for all who charge shipping.
    container.register(STORE_SHIPPING_PRICES, { useFactory: instanceCachingFactory((c) => storeShippingPrices(c)) });
    container.register(ORDER_CANCEL_GUARDS, { useValue: cancelGuardsOf(container) });
    container.registerSingleton(Shipping);
    container.registerSingleton(StoreOrderSettings);
    container.registerSingleton(Settlement);
    container.registerSingleton(Orders);
    container.registerSingleton(OrderReads);
    container.registerSingleton(Fulfillments);
    container.registerSingleton(SalesAnalytics);
  },
  onReady({ container }) {
    // The payments plugin's confirmation: handled by a job queued once the relay's transaction commits.
    container.resolve(OutboxRelay).queueOn(PAYMENT_CONFIRMED_EVENT, PAYMENT_CONFIRMED_JOB);
    // Stock added: paid-for orders that were short of it try again.
    container.resolve(OutboxRelay).queueOn('inventory.stock.adjusted', STOCK_ARRIVED_JOB, (data) => typeof data.delta === 'number' && data.delta > 0);
  },
  jobs: {
    [PAYMENT_CONFIRMED_JOB]: {
      handler: (data: PaymentConfirmed, { container }) => container.resolve(Orders).paymentConfirmed(data).then(() => undefined),
      attempts: 5,
      backoffMs: 2000,
    },
    [PRUNE_CHANGES_JOB]: {
      // Every store in one statement, as the owner (a housekeeping delete by age on its own index).
      handler: (_data: unknown, { container }) => container.resolve(Database).query(`delete from orders_change where changed_at < now() - interval '1 hour'`).then(() => undefined),
      attempts: 1,
    },
    [STOCK_ARRIVED_JOB]: {
      handler: (data: { variant_id?: unknown; delta?: unknown }, { container }) => container.resolve(Orders).stockArrived(data).then(() => undefined),
      attempts: 3,
      backoffMs: 2000,
    },
  },
  // One queued run per interval slot, however many worker processes there are.
  background: ({ container }) => container.resolve(Jobs).every(PRUNE_CHANGES_JOB, 10 * 60_000),
  routes: async (app, { container }) => {
    await orderSettingsRoutes(app, container);
    await orderRoutes(app, container);
  },
  graphql: orderGraphQL,
});
