import { AppError, type KeptFacts, type TxReader } from '@qhatu/core';
import type { DependencyContainer } from 'tsyringe';

/** A line to tax: what it costs after every discount (volume, coupon share), minor units. */
export interface TaxableLine {
  variantId: string;
  productId: string;
  quantity: number;
  /** The line's final price: unit price × quantity less its discounts (B2B and marketplace prices included). */
  amount: number;
  /** The catalog's flag: false means exempt, whatever class the line has. */
  taxable: boolean;
  /** A line of no catalog variant (a draft order's custom line) names its class; its ids are then the line's own. */
  taxClass?: string;
}

/** Where the goods go; null before the shopper gave an address (the store's own country is used). */
export interface TaxAddress {
  country_code: string;
  province?: string | null;
}

export interface TaxRequest {
  currency: string;
  address: TaxAddress | null;
  lines: TaxableLine[];
  /** The shipping charge, minor units (0 without one). */
  shipping: number;
  /**
   * Whether the amounts asked about already include their tax, and so the quote must be in that
   * mode: a market's that says otherwise than the store (decision 0097), or an order's own when it is
   * quoted again (an edit of an order placed in such a market, or before the store changed its
   * setting). Absent or null: the store's own setting (the taxes plugin's `prices_include_tax`).
   * A calculator answers it back as `TaxQuote.pricesIncludeTax`; one that answers another mode is
   * worked out again by `taxesFor` (decision 0110).
   */
  pricesIncludeTax?: boolean | null;
}

/** The tax of one line: its rate in basis points (1800 = 18 %) and its amount, minor units. */
export interface LineTax {
  variantId: string;
  taxClass: string;
  rate: number;
  amount: number;
}

/**
 * The answer for a request: one `lines[n]` per `request.lines[n]`, the shipping's tax, and
 * whether the prices already include it (then `total` is shown, not added): the request's
 * `pricesIncludeTax` when it names one.
 */
export interface TaxQuote {
  pricesIncludeTax: boolean;
  lines: LineTax[];
  shipping: { rate: number; amount: number };
  /** The lines' amounts plus the shipping's, exactly. */
  total: number;
}

/**
 * The tax strategy: the taxes plugin registers its rate table under `TAX_CALCULATOR`; a plugin
 * that depends on it and registers another one (a provider that quotes live) replaces it. Without
 * any, nothing is taxed.
 */
export interface TaxCalculator {
  /**
   * The tax of the request's lines, in the mode `request.pricesIncludeTax` names (else the store's);
   * `prefetched`: what `originFactsSql` read, for a request without an address, or what
   * `placeFactsSql` read for the request's address.
   */
  calculate(tx: TxReader, request: TaxRequest, prefetched?: unknown): Promise<TaxQuote>;
  /**
   * Optional: what `calculate` reads for a request without an address (a cart), as an SQL
   * expression of one JSON value that a caller puts in a statement of its own and hands back as
   * `prefetched`, saving a round trip (the cart reads it in the one that locks it). `tenantSql`
   * names the tenant, `idsSql` selects the ids of the lines' variants and products.
   */
  originFactsSql?(tenantSql: string, idsSql: string): string;
  /**
   * Optional: what `calculate` reads for a request with an address, as `originFactsSql` does for one
   * without: `place.countrySql` and `place.provinceSql` are SQL of the address's country code and
   * province as given (the checkout's shipping step reads it in the statement that locks the checkout).
   */
  placeFactsSql?(tenantSql: string, idsSql: string, place: { countrySql: string; provinceSql: string }): string;
  /** Optional, with `originFactsSql`: its column kept in memory by id (decision 0049); the ids are the lines' variants and products. */
  readonly originFacts?: KeptFacts;
}

/** Where a tax calculator registers. */
export const TAX_CALCULATOR = Symbol.for('qhatu.orders.TaxCalculator');
/** What orders and checkout resolve: the last registered `TAX_CALCULATOR`, or `NO_TAX`. */
export const OrderTaxes = Symbol.for('qhatu.orders.OrderTaxes');

/** No tax at all: a store without the taxes plugin (in the mode asked, else exclusive). */
export const NO_TAX: TaxCalculator = {
  async calculate(_tx, request) {
    return { pricesIncludeTax: request.pricesIncludeTax ?? false, lines: request.lines.map((l) => ({ variantId: l.variantId, taxClass: 'standard', rate: 0, amount: 0 })), shipping: { rate: 0, amount: 0 }, total: 0 };
  },
};

