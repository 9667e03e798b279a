import { CONFIG, definePlugin, LOGGER, type QhatuConfig } from '@qhatu/core';
import { ShippingRate } from './entities/rate.js';
import { Shipment } from './entities/shipment.js';
import { SHIPMENT_EVENTS, shipmentMachine } from './machines/shipment.js';
import { shippingMigration } from './migrations/0001_shipping.js';
import { shippingTranslationsMigration } from './migrations/0002_translations.js';
import { rateRoutes } from './routes/rates.js';
import { shipmentRoutes } from './routes/shipments.js';
import { SHIPPING_CARRIER, type ShippingCarrier } from './services/carrier.js';
import { ShippingPrices, SHIPPING_PRICES } from './services/prices.js';
import { Quotes } from './services/quotes.js';
import { Rates, RateTable } from './services/rates.js';
import { readSettings, SHIPPING_SETTINGS, type ShippingSettings } from './services/settings.js';
import { Shipments } from './services/shipments.js';
import { RATE_TRANSLATION_EVENTS, RateTranslations } from './services/translations.js';

export { ShippingRate } from './entities/rate.js';
export { Shipment, SHIPMENT_STATUSES, TRACKING_STATUSES, type ShipmentStatus, type TrackingStatus, type ShippingAddress, type TrackingEvent } from './entities/shipment.js';
export { shipmentMachine, SHIPMENT_EVENTS, TRACKING_MOVES } from './machines/shipment.js';
export { SHIPPING_CARRIER, type ShippingCarrier, type CarrierQuote, type QuoteRequest, type Parcel } from './services/carrier.js';
export { Quotes, volumetricWeightG, type RateQuote } from './services/quotes.js';
export { ShippingPrices, SHIPPING_PRICES, type ShippingPrice, type ShippingPriceRequest, type PricingAddress } from './services/prices.js';
export { Rates, RateTable } from './services/rates.js';
export { Shipments } from './services/shipments.js';
export { RateTranslations, SHIPPING_TRANSLATIONS } from './services/translations.js';
export { SHIPPING_SETTINGS, type ShippingSettings } from './services/settings.js';
export { rateOut, shipmentOut } from './routes/serialize.js';

/** Shipping: the store's rate table, rates for a parcel from every carrier, shipments and their tracking. */
export default definePlugin({
  name: 'shipping',
  dependsOn: ['orders'],
  // The specification serves shipping under /shipping, outside /api/v1.
  prefix: '',
  entities: [ShippingRate, Shipment],
  migrations: [shippingMigration, shippingTranslationsMigration],
  machines: [shipmentMachine],
  events: [...SHIPMENT_EVENTS, ...RATE_TRANSLATION_EVENTS],
  permissions: [
    { name: 'shipping.read', description: 'Read the rate table and shipments' },
    { name: 'shipping.write', description: 'Change the rate table; create shipments and record labels, tracking, delivery and failure' },
  ],
  register(container) {
    container.register(SHIPPING_SETTINGS, { useFactory: (c) => readSettings(c.resolve<QhatuConfig>(CONFIG)) });
    container.registerSingleton(Rates);
    container.registerSingleton(RateTable);
    container.registerSingleton(Shipments);
    container.registerSingleton(RateTranslations);
    // The rate table is the first carrier; plugins that depend on this one register live ones.
    container.register(SHIPPING_CARRIER, { useFactory: (c) => c.resolve(RateTable) });
    container.register(Quotes, {
      useFactory: (c) =>
        new Quotes(c.resolveAll<ShippingCarrier>(SHIPPING_CARRIER), c.resolve<ShippingSettings>(SHIPPING_SETTINGS), c.resolve(LOGGER)),
    });
    // The checkout prices its shipping step with it, by the token (it does not depend on this plugin).
    container.registerSingleton(ShippingPrices);
    container.register(SHIPPING_PRICES, { useFactory: (c) => c.resolve(ShippingPrices) });
  },
  routes: async (app, { container }) => {
    await rateRoutes(app, container);
    await shipmentRoutes(app, container);
  },
});
