import { AppError, convertSql, currencyNotListed, currencyOf, uuidArray, type SqlReader, type StoreMoney, type TxReader, moneyFor } from '@qhatu/core';

/**
 * Prices in the store's other currencies (decision 0097): a variant's own `price` is in the
 * default currency; in another it has an explicit price (`catalog_variant_price`), else one derived
 * from its own by the store's rate and rounding; with neither it is not for sale there.
 */

/** A variant's explicit price in one currency, as staff set it and admin reads show it. */
export interface VariantPrice {
  currency: string;
  amount: number;
  compare_at_amount: number | null;
}

/** An explicit price as sent (`compare_at_amount` absent: none). */
export type VariantPriceInput = Omit<VariantPrice, 'compare_at_amount'> & { compare_at_amount?: number | null };

/** What a read is priced in when it is not the store's default currency. */
export interface PricedIn {
  money: StoreMoney;
  currency: string;
}

const CODE = /^[A-Z]{3}$/;

/** The store's currencies: the caller's (no statement), else one statement (core's `moneyFor`). */
export const moneyOf = moneyFor;

/**
 * The part of a read cache key after `moneyKey` for a read priced in another currency: its rate and
 * rounding, so that a new rate is a new key at once (empty for the default currency).
 */
export function rateKey(priced: PricedIn | undefined): string {
  if (!priced) return '';
  const c = currencyOf(priced.money, priced.currency);
  return `${c?.rate ?? '-'}/${c?.roundingIncrement ?? 1}/${c?.rounding ?? ''}\u0001`;
}

/** Whether the store sells in currencies besides its default (admin reads show explicit prices then). */
export const sellsInOthers = (money: StoreMoney | undefined): money is StoreMoney => (money?.currencies.length ?? 1) > 1;

/**
 * 422 CURRENCY_NOT_LISTED for a price in a currency the store does not sell in, or in its default
 * (that price is the variant's own `price`); 400 for a currency given twice.
 */
export function checkPrices(money: StoreMoney, prices: readonly VariantPriceInput[], path: string): void {
  const seen = new Set<string>();
  prices.forEach((p, i) => {
    const at = `${path}.${i}.currency`;
    if (seen.has(p.currency)) throw AppError.validation(`${p.currency} is priced twice`, [{ path: at, message: 'is given twice' }]);
    seen.add(p.currency);
    if (p.currency === money.defaultCurrency) {
      const others = money.currencies.slice(1).map((c) => c.code);
      throw AppError.unprocessable('CURRENCY_NOT_LISTED', `${p.currency} is the store's default currency: its price is the variant's price`, [
        { path: at, message: 'is the default currency: set the variant\u2019s price instead', currency: p.currency, currencies: others },
      ]);
    }
    if (!money.currencies.some((c) => c.code === p.currency)) throw currencyNotListed(p.currency, money, at);
  });
}

/** Replaces the explicit prices of each variant given (all of them: an empty list removes them). */
export async function replacePrices(tx: TxReader, byVariant: ReadonlyMap<string, readonly VariantPriceInput[]>): Promise<void> {
  if (byVariant.size === 0) return;
  await tx.query('delete from catalog_variant_price where tenant_id = ? and variant_id = any(?::uuid[])', [tx.tenantId, uuidArray(byVariant.keys())]);
  const rows = [...byVariant].flatMap(([variantId, prices]) => prices.map((p) => [variantId, p] as const));
  if (rows.length === 0) return;
  const now = tx.now();
  await tx.query(
    `insert into catalog_variant_price (tenant_id, variant_id, currency, amount, compare_at_amount, created_at, updated_at)
     values ${rows.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
    rows.flatMap(([variantId, p]) => [tx.tenantId, variantId, p.currency, p.amount, p.compare_at_amount ?? null, now, now]),
  );
}

/** Explicit prices by variant and currency, as written: what a write answers without reading them back. */
export function pricesAsSent(byVariant: ReadonlyMap<string, readonly VariantPriceInput[]>): Map<string, VariantPrice[]> {
  return new Map([...byVariant].map(([id, prices]) => [id, sortedPrices(prices.map((p) => ({ currency: p.currency, amount: p.amount, compare_at_amount: p.compare_at_amount ?? null })))]));
}

/**
 * The explicit prices of `variantIds` in the currencies the store lists (one kept for a currency
 * taken off the list stays unread); no statement for a store of one currency.
 */
export async function explicitPrices(sql: TxReader | SqlReader, variantIds: readonly string[], money: StoreMoney | undefined): Promise<Map<string, VariantPrice[]>> {
  const found = new Map<string, VariantPrice[]>();
  if (!sellsInOthers(money) || variantIds.length === 0) return found;
  const rows = await sql.query<{ variant_id: string; currency: string; amount: string | number; compare_at_amount: string | number | null }>(
    `select variant_id, currency, amount, compare_at_amount from catalog_variant_price
      where tenant_id = ? and variant_id = any(?::uuid[]) and currency = any(?::text[]) order by variant_id, currency`,
    [sql.tenantId, uuidArray(variantIds), `{${money.currencies.slice(1).map((c) => c.code).join(',')}}`],
  );
  for (const r of rows) {
    const price = { currency: r.currency.trim(), amount: Number(r.amount), compare_at_amount: r.compare_at_amount === null ? null : Number(r.compare_at_amount) };
    found.set(r.variant_id, [...(found.get(r.variant_id) ?? []), price]);
  }
  return found;
}

/** The explicit prices of a variant as admin JSON made by PostgreSQL (`v`: the variant's alias), in the currencies listed. */
export function explicitPricesJson(money: StoreMoney, v: string): string {
  const listed = money.currencies.slice(1).map((c) => c.code).filter((c) => CODE.test(c)).map((c) => `'${c}'`).join(', ');
  return `coalesce((select json_agg(json_build_object('currency', rtrim(xp.currency), 'amount', xp.amount, 'compare_at_amount', xp.compare_at_amount) order by xp.currency)
    from catalog_variant_price xp where xp.tenant_id = ${v}.tenant_id and xp.variant_id = ${v}.id and xp.currency in (${listed})), '[]')`;
}

function sortedPrices(prices: VariantPrice[]): VariantPrice[] {
  return prices.sort((a, b) => (a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0));
}

/**
 * A variant's price in a currency other than the default, as SQL over the variant `v`: `join`
 * brings its explicit price (`vprice`), `price` and `compareAt` are the explicit ones, else its own
 * when it is stored in that currency, else those derived from the default's (`convertSql`);
 * `sellable` holds when it has a price there. Only literals of the store's own settings are written.
 */
export function priceInSql(priced: PricedIn, v: string): { join: string; price: string; compareAt: string; currency: string; sellable: string } {
  const { money, currency } = priced;
  if (!CODE.test(currency) || !CODE.test(money.defaultCurrency)) throw new Error('Not a currency code');
  const derived = (column: string) => `case ${v}.currency when '${currency}' then ${v}.${column}::bigint when '${money.defaultCurrency}' then ${convertSql(money, `${v}.${column}`, currency)} end`;
  const price = `coalesce(vprice.amount, ${derived('price')})`;
  return {
    join: `left join catalog_variant_price vprice on vprice.tenant_id = ${v}.tenant_id and vprice.variant_id = ${v}.id and vprice.currency = '${currency}'`,
    price,
    compareAt: `case when vprice.amount is not null then vprice.compare_at_amount else ${derived('compare_at_price')} end`,
    currency: `'${currency}'::text`,
    sellable: `${price} is not null`,
  };
}
