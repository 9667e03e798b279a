import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseMarket, moneyKey } from '../src/markets/market.js';
import { convertAmount, convertAt, storeMoneyOf } from '../src/markets/money.js';
import { chooseLocale, storeLocales } from '../src/translations/locales.js';
import { createTestApp, type TestApp, type TestTenant } from '../src/testing/index.js';

/** The store's currencies and markets (decision 0097): set by staff, read by storefronts, kept per store. */
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
beforeAll(async () => {
  t = await createTestApp({ plugins: [] });
  shop = await t.createTenant({ name: 'Tienda', currency: 'PEN' });
  other = await t.createTenant({ name: 'Other', currency: 'USD' });
});
afterAll(async () => t?.close());

const call = (tenant: TestTenant, method: 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, token?: string) =>
  t.request({ method, url, headers: tenant.headers(token), ...(payload === undefined ? {} : { payload: payload as never }) });

describe('conversion', () => {
  const money = storeMoneyOf('PEN', [
    { code: 'USD', rate: '0.2700000000', rounding_increment: 1, rounding: 'nearest' },
    { code: 'CLP', rate: '250', rounding_increment: 10, rounding: 'up' },
    { code: 'JPY', rate: '39.5', rounding_increment: 1, rounding: 'down' },
    { code: 'EUR', rate: null, rounding_increment: 1, rounding: 'nearest' },
  ]);

  it('derives minor units exactly, across decimals, by each rounding rule', () => {
    expect(money.currencies.map((c) => [c.code, c.rate, c.decimals])).toEqual([['PEN', '1', 2], ['USD', '0.27', 2], ['CLP', '250', 0], ['JPY', '39.5', 0], ['EUR', null, 2]]);
    expect(convertAmount(money, 11800, 'PEN')).toBe(11800);
    expect(convertAmount(money, 11800, 'USD')).toBe(3186); // 118.00 × 0.27 = 31.86
    expect(convertAmount(money, 150, 'USD')).toBe(41); // 1.50 × 0.27 = 0.405 → 0.41 (halves up)
    expect(convertAmount(money, 1999, 'CLP')).toBe(5000); // 19.99 × 250 = 4997.5 → up to the next 10
    expect(convertAmount(money, 1999, 'JPY')).toBe(789); // 19.99 × 39.5 = 789.605 → down
    expect(convertAmount(money, 1000, 'EUR')).toBeNull(); // no rate: explicit prices only
    expect(convertAmount(money, 1000, 'BRL')).toBeNull(); // not sold
    // Floating point would make 0.29 × 100 = 28.999…: integers do not.
    expect(convertAt(100, '0.29', 2, { decimals: 2, roundingIncrement: 1, rounding: 'down' })).toBe(29);
    expect(convertAt(100, '0.29', 2, { decimals: 2, roundingIncrement: 1, rounding: 'up' })).toBe(29);
  });

  it('agrees with qhatu_convert in SQL to the unit', async () => {
    const client = new pg.Client({ connectionString: t.databaseUrl });
    await client.connect();
    try {
      const cases: Array<[number, string, number, number, 'nearest' | 'up' | 'down']> = [
        [11800, '0.27', 0, 1, 'nearest'], [150, '0.27', 0, 1, 'nearest'], [1999, '250', -2, 10, 'up'], [1999, '39.5', -2, 1, 'down'],
        [100, '0.29', 0, 1, 'down'], [123457, '3.7123456789', 0, 5, 'nearest'], [99, '0.0000000001', 0, 1, 'up'], [5, '0.1', 0, 1, 'nearest'],
      ];
      for (const [amount, rate, shift, increment, rounding] of cases) {
        const { rows } = await client.query<{ v: string }>('select qhatu_convert($1, $2::numeric, $3, $4, $5) as v', [amount, rate, shift, increment, rounding]);
        expect(Number(rows[0].v), `${amount} × ${rate}`).toBe(convertAt(amount, rate, 2, { decimals: 2 + shift, roundingIncrement: increment, rounding }));
      }
    } finally {
      await client.end();
    }
  });
});

