import { convertAmount, currencyOf, storeMoney, TenantContext, uuidArray, type TxReader } from '@qhatu/core';
import type { Variant } from '../entities/variant.js';

/**
 * Who a price is for: a customer account (a cart's, a checkout's, an order's), or nobody (a
 * guest). The id may come from a request; a resolver with special prices gives them only when the
 * caller may claim that account (the B2B plugin: the signed-in customer itself, or the store).
 */
export interface PriceBuyer {
  customerId: string | null;
  /**
   * The currency the buyer pays in (a cart's, decision 0097); absent: each variant's own. In
   * another, a variant's price is its explicit one there, else the one derived by the store's rate;
   * a variant with neither is not in the answer (not for sale in that currency).
   */
  currency?: string;
}

/** What pricing needs of a variant: a `Variant`, or the same facts read with SQL. */
export type PricedVariant = Pick<Variant, 'id' | 'productId' | 'price' | 'currency'>;

/** The price a buyer pays for one unit of a variant, and where it came from. */
export interface ResolvedPrice {
  variantId: string;
  /** The catalog's price in `currency` (`variant.price` in its own): what a buyer with no special prices pays. */
  catalogPrice: number;
  /** What this buyer pays; never above `catalogPrice`, never below 0. */
  price: number;
  /** The currency of both prices: the buyer's, else the variant's own. */
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

/**
 * What a buyer pays now for one unit of each variant in `currency`, for a line added to an order
 * already placed (an order edit's new line, a return's exchange item): the resolver's price (B2B
 * price lists included), never above the catalog's price there. `unsold` are the variants the store
 * does not sell in that currency (no price set there, no rate): the caller refuses them, as 422
 * `VARIANT_CURRENCY_MISMATCH` with paths of its own body.
 */
export async function unitPricesFor(
  prices: PriceResolverStrategy,
  tx: TxReader,
  variants: readonly PricedVariant[],
  buyer: { customerId: string | null; currency: string },
): Promise<{ unitPrices: Map<string, number>; unsold: PricedVariant[] }> {
  const resolved = variants.length > 0 ? await prices.resolve(tx, variants, buyer) : new Map<string, ResolvedPrice>();
  const unitPrices = new Map([...resolved].map(([id, r]) => [id, Math.min(r.price, r.catalogPrice)]));
  return { unitPrices, unsold: variants.filter((v) => !resolved.has(v.id)) };
}

/**
 * The catalog's price of each variant, for every buyer: its own, with no statement; in another
 * currency its explicit price there (one statement for the batch), else the derived one, else none.
 */
export class CatalogPriceResolver implements PriceResolverStrategy {
  async resolve(tx: TxReader, variants: readonly PricedVariant[], buyer?: PriceBuyer): Promise<Map<string, ResolvedPrice>> {
    const currency = buyer?.currency;
    const other = currency ? variants.filter((v) => v.currency !== currency) : [];
    const prices = new Map(variants.filter((v) => !other.includes(v)).map((v) => [v.id, catalogPriceOf(v)]));
    if (other.length === 0 || !currency) return prices;
    for (const [id, price] of await catalogPricesIn(tx, other, currency)) prices.set(id, price);
    return prices;
  }
}

/**
 * The catalog's prices of `variants` in `currency` (none of them stored in it): the explicit ones,
 * else derived from the default currency's by the store's rate and rounding. A variant with
 * neither, or a currency the store does not sell in, is left out. For resolvers of other plugins too.
 */
export async function catalogPricesIn(tx: TxReader, variants: readonly PricedVariant[], currency: string): Promise<Map<string, ResolvedPrice>> {
  const out = new Map<string, ResolvedPrice>();
  if (variants.length === 0) return out;
  const money = TenantContext.principal()?.money ?? (await storeMoney(tx));
  if (!currencyOf(money, currency)) return out;
  const rows = await tx.query<{ variant_id: string; amount: string | number }>(
    'select variant_id, amount from catalog_variant_price where tenant_id = ? and currency = ? and variant_id = any(?::uuid[])',
    [tx.tenantId, currency, uuidArray(variants.map((v) => v.id))],
  );
  const explicit = new Map(rows.map((r) => [r.variant_id, Number(r.amount)]));
  for (const v of variants) {
    const amount = explicit.get(v.id) ?? (v.currency === money.defaultCurrency ? convertAmount(money, v.price, currency) : null);
    if (amount !== null) out.set(v.id, { variantId: v.id, catalogPrice: amount, price: amount, currency, priceListId: null, ruleId: null });
  }
  return out;
}

/** A variant at its catalog price. */
export function catalogPriceOf(v: PricedVariant): ResolvedPrice {
  return { variantId: v.id, catalogPrice: v.price, price: v.price, currency: v.currency, priceListId: null, ruleId: null };
}
