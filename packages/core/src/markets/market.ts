import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { TenantContext, type Principal } from '../context.js';
import { AppError } from '../errors.js';
import { CurrencyCode } from '../http/schemas.js';
import { currencyNotListed } from './money.js';

/**
 * A market (decision 0097): countries a store sells to with one currency, a default locale and
 * its own tax mode (Peru: PEN, es-PE, IGV included; the United States: USD, en-US, tax added).
 */
export interface Market {
  id: string;
  /** What a request names it by: `?market=pe`, `X-Market: pe`. */
  handle: string;
  name: string;
  /** ISO 3166 alpha-2 codes; empty: any country. */
  countries: readonly string[];
  currency: string;
  defaultLocale: string;
  /** Whether its prices include tax; null: the store's tax setting. */
  pricesIncludeTax: boolean | null;
}

/** A market's row, as SQL (or `json_agg`) gives it. */
export interface MarketRow {
  id: string;
  handle: string;
  name: string;
  countries: string[] | null;
  currency: string;
  default_locale: string;
  prices_include_tax: boolean | null;
  created_at?: string | Date;
  updated_at?: string | Date;
}

export interface StoredMarket extends Market {
  createdAt: Date;
  updatedAt: Date;
}

export function marketOf(row: MarketRow): StoredMarket {
  return {
    id: row.id,
    handle: row.handle,
    name: row.name,
    countries: [...(row.countries ?? [])],
    currency: row.currency.trim(),
    defaultLocale: row.default_locale,
    pricesIncludeTax: row.prices_include_tax,
    createdAt: new Date(row.created_at ?? 0),
    updatedAt: new Date(row.updated_at ?? 0),
  };
}

/** The store's markets from the token lookup's `json_agg`. */
export function marketsOf(rows: MarketRow[] | null | undefined): Market[] {
  return (rows ?? []).map((row) => {
    const { createdAt: _c, updatedAt: _u, ...market } = marketOf(row);
    return market;
  });
}

/** The header a storefront names its market with. */
export const MARKET_HEADER = 'x-market';

export const MARKET_HANDLE = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** What a request is priced in: its market (if it named one) and the currency it reads. */
export interface MarketChoice {
  market: Market | null;
  currency: string;
  /** The currency is not the store's default: prices are the explicit or derived ones in it. */
  converted: boolean;
  /** The market's tax mode; null: the store's setting. */
  pricesIncludeTax: boolean | null;
}

/** 422 MARKET_NOT_FOUND: a handle that names none of the store's markets. */
export function marketNotFound(handle: string, markets: readonly Market[] | undefined, path: string): AppError {
  const handles = (markets ?? []).map((m) => m.handle);
  return AppError.unprocessable('MARKET_NOT_FOUND', `The store has no market "${handle}"${handles.length ? `; its markets are ${handles.join(', ')}` : ''}`, [
    { path, message: 'is not one of the store\u2019s markets', market: handle, markets: handles },
  ]);
}

/** The market `handle` names among the principal's store's, or a 422 MARKET_NOT_FOUND. */
export function findMarket(markets: readonly Market[] | undefined, handle: string, path: string): Market {
  const wanted = handle.trim().toLowerCase();
  const market = markets?.find((m) => m.handle === wanted);
  if (!market) throw marketNotFound(wanted, markets, path);
  return market;
}

/**
 * What a request is priced in: the market it names (`asked.market`), its currency and tax mode;
 * else the currency asked (one the store sells in), else the default. A currency asked beside a
 * market must be the market's. Without the store's money (the platform), nothing is converted.
 */
export function chooseMarket(
  principal: Pick<Principal, 'money' | 'markets'> | undefined,
  asked: { market?: string | null; currency?: string | null },
  paths: { market: string; currency: string } = { market: 'querystring.market', currency: 'querystring.currency' },
): MarketChoice {
  const money = principal?.money;
  const market = asked.market ? findMarket(principal?.markets, asked.market, paths.market) : null;
  const wanted = asked.currency ? asked.currency.trim().toUpperCase() : null;
  if (wanted && market && wanted !== market.currency) {
    throw AppError.unprocessable('CURRENCY_NOT_LISTED', `The market "${market.handle}" sells in ${market.currency}, not ${wanted}`, [
      { path: paths.currency, message: 'is not the market\u2019s currency', currency: wanted, currencies: [market.currency] },
    ]);
  }
  if (wanted && money && !money.currencies.some((c) => c.code === wanted)) throw currencyNotListed(wanted, money, paths.currency);
  const fallback = money?.defaultCurrency ?? wanted ?? '';
  const currency = market?.currency ?? wanted ?? fallback;
  return { market, currency, converted: money !== undefined && currency !== money.defaultCurrency, pricesIncludeTax: market?.pricesIncludeTax ?? null };
}

/** The market a request names: `?market=`, else the `X-Market` header. */
export function askedMarket(request: FastifyRequest): { value: string; path: string } | null {
  const query = request.query as { market?: unknown } | undefined;
  if (typeof query?.market === 'string' && query.market !== '') return { value: query.market, path: 'querystring.market' };
  const header = request.headers[MARKET_HEADER];
  const value = Array.isArray(header) ? header[0] : header;
  return value ? { value, path: 'headers.x-market' } : null;
}

/** The market the `X-Market` header names (a 422 MARKET_NOT_FOUND for an unknown one), or null. */
export function headerMarket(principal: Pick<Principal, 'markets'> | undefined, request: Pick<FastifyRequest, 'headers'>): Market | null {
  const header = request.headers[MARKET_HEADER];
  const value = Array.isArray(header) ? header[0] : header;
  return value && principal?.markets ? findMarket(principal.markets, value, 'headers.x-market') : null;
}

/** What a storefront request is priced in (see `chooseMarket`): `?market=` or `X-Market`, and `?currency=`. */
export function requestMarket(request: FastifyRequest): MarketChoice {
  const principal = TenantContext.principal();
  const market = askedMarket(request);
  const query = request.query as { currency?: unknown } | undefined;
  const currency = typeof query?.currency === 'string' && query.currency !== '' ? query.currency : null;
  return chooseMarket(principal, { market: market?.value ?? null, currency }, { market: market?.path ?? 'querystring.market', currency: 'querystring.currency' });
}

/** The read cache's key part of a choice: empty for the default currency, the code otherwise. */
export function moneyKey(choice: MarketChoice): string {
  return choice.converted ? `${choice.currency}\u0001` : '';
}

export const MARKET_PARAMETER = "The market to price in, by handle (or the X-Market header): its currency, its locale when none is asked, and its tax mode. Unknown: 422 MARKET_NOT_FOUND.";
export const CURRENCY_PARAMETER = "The currency to price in, one the store sells in (another is a 422 CURRENCY_NOT_LISTED). Absent: the market's, else the store's default.";

/** The query string of a read priced in a market or a currency. */
export const MarketQuery = z.object({
  market: z.string().max(64).optional().meta({ description: MARKET_PARAMETER }),
  currency: CurrencyCode.optional().meta({ description: CURRENCY_PARAMETER }),
});
