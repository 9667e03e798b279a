import type { Tx, TxReader } from '@qhatu/core';
import type { LineItem } from '../entities/line-item.js';
import type { Order } from '../entities/order.js';

/** A seller's offer as a cart or an order line buys it now. */
export interface OfferTerms {
  offerId: string;
  /** The catalog product the offer sells (any of its variants). */
  productId: string;
  /** Minor units per unit; null: the variant's catalog price. */
  unitPrice: number | null;
  /** Units that may still be held by new orders. */
  available: number;
}

/**
 * Lines bought on a seller's offer (a marketplace) instead of the store's own stock: the strategy
 * a marketplace plugin registers under `LineOffers`. The cart prices an offered line at the
 * offer's price and the order keeps `offer_id` on the line; the stock of such a line is the
 * offer's, not the store's warehouses'. Every method runs in the caller's transaction.
 */
export interface LineOffersStrategy {
  /** The offers among `offerIds` that may be sold now (a missing one is not for sale). */
  terms(tx: TxReader, offerIds: string[]): Promise<Map<string, OfferTerms>>;
  /** The order was just placed with these lines (some with `offerId`): hold the offers' stock, or throw. */
  orderPlaced(tx: Tx, order: Order, lines: LineItem[]): Promise<void>;
  /**
   * The order (locked) was paid, cancelled or refunded, or a refund of it was recorded: the
   * offers' stock and the sellers' money follow it. Safe to call any number of times.
   */
  orderChanged(tx: Tx, order: Order): Promise<void>;
  /**
   * An edit revised the order (locked, its totals worked out, its status not moved yet): `lines`
   * are its lines now (a new one with `offerId`; an offer's line missing from them was removed).
   * The offers' stock follows the lines (or throw, e.g. 409 when an offer is short), and the
   * sellers' money follows a paid order's new total.
   */
  orderRevised(tx: Tx, order: Order, lines: LineItem[]): Promise<void>;
}

export const LineOffers = Symbol.for('qhatu.orders.LineOffers');

/** The default without a marketplace: no offer can be named. */
export class NoLineOffers implements LineOffersStrategy {
  async terms(): Promise<Map<string, OfferTerms>> {
    return new Map();
  }
  async orderPlaced(): Promise<void> {}
  async orderChanged(): Promise<void> {}
  async orderRevised(): Promise<void> {}
}

/** What one unit of `variant` costs on an offer. */
export const offerUnitPrice = (terms: Pick<OfferTerms, 'unitPrice'>, variant: { price: number }) => terms.unitPrice ?? variant.price;
