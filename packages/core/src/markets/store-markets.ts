import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import { AccessTokens } from '../auth/tokens.js';
import { Database, type Tx } from '../db/database.js';
import { AppError } from '../errors.js';
import { localeNotListed, normalizeLocale, storeLocales } from '../translations/locales.js';
import { marketOf, type MarketRow, type StoredMarket } from './market.js';
import { currencyNotListed, currencyRowsSql, storeMoneyOf, type CurrencyRow } from './money.js';

/** At most this many markets a store has. */
export const MAX_MARKETS = 50;

export interface MarketInput {
  handle: string;
  name: string;
  countries?: string[];
  currency: string;
  default_locale: string;
  prices_include_tax?: boolean | null;
}

const COLUMNS = 'id, handle, name, countries, currency, default_locale, prices_include_tax, created_at, updated_at';

/**
 * The store's markets (decision 0097). Like its locales and currencies they ride on every token
 * lookup, so a storefront request names one without a statement; a change drops the store's cached
 * lookups in every process.
 */
@injectable()
export class Markets {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(AccessTokens) private readonly tokens: AccessTokens,
  ) {}

  /** Every market of the store, by handle (at most 50: not paginated). */
  async list(): Promise<StoredMarket[]> {
    return this.db.read(async (sql) => (await sql.query<MarketRow>(`select ${COLUMNS} from core_market where tenant_id = ? order by handle`, [sql.tenantId])).map(marketOf));
  }

  async get(id: string): Promise<StoredMarket> {
    return this.db.read(async (sql) => {
      const [row] = await sql.query<MarketRow>(`select ${COLUMNS} from core_market where tenant_id = ? and id = ?`, [sql.tenantId, id]);
      if (!row) throw AppError.notFound('Market');
      return marketOf(row);
    });
  }

  async create(tenantId: string, input: MarketInput): Promise<StoredMarket> {
    const market = await this.db.tenant(async (tx) => {
      await this.lockMarkets(tx);
      const [{ count }] = await tx.query<{ count: string }>('select count(*) from core_market where tenant_id = ?', [tx.tenantId]);
      if (Number(count) >= MAX_MARKETS) {
        throw AppError.unprocessable('TOO_MANY_MARKETS', `A store has at most ${MAX_MARKETS} markets`, [{ path: 'body', message: `the store already has ${MAX_MARKETS} markets` }]);
      }
      const fields = normalized(input);
      await this.check(tx, fields, null);
      const now = tx.now();
      const [row] = await tx.query<MarketRow>(
        `insert into core_market (id, tenant_id, handle, name, countries, currency, default_locale, prices_include_tax, created_at, updated_at)
         values (?, ?, ?, ?, ?::text[], ?, ?, ?, ?, ?) returning ${COLUMNS}`,
        [randomUUID(), tx.tenantId, fields.handle, fields.name, textArray(fields.countries), fields.currency, fields.default_locale, fields.prices_include_tax, now, now],
      );
      return marketOf(row);
    }, tenantId);
    await this.tokens.forgetTenant(tenantId);
    return market;
  }

  async update(tenantId: string, id: string, patch: Partial<MarketInput>): Promise<StoredMarket> {
    const market = await this.db.tenant(async (tx) => {
      await this.lockMarkets(tx);
      const [row] = await tx.query<MarketRow>(`select ${COLUMNS} from core_market where tenant_id = ? and id = ? for update`, [tx.tenantId, id]);
      if (!row) throw AppError.notFound('Market');
      const current = marketOf(row);
      const fields = normalized({
        handle: patch.handle ?? current.handle,
        name: patch.name ?? current.name,
        countries: patch.countries ?? [...current.countries],
        currency: patch.currency ?? current.currency,
        default_locale: patch.default_locale ?? current.defaultLocale,
        prices_include_tax: patch.prices_include_tax === undefined ? current.pricesIncludeTax : patch.prices_include_tax,
      });
      await this.check(tx, fields, id);
      const [updated] = await tx.query<MarketRow>(
        `update core_market set handle = ?, name = ?, countries = ?::text[], currency = ?, default_locale = ?, prices_include_tax = ?, updated_at = ?
          where tenant_id = ? and id = ? returning ${COLUMNS}`,
        [fields.handle, fields.name, textArray(fields.countries), fields.currency, fields.default_locale, fields.prices_include_tax, tx.now(), tx.tenantId, id],
      );
      return marketOf(updated);
    }, tenantId);
    await this.tokens.forgetTenant(tenantId);
    return market;
  }

  /** Removes a market. Carts and orders that named it keep their currency and tax mode. */
  async remove(tenantId: string, id: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      const rows = await tx.query('delete from core_market where tenant_id = ? and id = ? returning id', [tx.tenantId, id]);
      if (rows.length === 0) throw AppError.notFound('Market');
    }, tenantId);
    await this.tokens.forgetTenant(tenantId);
  }

  /** One writer of a store's markets at a time: a country in one market, the count under the cap. */
  private async lockMarkets(tx: Tx): Promise<void> {
    await tx.query(`select pg_advisory_xact_lock(hashtext('core_market'), hashtext(?))`, [tx.tenantId]);
  }

  /** The currency is the store's, the locale listed, the handle and the countries free. */
  private async check(tx: Tx, fields: Required<MarketInput>, id: string | null): Promise<void> {
    const [store] = await tx.query<{ currency: string; default_locale: string; locales: string[]; currencies: CurrencyRow[] }>(
      `select t.currency, t.default_locale, t.locales,
              ${currencyRowsSql('t.id')} as currencies
         from core_tenant t where t.id = ?`,
      [tx.tenantId],
    );
    const money = storeMoneyOf(store.currency, store.currencies);
    if (!money.currencies.some((c) => c.code === fields.currency)) throw currencyNotListed(fields.currency, money, 'body.currency');
    const locales = storeLocales(store.default_locale, store.locales);
    if (!locales.locales.includes(fields.default_locale)) throw localeNotListed(fields.default_locale, locales, 'body.default_locale');
    const others = await tx.query<{ id: string; handle: string; countries: string[] }>(
      'select id, handle, countries from core_market where tenant_id = ? and id is distinct from ?::uuid',
      [tx.tenantId, id],
    );
    if (others.some((m) => m.handle === fields.handle)) {
      throw AppError.conflict(`The store already has a market "${fields.handle}"`, 'MARKET_HANDLE_TAKEN', [{ path: 'body.handle', message: 'is taken by another market of the store' }]);
    }
    for (const country of fields.countries) {
      const holder = others.find((m) => m.countries.includes(country));
      if (holder) {
        throw AppError.conflict(`${country} is already in the market "${holder.handle}": a country is in one market of the store`, 'COUNTRY_IN_OTHER_MARKET', [
          { path: 'body.countries', message: `${country} is in the market "${holder.handle}"`, country, market_id: holder.id },
        ]);
      }
    }
  }
}

function normalized(input: MarketInput): Required<MarketInput> {
  return {
    handle: input.handle.trim().toLowerCase(),
    name: input.name.trim(),
    countries: [...new Set((input.countries ?? []).map((c) => c.toUpperCase()))],
    currency: input.currency.toUpperCase(),
    default_locale: normalizeLocale(input.default_locale),
    prices_include_tax: input.prices_include_tax ?? null,
  };
}

function textArray(values: readonly string[]): string {
  return `{${values.join(',')}}`;
}
