import { inject, injectable } from 'tsyringe';
import { AccessTokens } from '../auth/tokens.js';
import { Database, type TxReader } from '../db/database.js';
import { AppError } from '../errors.js';
import { storeLocales, type StoreLocales } from './locales.js';

/** At most this many locales a store lists (its default included). */
export const MAX_LOCALES = 20;

/**
 * The locales a store lists (decision 0089). They ride on every token lookup, so a storefront
 * read learns them without a statement; a change drops the store's cached lookups in every process.
 */
@injectable()
export class Locales {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(AccessTokens) private readonly tokens: AccessTokens,
  ) {}

  /** The store's locales, the default first. */
  async get(): Promise<StoreLocales> {
    return this.db.read(async (sql) => {
      const [row] = await sql.query<{ default_locale: string; locales: string[] }>('select default_locale, locales from core_tenant where id = ?', [sql.tenantId]);
      return storeLocales(row.default_locale, row.locales);
    });
  }

  /**
   * Sets the default locale and the others the store sells in (the default is listed whether sent
   * or not). Texts stay where they are: the resources' own fields are the default's, and the
   * translations into a locale taken off the list are kept, unread, until it is listed again.
   */
  async replace(tenantId: string, input: { default_locale: string; locales: string[] }): Promise<StoreLocales> {
    const store = storeLocales(input.default_locale, [...new Set(input.locales)]);
    if (store.locales.length > MAX_LOCALES) {
      throw AppError.unprocessable('TOO_MANY_LOCALES', `A store lists at most ${MAX_LOCALES} locales`, [{ path: 'body.locales', message: `has more than ${MAX_LOCALES} locales` }]);
    }
    // core_tenant is the platform's table: the store's own row, named by the caller's store.
    await this.db.platform(async (tx) => {
      await assertMarketLocalesListed(tx, tenantId, store.locales, 'body.locales');
      await tx.query('update core_tenant set default_locale = ?, locales = ?::text[], updated_at = ? where id = ?', [
        store.defaultLocale,
        `{${store.locales.slice(1).join(',')}}`,
        tx.now(),
        tenantId,
      ]);
    });
    await this.tokens.forgetTenant(tenantId);
    return store;
  }
}

/**
 * 409 LOCALE_IN_USE unless the default locale of every market of the store stays among `locales`
 * (a market reads in its default locale: it stays listed while a market names it, decision 0097).
 * Takes the store's market lock, as a market's change does, so that none is added meanwhile.
 */
export async function assertMarketLocalesListed(tx: TxReader, tenantId: string, locales: readonly string[], path: string): Promise<void> {
  await tx.query(`select pg_advisory_xact_lock(hashtext('core_market'), hashtext(?))`, [tenantId]);
  const used = await tx.query<{ handle: string; default_locale: string }>('select handle, default_locale from core_market where tenant_id = ? order by handle', [tenantId]);
  const dropped = used.filter((m) => !locales.includes(m.default_locale));
  if (dropped.length > 0) {
    throw AppError.conflict(`${dropped[0].default_locale} is the locale of the market "${dropped[0].handle}": change the market first`, 'LOCALE_IN_USE', dropped.map((m) => ({
      path, message: `${m.default_locale} is the market "${m.handle}"'s locale`, locale: m.default_locale, market: m.handle,
    })));
  }
}