describe('/api/v1/currencies', () => {
  it('is the default alone for a new store', async () => {
    const res = await call(shop, 'GET', '/api/v1/currencies', undefined, shop.storefrontToken);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ default_currency: 'PEN', currencies: [{ code: 'PEN', rate: '1', rounding_increment: 1, rounding: 'nearest', decimals: 2 }] });
  });

  it('sets the others with their rates and rounding, read at once by a key whose lookup was cached', async () => {
    const res = await call(shop, 'PUT', '/api/v1/currencies', { currencies: [{ code: 'USD', rate: '0.27' }, { code: 'CLP', rate: '250', rounding_increment: 10, rounding: 'up' }, { code: 'EUR', rate: null }, { code: 'PEN' }] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.currencies.map((c: { code: string; rate: string | null }) => [c.code, c.rate])).toEqual([['PEN', '1'], ['CLP', '250'], ['EUR', null], ['USD', '0.27']]);
    expect((await call(shop, 'GET', '/api/v1/currencies', undefined, shop.storefrontToken)).json().data.currencies).toHaveLength(4);
    expect((await call(other, 'GET', '/api/v1/currencies')).json().data.currencies).toHaveLength(1);
  });

  it('refuses a bad code or rate (400), a default at another rate, twice the same code, and callers without currencies.manage', async () => {
    const bad = await call(shop, 'PUT', '/api/v1/currencies', { currencies: [{ code: 'usd', rate: '0.27' }] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.details[0].path).toBe('body.currencies.0.code');
    for (const rate of ['0', '-1', '1e3', 'abc', '0.12345678901']) {
      expect((await call(shop, 'PUT', '/api/v1/currencies', { currencies: [{ code: 'USD', rate }] })).statusCode, rate).toBe(400);
    }
    const rated = await call(shop, 'PUT', '/api/v1/currencies', { currencies: [{ code: 'PEN', rate: '2' }] });
    expect(rated.statusCode).toBe(422);
    expect(rated.json().error.code).toBe('DEFAULT_CURRENCY_RATE');
    expect((await call(shop, 'PUT', '/api/v1/currencies', { currencies: [{ code: 'USD' }, { code: 'USD' }] })).statusCode).toBe(400);
    expect((await call(shop, 'PUT', '/api/v1/currencies', { currencies: [] }, shop.storefrontToken)).statusCode).toBe(403);
    expect((await call(shop, 'GET', '/api/v1/currencies')).json().data.currencies).toHaveLength(4);
  });
});

