import { convertSql, currencyOf, currencyNotListed, TenantContext, type StoreMoney, moneyFor } from '@qhatu/core';

/**
 * Rates per currency (decision 0097). A rate row has its own currency; a service priced in a
 * currency it has no row in takes the row of the store's default currency, converted at the
 * store's rate and rounding (`qhatu_convert`, the SQL twin of core's `convertAmount`).
 */

/** The caller's store money (read with its token, no statement), or undefined outside a request. */
export function callerMoney(): StoreMoney | undefined {
  return TenantContext.principal()?.money;
}

/** The store's currencies: the caller's (no statement), else one statement (core's `moneyFor`). */
export const moneyOf = moneyFor;

/**
 * How the default currency's amounts are written in `currency`: a SQL expression of `amount`, or
 * null when nothing converts (it is the default, the store does not list it, or it has no rate).
 */
export function convertedAmountSql(money: StoreMoney | undefined, currency: string | undefined, amount = 'amount'): string | null {
  if (!money || !currency || currency === money.defaultCurrency) return null;
  const listed = currencyOf(money, currency);
  if (!listed || listed.rate === null) return null;
  return convertSql(money, amount, currency);
}

/** A rate is written in one of the store's currencies: else 422 CURRENCY_NOT_LISTED. */
export function assertListed(money: StoreMoney, currency: string, path: string): void {
  if (!money.currencies.some((c) => c.code === currency)) throw currencyNotListed(currency, money, path);
}
