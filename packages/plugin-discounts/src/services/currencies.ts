import { AppError, convertAmount, currencyNotListed, currencyOf, type ErrorDetail, type StoreMoney, type TxReader, moneyFor } from '@qhatu/core';
import type { AmountsByCurrency, Coupon } from '../entities/coupon.js';

/**
 * Coupons and tiers in the store's currencies (decision 0097): an amount is the one set for the
 * currency, else the one derived from the default currency's by the store's rate; neither, and the
 * coupon (or tier) does not apply in that currency.
 */

/** The store's currencies: the caller's (no statement), else one statement (core's `moneyFor`). */
export const moneyOf = moneyFor;

/** An amount of `own` currency in `currency`: itself, the one set, or derived when `own` is the store's default; else null. */
export function amountIn(money: StoreMoney, amount: number, own: string, set: AmountsByCurrency | null | undefined, currency: string): number | null {
  if (currency === own) return amount;
  if (!currencyOf(money, currency)) return null;
  const explicit = set?.[currency];
  if (explicit !== undefined) return explicit;
  return own === money.defaultCurrency ? convertAmount(money, amount, currency) : null;
}

/** What a coupon gives and asks in one currency. */
export interface CouponTermsIn {
  /** Basis points (percentage) or minor units of the currency (fixed_amount). */
  value: number;
  minOrderAmount: number;
}

type PricedCoupon = Pick<Coupon, 'type' | 'value' | 'currency' | 'amounts' | 'minOrderAmount' | 'minOrderAmounts'>;

/**
 * The coupon's value and minimum in `currency`, or null when it does not apply in it. Its own
 * currency needs no statement; another reads the store's currencies (free with a caller's token).
 */
export async function couponTermsIn(tx: TxReader, coupon: PricedCoupon, currency: string | null | undefined): Promise<CouponTermsIn | null> {
  if (!currency || currency === coupon.currency) return { value: coupon.value, minOrderAmount: coupon.minOrderAmount };
  const money = await moneyOf(tx);
  if (!currencyOf(money, currency)) return null;
  const value = coupon.type === 'percentage' ? coupon.value : amountIn(money, coupon.value, coupon.currency, coupon.amounts, currency);
  const minOrderAmount =
    coupon.minOrderAmount === 0 && coupon.minOrderAmounts?.[currency] === undefined ? 0 : amountIn(money, coupon.minOrderAmount, coupon.currency, coupon.minOrderAmounts, currency);
  return value === null || minOrderAmount === null ? null : { value, minOrderAmount };
}

/**
 * Amounts by currency as sent: each code one of the store's currencies (422 CURRENCY_NOT_LISTED)
 * and not the owner's own currency, whose amount is set apart (400). Reads the store's currencies
 * only when there is a code to check.
 */
export async function assertAmounts(
  tx: TxReader,
  own: string,
  fields: Array<{ path: string; amounts: AmountsByCurrency | null | undefined; ownField: string }>,
): Promise<void> {
  const sent = fields.filter((f) => f.amounts && Object.keys(f.amounts).length > 0);
  if (sent.length === 0) return;
  const details: ErrorDetail[] = [];
  for (const f of sent) {
    for (const code of Object.keys(f.amounts!)) {
      if (code === own) details.push({ path: `${f.path}.${code}`, message: `is the ${own} amount: send it as ${f.ownField}` });
    }
  }
  if (details.length > 0) throw AppError.validation(`${details[0].path}: ${details[0].message}`, details);
  const money = await moneyOf(tx);
  for (const f of sent) {
    for (const code of Object.keys(f.amounts!)) {
      if (!currencyOf(money, code)) throw currencyNotListed(code, money, `${f.path}.${code}`);
    }
  }
}
