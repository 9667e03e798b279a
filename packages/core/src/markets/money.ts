import { AppError } from '../errors.js';

/**
 * The currencies a store sells in (decision 0097): its default (`core_tenant.currency`, the
 * variants' own prices) and the others it lists, each with the rate that derives prices in it from
 * the default's and its rounding rule.
 */

/** How a derived amount is rounded to the currency's increment. */
export type Rounding = 'nearest' | 'up' | 'down';

export interface StoreCurrency {
  /** ISO 4217 code. */
  code: string;
  /**
   * How many units of this currency one unit of the default buys, as a decimal string (`"0.27"`);
   * `"1"` for the default itself; null: prices in it are only those set explicitly.
   */
  rate: string | null;
  /** Derived amounts are rounded to a multiple of this many minor units (1: to the cent). */
  roundingIncrement: number;
  rounding: Rounding;
  /** ISO 4217 minor-unit digits: 2 for PEN and USD, 0 for JPY and CLP. */
  decimals: number;
}

export interface StoreMoney {
  defaultCurrency: string;
  /** Every currency the store sells in, the default first. */
  currencies: readonly StoreCurrency[];
}

const decimalsCache = new Map<string, number>();

/** ISO 4217 minor-unit digits of a currency, as `Intl` knows them (2 when it does not). */
export function currencyDecimals(code: string): number {
  let digits = decimalsCache.get(code);
  if (digits === undefined) {
    try {
      digits = new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      digits = 2;
    }
    decimalsCache.set(code, digits);
  }
  return digits;
}

/** The default currency alone: what a store that lists no other sells in. */
export function defaultCurrencyOf(code: string): StoreCurrency {
  return { code, rate: '1', roundingIncrement: 1, rounding: 'nearest', decimals: currencyDecimals(code) };
}

/** A store's money from its record: its default currency and the rows of the others. */
export function storeMoneyOf(
  defaultCurrency: string,
  others: readonly CurrencyRow[] | null | undefined,
): StoreMoney {
  const code = defaultCurrency.trim();
  return {
    defaultCurrency: code,
    currencies: [
      defaultCurrencyOf(code),
      ...(others ?? [])
        .filter((c) => c.code.trim() !== code)
        .map((c) => ({ code: c.code.trim(), rate: c.rate === null ? null : normalizeRate(String(c.rate)), roundingIncrement: Number(c.rounding_increment), rounding: c.rounding, decimals: currencyDecimals(c.code.trim()) })),
    ],
  };
}

/** The row of the store's other currencies that `storeMoneyOf` takes. */
export type CurrencyRow = { code: string; rate: string | null; rounding_increment: number; rounding: Rounding };

/** SQL of the store's other currencies as a JSON array of `CurrencyRow`, for the store `tenantIdSql` names. */
export function currencyRowsSql(tenantIdSql: string): string {
  return `(select coalesce(json_agg(json_build_object('code', c.code, 'rate', c.rate::text, 'rounding_increment', c.rounding_increment, 'rounding', c.rounding) order by c.code), '[]')
     from core_store_currency c where c.tenant_id = ${tenantIdSql})`;
}

/** One of the store's currencies, or undefined when it does not sell in it. */
export function currencyOf(money: StoreMoney | undefined, code: string): StoreCurrency | undefined {
  return money?.currencies.find((c) => c.code === code);
}

/** `"0.2700"` → `"0.27"`, `"3.50"` → `"3.5"`, `"2.000"` → `"2"`. */
export function normalizeRate(rate: string): string {
  if (!rate.includes('.')) return rate;
  const trimmed = rate.replace(/0+$/, '');
  return trimmed.endsWith('.') ? trimmed.slice(0, -1) : trimmed;
}

/** A rate as an integer numerator over 10^scale. */
function rational(rate: string): { numerator: bigint; scale: number } {
  const [whole, fraction = ''] = rate.split('.');
  return { numerator: BigInt(`${whole}${fraction}`), scale: fraction.length };
}

function divideRounded(numerator: bigint, denominator: bigint, rounding: Rounding): bigint {
  const quotient = numerator / denominator;
  const remainder = numerator % denominator;
  if (remainder === 0n) return quotient;
  // Amounts are never negative here; a negative one rounds by the same rule on its magnitude.
  const negative = numerator < 0n !== denominator < 0n;
  if (rounding === 'up') return negative ? quotient : quotient + 1n;
  if (rounding === 'down') return negative ? quotient - 1n : quotient;
  const twice = (remainder < 0n ? -remainder : remainder) * 2n;
  const whole = denominator < 0n ? -denominator : denominator;
  if (twice >= whole) return negative ? quotient - 1n : quotient + 1n;
  return quotient;
}

/**
 * An amount in minor units of `from` converted at `rate` into minor units of `to`, rounded to
 * `to`'s increment by its rule: `amount × rate × 10^(decimals(to) − decimals(from))`, exactly.
 */
export function convertAt(amount: number, rate: string, fromDecimals: number, to: Pick<StoreCurrency, 'decimals' | 'roundingIncrement' | 'rounding'>): number {
  const { numerator, scale } = rational(rate);
  const shift = to.decimals - fromDecimals;
  let top = BigInt(amount) * numerator;
  let bottom = 10n ** BigInt(scale) * BigInt(to.roundingIncrement);
  if (shift > 0) top *= 10n ** BigInt(shift);
  else if (shift < 0) bottom *= 10n ** BigInt(-shift);
  return Number(divideRounded(top, bottom, to.rounding) * BigInt(to.roundingIncrement));
}

/**
 * An amount in minor units of the store's default currency, in `to`: itself for the default,
 * derived by the rate and rounding of `to` otherwise, null when `to` has no rate or is not the
 * store's.
 */
export function convertAmount(money: StoreMoney, amount: number, to: string): number | null {
  if (to === money.defaultCurrency) return amount;
  const currency = currencyOf(money, to);
  if (!currency || currency.rate === null) return null;
  return convertAt(amount, currency.rate, money.currencies[0]!.decimals, currency);
}

/**
 * The SQL expression of `convertAmount` for an amount expression of the default currency
 * (`qhatu_convert`, core migration 0010): the expression itself for the default, `NULL` when `to`
 * has no rate. Only literals of the store's own settings are written into it.
 */
export function convertSql(money: StoreMoney, amountExpr: string, to: string): string {
  if (to === money.defaultCurrency) return amountExpr;
  const currency = currencyOf(money, to);
  if (!currency || currency.rate === null) return 'NULL::bigint';
  const shift = currency.decimals - money.currencies[0]!.decimals;
  return `qhatu_convert((${amountExpr})::bigint, ${currency.rate}::numeric, ${shift}, ${currency.roundingIncrement}, '${currency.rounding}')`;
}

/** 422 CURRENCY_NOT_LISTED: a currency the store does not sell in. */
export function currencyNotListed(code: string, money: StoreMoney | undefined, path: string): AppError {
  const listed = money ? money.currencies.map((c) => c.code) : [];
  return AppError.unprocessable('CURRENCY_NOT_LISTED', `The store does not sell in ${code}${listed.length ? `; it sells in ${listed.join(', ')}` : ''}`, [
    { path, message: 'is not one of the store\u2019s currencies', currency: code, currencies: listed },
  ]);
}
