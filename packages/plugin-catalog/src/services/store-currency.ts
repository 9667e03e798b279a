import { AppError } from '@qhatu/core';

/**
 * 422 VARIANT_CURRENCY_MISMATCH: a store sells in its own currency (carts, orders and taxes count
 * on it), so each currency sent must be the store's; absent, the store's is taken.
 */
export function assertStoreCurrency(store: string, given: Array<[path: string, currency: string | undefined]>): void {
  const wrong = given.filter(([, currency]) => currency !== undefined && currency !== store);
  if (wrong.length === 0) return;
  throw AppError.unprocessable(
    'VARIANT_CURRENCY_MISMATCH',
    `This store sells in ${store}: a variant's price must be in ${store}`,
    wrong.map(([path, currency]) => ({ path, message: `must be the store's currency, ${store}`, currency, store_currency: store })),
  );
}
