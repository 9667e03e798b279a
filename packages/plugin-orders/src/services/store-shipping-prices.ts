import type { TxReader } from '@qhatu/core';
import type { DependencyContainer } from 'tsyringe';

/** Where the shipping plugin registers its `ShippingPrices` (the plugins that charge shipping do not depend on it). */
export const SHIPPING_PRICES = Symbol.for('qhatu.shipping.prices');
/**
 * The shipping plugin's prices when it is installed, else null: what the checkout's shipping step,
 * draft orders and order edits inject, so that each charges shipping as the store's rates say.
 */
export const STORE_SHIPPING_PRICES = Symbol.for('qhatu.orders.store-shipping-prices');

/** Where a parcel goes, as far as pricing reads it (an order's or a checkout's address). */
export interface ShippingDestination {
  country_code: string;
  province?: string | null;
  city?: string | null;
  zip?: string | null;
  address1?: string | null;
  first_name?: string | null;
  last_name?: string | null;
  phone?: string | null;
}

/** The shipping plugin's `ShippingPrices`, as far as those who charge shipping ask it. */
export interface StoreShippingPrices {
  /** `read`: the column of `priceReadSql` from a statement of the caller's transaction (used where it was read for this request). */
  priceFor(
    tx: TxReader,
    request: { carrier: string; service: string; destination: ShippingDestination; weightGrams: number; currency: string },
    read?: unknown,
  ): Promise<{ priced: true; price: number } | { priced: false }>;
  /**
   * What `priceFor` reads, as one JSON column of a caller's statement, given SQL of the tenant, the
   * carrier, the service, the destination's country (upper case), the currency and the parcel's weight in grams.
   */
  priceReadSql(terms: { tenant: string; carrier: string; service: string; destination: string; currency: string; weight: string }): string;
}

/** The shipping plugin's prices when it is installed (resolved once every plugin has registered). */
export function storeShippingPrices(container: DependencyContainer): StoreShippingPrices | null {
  return container.isRegistered(SHIPPING_PRICES, true) ? container.resolve<StoreShippingPrices>(SHIPPING_PRICES) : null;
}
