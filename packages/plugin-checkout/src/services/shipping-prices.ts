import type { TxReader } from '@qhatu/core';
import type { StoreShippingPrices } from '@qhatu/plugin-orders';
import type { CheckoutAddress, CheckoutLine, ShippingRate } from '../entities/checkout.js';

/** The parcel's weight: the lines that ship, each line's unit weight times its quantity (no weight counts 0). */
export function parcelWeightG(lines: CheckoutLine[]): number {
  return lines.reduce((sum, l) => sum + (l.requires_shipping ? (l.weight_grams ?? 0) * l.quantity : 0), 0);
}

/**
 * The rate the shipping step charges: the store's price for the chosen carrier and service,
 * whatever price the client sent (the shipping plugin's refusals, 422 SHIPPING_CARRIER_UNKNOWN and
 * the like, reach the shopper as they are); the client's rate as sent where the store prices no
 * shipping (no shipping plugin, or no rates and no live carrier): the specification's step.
 */
export async function storeRate(
  prices: StoreShippingPrices | null,
  tx: TxReader,
  sent: ShippingRate,
  checkout: { shippingAddress?: CheckoutAddress | null; lineItems: CheckoutLine[]; currency: string },
  /** The price as the checkout's locking read read it (`StoreShippingPrices.priceReadSql`), where it did. */
  read?: unknown,
): Promise<ShippingRate> {
  if (!prices || !checkout.shippingAddress) return sent;
  const price = await prices.priceFor(tx, {
    carrier: sent.carrier,
    service: sent.service,
    destination: checkout.shippingAddress,
    weightGrams: parcelWeightG(checkout.lineItems),
    currency: checkout.currency,
  }, read);
  return price.priced ? { carrier: sent.carrier, service: sent.service, price: price.price } : sent;
}
