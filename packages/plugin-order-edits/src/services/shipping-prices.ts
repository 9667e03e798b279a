import type { TxReader } from '@qhatu/core';
import type { ShippingAddress } from '@qhatu/plugin-orders';
import type { DependencyContainer } from 'tsyringe';

/** Where the shipping plugin registers its `ShippingPrices` (edits do not depend on that plugin). */
export const SHIPPING_PRICES = Symbol.for('qhatu.shipping.prices');
export const EDIT_SHIPPING_PRICES = Symbol.for('qhatu.order-edits.shipping-prices');

/** The shipping plugin's `ShippingPrices`, as far as an edit asks it (the checkout's shipping step asks the same). */
export interface StoreShippingPrices {
  priceFor(
    tx: TxReader,
    request: { carrier: string; service: string; destination: ShippingAddress; weightGrams: number; currency: string },
  ): Promise<{ priced: true; price: number } | { priced: false }>;
}

export function shippingPricesOf(container: DependencyContainer): StoreShippingPrices | null {
  return container.isRegistered(SHIPPING_PRICES, true) ? container.resolve<StoreShippingPrices>(SHIPPING_PRICES) : null;
}
