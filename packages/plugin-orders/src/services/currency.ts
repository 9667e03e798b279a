import { AppError, type ErrorDetail } from '@qhatu/core';
import type { PlaceOrderInput } from './orders.js';

/**
 * Every line's variant priced in the store's currency: a variant written in another before the
 * catalog refused one would make an order in that currency taxed as the store's. 422 naming each line.
 */
export function assertStoreCurrency(lines: PlaceOrderInput['lines'], variants: Map<string, { currency: string }>, store: string): void {
  const wrong: ErrorDetail[] = lines.flatMap((l, n) => {
    const currency = variants.get(l.variantId)!.currency;
    return currency === store ? [] : [{ path: `body.line_items.${n}.variant_id`, message: `is priced in ${currency}, not in the store's ${store}`, variant_id: l.variantId, currency, store_currency: store }];
  });
  if (wrong.length === 0) return;
  throw AppError.unprocessable('VARIANT_CURRENCY_MISMATCH', `This store sells in ${store}: ${wrong.length === 1 ? 'a variant is' : 'variants are'} priced in another currency`, wrong);
}
