import { AppError, type TxReader } from '@qhatu/core';
import type { ShippingAddress } from '@qhatu/plugin-orders';
import type { DependencyContainer } from 'tsyringe';
import type { DraftLine } from '../entities/draft-order.js';

/** Where the shipping plugin registers its `ShippingPrices` (drafts do not depend on that plugin). */
export const SHIPPING_PRICES = Symbol.for('qhatu.shipping.prices');
/** What drafts resolve: the shipping plugin's prices, or null without that plugin. */
export const DRAFT_SHIPPING_PRICES = Symbol.for('qhatu.draft-orders.shipping-prices');

/** The shipping plugin's `ShippingPrices`, as far as a draft asks it (the checkout's shipping step asks the same). */
export interface StoreShippingPrices {
  priceFor(
    tx: TxReader,
    request: { carrier: string; service: string; destination: ShippingAddress; weightGrams: number; currency: string },
  ): Promise<{ priced: true; price: number } | { priced: false }>;
}

export function shippingPricesOf(container: DependencyContainer): StoreShippingPrices | null {
  return container.isRegistered(SHIPPING_PRICES, true) ? container.resolve<StoreShippingPrices>(SHIPPING_PRICES) : null;
}

/** The parcel's weight: the lines that ship, each line's unit weight times its quantity (no weight counts 0). */
export const parcelWeightG = (lines: DraftLine[]) => lines.reduce((sum, l) => sum + (l.requires_shipping ? (l.weight_grams ?? 0) * l.quantity : 0), 0);

/**
 * The store's price of the draft's chosen carrier and service for its parcel and address, as the
 * checkout's shipping step charges it (the shipping plugin's refusals, 422 SHIPPING_RATE_NOT_FOUND
 * and the like, reach staff as they are). A store that prices no shipping (no shipping plugin, or no
 * rates and no live carrier) has no price to give: 422 SHIPPING_PRICE_REQUIRED (a custom price,
 * with the override permission, is the way there).
 */
export async function storePrice(
  prices: StoreShippingPrices | null,
  tx: TxReader,
  chosen: { carrier: string; service: string },
  draft: { address: ShippingAddress; lines: DraftLine[]; currency: string },
): Promise<number> {
  const answer = prices
    ? await prices.priceFor(tx, { ...chosen, destination: draft.address, weightGrams: parcelWeightG(draft.lines), currency: draft.currency })
    : { priced: false as const };
  if (answer.priced) return answer.price;
  throw AppError.unprocessable('SHIPPING_PRICE_REQUIRED', 'This store prices no shipping: give the shipping a price (with the permission to override prices) and a reason', [
    { path: 'body.shipping.price', message: 'is required where the store has no shipping rates' },
  ]);
}