describe('/api/v1/markets', () => {
  let us: { id: string };

  it('creates markets of the store’s currencies and locales, each country in one', async () => {
    expect((await call(shop, 'PUT', '/api/v1/locales', { default_locale: 'es-PE', locales: ['en'] })).statusCode).toBe(200);
    const pe = await call(shop, 'POST', '/api/v1/markets', { handle: 'PE', name: 'Perú', countries: ['pe'], currency: 'PEN', default_locale: 'es-pe', prices_include_tax: true });
    expect(pe.statusCode, pe.body).toBe(201);
    expect(pe.json().data).toMatchObject({ handle: 'pe', countries: ['PE'], currency: 'PEN', default_locale: 'es-PE', prices_include_tax: true });
    const created = await call(shop, 'POST', '/api/v1/markets', { handle: 'us', name: 'United States', countries: ['US'], currency: 'USD', default_locale: 'en' });
    expect(created.statusCode, created.body).toBe(201);
    us = created.json().data;
    expect(created.json().data.prices_include_tax).toBeNull();
    const list = await call(shop, 'GET', '/api/v1/markets', undefined, shop.storefrontToken);
    expect(list.json().data.map((m: { handle: string }) => m.handle)).toEqual(['pe', 'us']);
    expect((await call(other, 'GET', '/api/v1/markets')).json().data).toEqual([]);
    expect((await call(other, 'GET', `/api/v1/markets/${us.id}`)).statusCode).toBe(404);
    expect((await call(other, 'PATCH', `/api/v1/markets/${us.id}`, { name: 'Mine' })).statusCode).toBe(404);
    expect((await call(other, 'DELETE', `/api/v1/markets/${us.id}`)).statusCode).toBe(404);
  });

  it('refuses a taken handle or country (409), a currency or locale the store lacks (422), and storefront writes', async () => {
    const taken = await call(shop, 'POST', '/api/v1/markets', { handle: 'us', name: 'Again', currency: 'USD', default_locale: 'en' });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().error.code).toBe('MARKET_HANDLE_TAKEN');
    const country = await call(shop, 'POST', '/api/v1/markets', { handle: 'na', name: 'North America', countries: ['CA', 'US'], currency: 'USD', default_locale: 'en' });
    expect(country.statusCode).toBe(409);
    expect(country.json().error).toMatchObject({ code: 'COUNTRY_IN_OTHER_MARKET', details: [expect.objectContaining({ country: 'US', market_id: us.id })] });
    const currency = await call(shop, 'POST', '/api/v1/markets', { handle: 'br', name: 'Brasil', currency: 'BRL', default_locale: 'en' });
    expect(currency.statusCode).toBe(422);
    expect(currency.json().error.code).toBe('CURRENCY_NOT_LISTED');
    const locale = await call(shop, 'POST', '/api/v1/markets', { handle: 'br', name: 'Brasil', currency: 'USD', default_locale: 'pt-BR' });
    expect(locale.statusCode).toBe(422);
    expect(locale.json().error.code).toBe('LOCALE_NOT_LISTED');
    expect((await call(shop, 'POST', '/api/v1/markets', { handle: 'a b', name: 'x', currency: 'USD', default_locale: 'en' })).statusCode).toBe(400);
    expect((await call(shop, 'POST', '/api/v1/markets', { handle: 'x', name: 'x', currency: 'USD', default_locale: 'en' }, shop.storefrontToken)).statusCode).toBe(403);
    expect((await call(shop, 'GET', '/api/v1/markets')).json().data).toHaveLength(2);
  });

  it('keeps a market’s currency listed (409 CURRENCY_IN_USE) and changes a market', async () => {
    const drop = await call(shop, 'PUT', '/api/v1/currencies', { currencies: [{ code: 'CLP', rate: '250' }] });
    expect(drop.statusCode).toBe(409);
    expect(drop.json().error).toMatchObject({ code: 'CURRENCY_IN_USE', details: [expect.objectContaining({ currency: 'USD', market: 'us' })] });
    const changed = await call(shop, 'PATCH', `/api/v1/markets/${us.id}`, { countries: ['US', 'CA'], prices_include_tax: false });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().data).toMatchObject({ handle: 'us', countries: ['US', 'CA'], prices_include_tax: false, currency: 'USD' });
    const clash = await call(shop, 'PATCH', `/api/v1/markets/${us.id}`, { countries: ['PE'] });
    expect(clash.statusCode).toBe(409);
    // The market's locale stays listed too.
    const locale = await call(shop, 'PUT', '/api/v1/locales', { default_locale: 'es-PE', locales: [] });
    expect(locale.statusCode).toBe(409);
    expect(locale.json().error).toMatchObject({ code: 'LOCALE_IN_USE', details: [expect.objectContaining({ locale: 'en', market: 'us' })] });
    expect((await call(shop, 'GET', '/api/v1/locales')).json().data.locales).toEqual(['es-PE', 'en']);
    // Nor may the platform move the store's default away from a locale a market reads in (it would leave the list).
    const moved = await t.request({ method: 'PUT', url: `/api/v1/tenants/${shop.id}`, headers: { authorization: `Bearer ${t.platformToken}` }, payload: { name: 'Tienda', default_locale: 'en' } });
    expect(moved.statusCode, moved.body).toBe(409);
    expect(moved.json().error).toMatchObject({ code: 'LOCALE_IN_USE', details: [expect.objectContaining({ path: 'body.default_locale', locale: 'es-PE', market: 'pe' })] });
    expect((await call(shop, 'GET', '/api/v1/locales')).json().data).toEqual({ default_locale: 'es-PE', locales: ['es-PE', 'en'] });
  });

  it('is chosen by a request: its currency and tax mode, its locale before Accept-Language; unknown ones are 422', () => {
    const money = storeMoneyOf('PEN', [{ code: 'USD', rate: '0.27', rounding_increment: 1, rounding: 'nearest' }]);
    const markets = [{ id: us.id, handle: 'us', name: 'United States', countries: ['US'], currency: 'USD', defaultLocale: 'en', pricesIncludeTax: false }];
    const principal = { money, markets };
    expect(chooseMarket(principal, {})).toEqual({ market: null, currency: 'PEN', converted: false, pricesIncludeTax: null });
    expect(chooseMarket(principal, { currency: 'USD' })).toMatchObject({ market: null, currency: 'USD', converted: true });
    expect(chooseMarket(principal, { market: 'US' })).toMatchObject({ market: { handle: 'us' }, currency: 'USD', converted: true, pricesIncludeTax: false });
    expect(moneyKey(chooseMarket(principal, {}))).toBe('');
    expect(moneyKey(chooseMarket(principal, { market: 'us' }))).toBe('USD\u0001');
    const refused = (asked: { market?: string; currency?: string }) => {
      try {
        chooseMarket(principal, asked);
      } catch (error) {
        return (error as { code: string; details: Array<{ path: string }> });
      }
      return null;
    };
    expect(refused({ market: 'mars' })).toMatchObject({ code: 'MARKET_NOT_FOUND', details: [{ path: 'querystring.market' }] });
    expect(refused({ currency: 'EUR' })).toMatchObject({ code: 'CURRENCY_NOT_LISTED', details: [{ path: 'querystring.currency' }] });
    expect(refused({ market: 'us', currency: 'PEN' })).toMatchObject({ code: 'CURRENCY_NOT_LISTED' });
    const store = storeLocales('es-PE', ['en']);
    expect(chooseLocale(store, { acceptLanguage: 'es', marketLocale: 'en' })).toEqual({ locale: 'en', translated: true });
    expect(chooseLocale(store, { locale: 'es-PE', marketLocale: 'en' })).toEqual({ locale: 'es-PE', translated: false });
  });

  it('deletes a market; its currency may then go', async () => {
    expect((await call(shop, 'DELETE', `/api/v1/markets/${us.id}`)).statusCode).toBe(204);
    expect((await call(shop, 'GET', `/api/v1/markets/${us.id}`)).statusCode).toBe(404);
    expect((await call(shop, 'PUT', '/api/v1/currencies', { currencies: [{ code: 'CLP', rate: '250' }] })).statusCode).toBe(200);
  });

  it('is documented in OpenAPI with its permissions', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.paths['/api/v1/currencies'].put['x-permission']).toBe('currencies.manage');
    expect(doc.paths['/api/v1/markets'].post['x-permission']).toBe('markets.manage');
    expect(Object.keys(doc.paths['/api/v1/markets/{id}'])).toEqual(expect.arrayContaining(['get', 'patch', 'delete']));
  });
});
