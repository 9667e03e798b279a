import { inject, injectable } from 'tsyringe';
import { AccessTokens } from '../auth/tokens.js';
import { TenantContext } from '../context.js';
import type { SqlReader, TxReader } from '../db/database.js';
import { Database } from '../db/database.js';
import { AppError } from '../errors.js';
import { currencyRowsSql, normalizeRate, storeMoneyOf, type CurrencyRow, type Rounding, type StoreMoney } from './money.js';

/** At most this many currencies a store sells in (its default included). */
export const MAX_CURRENCIES = 20;

export interface CurrencyInput {
  code: string;
  rate?: string | null;
  rounding_increment?: number;
  rounding?: Rounding;
}

const MONEY_SQL = `select t.currency,
       ${currencyRowsSql('t.id')} as currencies
  from core_tenant t where t.id = ?`;

/**
 * The store's currencies for work on `sql`'s store: the caller's, read with its token (no
 * statement), when the caller is of that store; else `storeMoney` (one statement).
 */
export async function moneyFor(sql: TxReader | SqlReader): Promise<StoreMoney> {
  const principal = TenantContext.principal();
  return principal?.money && principal.tenantId === sql.tenantId ? principal.money : storeMoney(sql);
}

/**
 * The store's currencies and rates in one statement, for work that has no caller's token to read
 * them from (a job, a webhook); a request has them on its principal (`principal.money`).
 */
export async function storeMoney(sql: TxReader | SqlReader): Promise<StoreMoney> {
  const [row] = await sql.query<{ currency: string; currencies: CurrencyRow[] }>(MONEY_SQL, [sql.tenantId]);
  if (!row) throw AppError.notFound('Store');
  return storeMoneyOf(row.currency, row.currencies);
}

/**
 * The currencies a store sells in besides its default (decision 0097), with the rate and rounding
 * that derive prices in each from the default's. They ride on every token lookup; a change drops
 * the store's cached lookups in every process.
 */
@injectable()
export class Currencies {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(AccessTokens) private readonly tokens: AccessTokens,
  ) {}

  async get(): Promise<StoreMoney> {
    return this.db.read((sql) => storeMoney(sql));
  }

  /**
   * Replaces the currencies the store sells in besides its default (which is listed whatever is
   * sent: its rate is 1). A currency one of the store's markets sells in stays listed (409
   * CURRENCY_IN_USE). Prices set in a currency taken off the list are kept, unread, until it is
   * listed again.
   */
  async replace(tenantId: string, input: CurrencyInput[]): Promise<StoreMoney> {
    const money = await this.db.tenant(async (tx) => {
      // One writer of a store's currencies and markets at a time: a market cannot take a currency while it is dropped.
      await tx.query(`select pg_advisory_xact_lock(hashtext('core_market'), hashtext(?))`, [tx.tenantId]);
      const [store] = await tx.query<{ currency: string }>('select currency from core_tenant where id = ?', [tx.tenantId]);
      const defaultCurrency = store.currency.trim();
      const seen = new Set<string>();
      input.forEach((c, i) => {
        if (seen.has(c.code)) throw AppError.validation(`${c.code} is listed twice`, [{ path: `body.currencies.${i}.code`, message: 'is listed twice' }]);
        seen.add(c.code);
        if (c.code === defaultCurrency && c.rate !== undefined && c.rate !== null && normalizeRate(c.rate) !== '1') {
          throw AppError.unprocessable('DEFAULT_CURRENCY_RATE', `${defaultCurrency} is the store's default currency: its rate is 1`, [{ path: `body.currencies.${i}.rate`, message: 'must be 1 or absent for the default currency' }]);
        }
      });
      const others = input.filter((c) => c.code !== defaultCurrency);
      if (others.length + 1 > MAX_CURRENCIES) {
        throw AppError.unprocessable('TOO_MANY_CURRENCIES', `A store sells in at most ${MAX_CURRENCIES} currencies`, [{ path: 'body.currencies', message: `has more than ${MAX_CURRENCIES} currencies` }]);
      }
      const used = await tx.query<{ handle: string; currency: string }>('select handle, currency from core_market where tenant_id = ? order by handle', [tx.tenantId]);
      const dropped = used.filter((m) => m.currency.trim() !== defaultCurrency && !seen.has(m.currency.trim()));
      if (dropped.length > 0) {
        throw AppError.conflict(`${dropped[0].currency.trim()} is the currency of the market "${dropped[0].handle}": change the market first`, 'CURRENCY_IN_USE', dropped.map((m) => ({
          path: 'body.currencies', message: `${m.currency.trim()} is the market "${m.handle}"'s currency`, currency: m.currency.trim(), market: m.handle,
        })));
      }
      await tx.query('delete from core_store_currency where tenant_id = ?', [tx.tenantId]);
      const now = tx.now();
      for (const c of others) {
        await tx.query(
          'insert into core_store_currency (tenant_id, code, rate, rounding_increment, rounding, created_at, updated_at) values (?, ?, ?::numeric, ?, ?, ?, ?)',
          [tx.tenantId, c.code, c.rate ?? null, c.rounding_increment ?? 1, c.rounding ?? 'nearest', now, now],
        );
      }
      return storeMoney(tx);
    }, tenantId);
    await this.tokens.forgetTenant(tenantId);
    return money;
  }
}
