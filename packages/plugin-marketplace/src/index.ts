import { Database, definePlugin } from '@qhatu/core';
import { instanceCachingFactory } from 'tsyringe';
import { LineOffers } from '@qhatu/plugin-orders';
import { marketplaceAdmin } from './admin.js';
import { LedgerEntry } from './entities/ledger-entry.js';
import { Offer } from './entities/offer.js';
import { OfferHold } from './entities/offer-hold.js';
import { Payout } from './entities/payout.js';
import { Vendor } from './entities/vendor.js';
import { payoutMachine } from './machines/payout.js';
import { vendorMachine } from './machines/vendor.js';
import { marketplaceMigration } from './migrations/0001_marketplace.js';
import { returnedLinesMigration } from './migrations/0002_returned_lines.js';
import { revisedOrdersMigration } from './migrations/0003_revised_orders.js';
import { payoutRoutes } from './routes/payouts.js';
import { portalRoutes } from './routes/portal.js';
import { vendorRoutes } from './routes/vendors.js';
import { MARKETPLACE_EVENTS } from './services/events.js';
import { Ledger, RETURNED_LINES, type ReturnedLines } from './services/ledger.js';
import { MarketplaceOffers } from './services/offer-stock.js';
import { Offers } from './services/offers.js';
import { Payouts } from './services/payouts.js';
import { VendorPortal } from './services/portal.js';
import { Vendors } from './services/vendors.js';

export { Vendor, VENDOR_STATUSES, type VendorStatus } from './entities/vendor.js';
export { Offer } from './entities/offer.js';
export { OfferHold, HOLD_STATUSES, type HoldStatus } from './entities/offer-hold.js';
export { Payout, PAYOUT_STATUSES, type PayoutStatus } from './entities/payout.js';
export { LedgerEntry, ENTRY_KINDS, type EntryKind } from './entities/ledger-entry.js';
export { vendorMachine } from './machines/vendor.js';
export { payoutMachine } from './machines/payout.js';
export { Vendors } from './services/vendors.js';
export { Offers } from './services/offers.js';
export { Payouts } from './services/payouts.js';
export { Ledger, RETURNED_LINES, type ReturnedLines, type Settlement } from './services/ledger.js';
export { MarketplaceOffers } from './services/offer-stock.js';
export { VendorPortal, VENDOR_TOKEN_TTL_MS } from './services/portal.js';
export { commissionOf, pctToBps, bpsToPct } from './services/money.js';
export { MARKETPLACE_EVENTS } from './services/events.js';

/**
 * The multi-vendor marketplace: vendors and their offers of catalog products (bought in the
 * store's carts on the offer's stock, through the orders' `LineOffers`), the ledger that splits
 * each paid order into the store's revenue, commissions and vendors' payouts, the payouts, and
 * the vendor portal.
 */
export default definePlugin({
  name: 'marketplace',
  dependsOn: ['catalog', 'orders'],
  entities: [Vendor, Offer, OfferHold, Payout, LedgerEntry],
  migrations: [marketplaceMigration, returnedLinesMigration, revisedOrdersMigration],
  machines: [vendorMachine, payoutMachine],
  events: [...MARKETPLACE_EVENTS],
  admin: marketplaceAdmin,
  permissions: [
    { name: 'marketplace.read', description: "See vendors, their offers, payouts and how paid orders' money is split" },
    { name: 'marketplace.write', description: "Create vendors, change their status, link and unlink their products" },
    { name: 'marketplace.payouts', description: "Move vendors' payouts to processing, paid or failed" },
  ],
  register(container) {
    container.registerSingleton(Vendors);
    container.registerSingleton(Offers);
    container.registerSingleton(Payouts);
    // With the returns plugin's account of returned lines when it is installed, whichever order the plugins register in.
    container.register(Ledger, {
      useFactory: instanceCachingFactory((c) => new Ledger(c.resolve(Database), c.resolve(Payouts), c.isRegistered(RETURNED_LINES, true) ? c.resolve<ReturnedLines>(RETURNED_LINES) : null)),
    });
    container.registerSingleton(VendorPortal);
    // Registered after the orders (dependsOn): the last registration is the one resolved.
    container.registerSingleton(MarketplaceOffers);
    container.register(LineOffers, { useToken: MarketplaceOffers });
  },
  routes: async (app, { container }) => {
    await vendorRoutes(app, container);
    await payoutRoutes(app, container);
    await portalRoutes(app, container);
  },
});
