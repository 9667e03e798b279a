import { AppError, type TxReader } from '@qhatu/core';
import type { ShippingAddress, StoreShippingPrices } from '@qhatu/plugin-orders';
import type { DraftLine } from '../entities/draft-order.js';

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
