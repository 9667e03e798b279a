import type { TxReader } from '@qhatu/core';
import type { Variant } from '../entities/variant.js';

/**
 * Who a price is for: a customer account (a cart's, a checkout's, an order's), or nobody (a
 * guest). The id may come from a request; a resolver with special prices gives them only when the
 * caller may claim that account (the B2B plugin: the signed-in customer itself, or the store).
 */
export interface PriceBuyer {
  customerId: string | null;
}

/** What pricing needs of a variant: a `Variant`, or the same facts read with SQL. */
export type PricedVariant = Pick<Variant, 'id' | 'productId' | 'price' | 'currency'>;

/** The price a buyer pays for one unit of a variant, and where it came from. */
export interface ResolvedPrice {
  variantId: string;
  /** The catalog's price (`variant.price`): what a buyer with no special prices pays. */
  catalogPrice: number;
  /** What this buyer pays; never above `catalogPrice`, never below 0. */
  price: number;
  currency: string;
  /** The price list that gave `price`, when one did (e.g. a B2B customer's list). */
  priceListId: string | null;
  /** The rule of that list that applied, when one did. */
  ruleId: string | null;
}

/**
 * Price resolution: the strategy that says what a buyer pays for each variant. The catalog's
 * default answers the catalog price; a plugin with special prices (B2B price lists) registers
 * its own under `PriceResolver` after the catalog (`dependsOn: ['catalog']`), and the cart,
 * checkout and order lines that resolve `PriceResolver` follow it. Reads only, inside `tx`, with
 * SQL (`tx.query`): the cart's changes run without the ORM.
 */
export interface PriceResolverStrategy {
  resolve(tx: TxReader, variants: readonly PricedVariant[], buyer: PriceBuyer): Promise<Map<string, ResolvedPrice>>;
}

export const PriceResolver = Symbol.for('qhatu.catalog.PriceResolver');

/** The catalog's price of each variant, for every buyer; no statement. */
export class CatalogPriceResolver implements PriceResolverStrategy {
  async resolve(_tx: TxReader, variants: readonly PricedVariant[]): Promise<Map<string, ResolvedPrice>> {
    return new Map(variants.map((v) => [v.id, catalogPriceOf(v)]));
  }
}

/** A variant at its catalog price. */
export function catalogPriceOf(v: PricedVariant): ResolvedPrice {
  return { variantId: v.id, catalogPrice: v.price, price: v.price, currency: v.currency, priceListId: null, ruleId: null };
}