/**
 * The calculator in force, resolved once every plugin has registered (so the taxes plugin may
 * come after orders and checkout in the load order).
 */
export function taxCalculatorOf(container: DependencyContainer): TaxCalculator {
  return container.isRegistered(TAX_CALCULATOR, true) ? container.resolve<TaxCalculator>(TAX_CALCULATOR) : NO_TAX;
}

/** Whether the quote answers these lines (same variants, same order). */
export function quoteFits(quote: TaxQuote, lines: Array<{ variantId: string }>): boolean {
  return quote.lines.length === lines.length && quote.lines.every((l, n) => l.variantId === lines[n].variantId);
}

/**
 * Shares `amount` among `weights` in proportion, to the minor unit, so that the shares add up to
 * `amount` exactly (largest remainders get the leftover units). Used to spread an order-level
 * discount over its lines before tax.
 */
export function allocate(amount: number, weights: number[]): number[] {
  const sum = weights.reduce((s, w) => s + Math.max(w, 0), 0);
  if (amount <= 0 || sum <= 0) return weights.map(() => 0);
  const whole = Math.min(amount, sum);
  const exact = weights.map((w) => (BigInt(Math.max(w, 0)) * BigInt(whole)));
  const shares = exact.map((e) => Number(e / BigInt(sum)));
  let left = whole - shares.reduce((s, x) => s + x, 0);
  const order = exact.map((e, n) => ({ n, rest: e % BigInt(sum) })).sort((a, b) => (b.rest > a.rest ? 1 : b.rest < a.rest ? -1 : a.n - b.n));
  for (const { n } of order) {
    if (left <= 0) break;
    shares[n] += 1;
    left -= 1;
  }
  return shares;
}

/**
 * The tax in an amount at `rate` basis points, rounded half up to the minor unit (decision 0039):
 * added on top (`amount × rate / 10000`) or taken out of it (`amount × rate / (10000 + rate)`).
 * Integer arithmetic, so large amounts stay exact. The taxes plugin's rate table computes with it.
 */
export function taxOf(amount: number, rate: number, inclusive: boolean): number {
  if (amount <= 0 || rate <= 0) return 0;
  const num = BigInt(amount) * BigInt(rate);
  const den = BigInt(inclusive ? 10_000 + rate : 10_000);
  return Number((2n * num + den) / (2n * den));
}

/**
 * The quote in the mode the request asked for. Only a fallback: a calculator that ignores
 * `pricesIncludeTax` (a provider's plugin written before it) answers in the store's mode, and each
 * line's and the shipping's tax is then worked out again at the rate it gave (taken out of the
 * amount, or added to it), rounded as the rate table rounds. A quote in the mode asked, or a
 * request that names none, is kept as the calculator answered it (its own rules and rounding).
 */
export function inTaxMode(quote: TaxQuote, request: Pick<TaxRequest, 'lines' | 'shipping' | 'pricesIncludeTax'>): TaxQuote {
  const inclusive = request.pricesIncludeTax ?? null;
  if (inclusive === null || quote.pricesIncludeTax === inclusive) return quote;
  const lines = quote.lines.map((line, n) => ({ ...line, amount: taxOf(request.lines[n].amount, line.rate, inclusive) }));
  const shipping = { rate: quote.shipping.rate, amount: taxOf(request.shipping, quote.shipping.rate, inclusive) };
  return { pricesIncludeTax: inclusive, lines, shipping, total: lines.reduce((sum, l) => sum + l.amount, 0) + shipping.amount };
}

/**
 * Asks the calculator; one that fails (a provider unreachable) is a 503 TAX_UNAVAILABLE, so that
 * nothing is written and the storefront may try again, rather than an order without its tax. The
 * answer is in the request's `pricesIncludeTax` when it names one (`inTaxMode`).
 */
export async function taxesFor(calculator: TaxCalculator, tx: TxReader, request: TaxRequest, prefetched?: unknown): Promise<TaxQuote> {
  let quote: TaxQuote;
  try {
    quote = await calculator.calculate(tx, request, prefetched);
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError(503, 'TAX_UNAVAILABLE', 'The tax could not be worked out just now; try again', [{ message: error instanceof Error ? error.message : String(error) }]);
  }
  if (!quoteFits(quote, request.lines)) {
    throw new AppError(503, 'TAX_UNAVAILABLE', 'The tax calculator answered for other lines than asked', [{ message: 'one answer per line, in order' }]);
  }
  return inTaxMode(quote, request);
}
