import { AppError, chooseMarket, TenantContext, type Market, type MarketChoice } from '@qhatu/core';

/**
 * A cart's market and what it decides (decision 0097): the currency a cart is made in, whether its
 * prices include tax, and the countries its checkout ships to. The store's currencies and markets
 * ride on the caller's token (`principal.money`, `principal.markets`): no statement of their own.
 */

/** Where a request named the market it makes a cart in: the body's `market`, else `?market=` or the `X-Market` header. */
export interface AskedMarket {
  value: string;
  path: string;
}

/**
 * The market and currency of a new cart: the market's currency; else the currency sent, one the
 * store sells in (422 CURRENCY_NOT_LISTED); else the store's default. An unknown market is 422
 * MARKET_NOT_FOUND; a currency beside a market must be the market's.
 */
export function cartMarket(asked: AskedMarket | null, currency: string | undefined): MarketChoice | null {
  const principal = TenantContext.principal();
  // Without the store's money (no store caller), the currency sent or the store's default, as before markets.
  if (!principal?.money) return null;
  return chooseMarket(principal, { market: asked?.value ?? null, currency: currency ?? null }, { market: asked?.path ?? 'body.market', currency: 'body.currency' });
}

/** The market of `marketId` among the caller's store's markets; undefined when it was deleted (or there is no store caller). */
export function marketOfId(marketId: string | null | undefined): Market | undefined {
  if (!marketId) return undefined;
  return TenantContext.principal()?.markets?.find((m) => m.id === marketId);
}

/** What a cart or checkout keeps of its market. */
export interface MarketTerms {
  marketId?: string | null;
  marketPricesIncludeTax?: boolean | null;
}

/**
 * Whether the prices of a cart or checkout include tax by its market: the market's say now, else
 * (the market deleted) what the cart was last priced with; null: the store's tax setting.
 */
export function marketTaxMode(target: MarketTerms): boolean | null {
  if (!target.marketId) return null;
  const market = marketOfId(target.marketId);
  return market ? market.pricesIncludeTax : (target.marketPricesIncludeTax ?? null);
}

/**
 * A market that lists countries ships only to them: another is 422 COUNTRY_NOT_IN_MARKET. A market
 * that lists none, or one deleted since the cart was made, ships anywhere the store does.
 */
export function assertShipsTo(marketId: string | null | undefined, countryCode: string): void {
  const market = marketOfId(marketId);
  if (!market || market.countries.length === 0 || market.countries.includes(countryCode)) return;
  throw AppError.unprocessable('COUNTRY_NOT_IN_MARKET', `The market "${market.handle}" ships to ${market.countries.join(', ')}, not ${countryCode}`, [
    { path: 'body.shipping_address.country_code', message: 'is not one of the market\u2019s countries', country_code: countryCode, market: market.handle, countries: [...market.countries] },
  ]);
}
