import { definePlugin } from '@qhatu/core';
import { b2bAdmin } from './admin.js';
import { PriceResolver } from '@qhatu/plugin-catalog';
import { OrderPrices } from '@qhatu/plugin-orders';
import { AccountCredit, AccountOrder, OrderPrice } from './entities/account-order.js';
import { B2BCustomer } from './entities/b2b-customer.js';
import { Buyer } from './entities/buyer.js';
import { PriceList, PriceRule } from './entities/price-list.js';
import { Quote } from './entities/quote.js';
import { b2bCustomerMachine } from './machines/b2b-customer.js';
import { quoteMachine } from './machines/quote.js';
import { b2bMigration } from './migrations/0001_b2b.js';
import { accountCreditsMigration } from './migrations/0002_account_credits.js';
import { accountWaiversMigration } from './migrations/0003_account_waivers.js';
import { customerRoutes } from './routes/customers.js';
import { priceListRoutes } from './routes/price-lists.js';
import { quoteRoutes } from './routes/quotes.js';
import { ACCOUNT_CREDIT, AccountCredits } from './services/account-credit.js';
import { B2BCustomers } from './services/b2b-customers.js';
import { Credit } from './services/credit-reads.js';
import { B2B_EVENTS } from './services/events.js';
import { OrderPriceReads } from './services/order-price-reads.js';
import { PriceListOrderPrices } from './services/order-prices.js';
import { PriceLists } from './services/price-lists.js';
import { PriceListResolver } from './services/pricing.js';
import { Quotes } from './services/quotes.js';

export { B2BCustomer, B2B_CUSTOMER_STATUSES, type B2BCustomerStatus } from './entities/b2b-customer.js';
export { Buyer } from './entities/buyer.js';
export { PriceList, PriceRule, RULE_TYPES, RULE_SCOPES, type RuleType, type RuleScope } from './entities/price-list.js';
export { Quote, QUOTE_STATUSES, type QuoteStatus, type QuoteItem } from './entities/quote.js';
export { AccountOrder, AccountCredit, OrderPrice } from './entities/account-order.js';
export { quoteMachine } from './machines/quote.js';
export { b2bCustomerMachine } from './machines/b2b-customer.js';
export { B2BCustomers } from './services/b2b-customers.js';
export { PriceLists } from './services/price-lists.js';
export { PriceListResolver, priceThrough, trustedBuyer, type ListPrice, type RuleSnapshot } from './services/pricing.js';
export { PriceListOrderPrices } from './services/order-prices.js';
export { Quotes, quoteNumber } from './services/quotes.js';
export { Credit } from './services/credit-reads.js';
export { ACCOUNT_CREDIT, AccountCredits, type AccountCreditService, type AccountOfOrder, type AccountCreditInput, type AccountCreditResult } from './services/account-credit.js';
export { rucProblem, rucCheckDigit } from './services/ruc.js';
export { quotePdf } from './services/quote-pdf.js';
export { B2B_EVENTS } from './services/events.js';

/**
 * Wholesale: B2B customers and their buyers, price lists that price a buyer's lines (the
 * catalog's `PriceResolver` and the orders' `OrderPrices`), quotes e-mailed as PDF, and orders
 * on account within a credit limit (goods returned are set against what the company owes).
 */
export default definePlugin({
  name: 'b2b',
  dependsOn: ['catalog', 'customers', 'orders'],
  // Its companies page in the admin dashboard (price lists and quotes are the dashboard's Wholesale area).
  admin: b2bAdmin,
  entities: [B2BCustomer, Buyer, PriceList, PriceRule, Quote, AccountOrder, AccountCredit, OrderPrice],
  migrations: [b2bMigration, accountCreditsMigration, accountWaiversMigration],
  machines: [quoteMachine, b2bCustomerMachine],
  events: [...B2B_EVENTS],
  permissions: [
    { name: 'b2b.read', description: 'See B2B customers, their buyers and credit, price lists, quotes and order price snapshots' },
    { name: 'b2b.write', description: "Create and change B2B customers, buyers, price lists and rules; create quotes and record a company's answer" },
    { name: 'b2b.quotes.send', description: 'Send quotes to B2B customers by e-mail' },
    { name: 'b2b.quotes.convert', description: 'Place accepted quotes as orders on account (credit)' },
  ],
  register(container) {
    // Registered after the catalog and the orders (dependsOn): the last registration is the one
    // resolved, so a buyer's prices come from its list; a plugin registered after this one replaces it again.
    container.registerSingleton(PriceListResolver);
    container.register(PriceResolver, { useToken: PriceListResolver });
    container.registerSingleton(PriceListOrderPrices);
    container.register(OrderPrices, { useToken: PriceListOrderPrices });
    container.registerSingleton(B2BCustomers);
    container.registerSingleton(PriceLists);
    container.registerSingleton(Quotes);
    container.registerSingleton(Credit);
    // The contract other plugins call (plugin-returns, a return of an order on account): goods given back are set against what the company owes.
    container.registerSingleton(AccountCredits);
    container.register(ACCOUNT_CREDIT, { useToken: AccountCredits });
    container.registerSingleton(OrderPriceReads);
  },
  routes: async (app, { container }) => {
    await customerRoutes(app, container);
    await priceListRoutes(app, container);
    await quoteRoutes(app, container);
  },
});
