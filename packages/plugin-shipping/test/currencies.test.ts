import { convertAmount, Database, storeMoneyOf, TenantContext, type Principal } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShippingPrices, type ShippingPriceRequest } from '../src/index.js';
import { addRate, caller, inTenant, parcel, priceIn, priceRefusal, priceRequest, rate, RATES, shippingApp } from './helpers.js';

/**
 * Rates per currency (decision 0097): a store in soles that sells in dollars prices a service in
 * dollars at its dollar rate when it has one, else at its rate in soles converted by the store's
 * rate and rounding. A rate is written in one of the store's currencies.
 */
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
const ids: Record<string, string> = {};
// PEN → USD at 0.27 (to the cent); PEN → CLP at 250, rounded up to a hundred pesos; EUR only at prices set in it.
const CURRENCIES = [{ code: 'USD', rate: '0.27' }, { code: 'CLP', rate: '250', rounding_increment: 100, rounding: 'up' }, { code: 'EUR', rate: null }];
const money = storeMoneyOf('PEN', CURRENCIES.map((c) => ({ code: c.code, rate: c.rate, rounding_increment: c.rounding_increment ?? 1, rounding: (c.rounding ?? 'nearest') as 'nearest' | 'up' })));

beforeAll(async () => {
  t = await shippingApp();
  shop = await t.createTenant({ currency: 'PEN' });
  other = await t.createTenant({ currency: 'PEN' });
  for (const tenant of [shop, other]) {
    const listed = await caller(t, tenant)('PUT', '/api/v1/currencies', { currencies: CURRENCIES });
    expect(listed.statusCode, listed.body).toBe(200);
  }
  ids.standard5 = (await addRate(t, shop, { carrier: 'olva', service_code: 'standard', weight_g: 5000, amount: 1500 })).id;
  ids.standard20 = (await addRate(t, shop, { carrier: 'olva', service_code: 'standard', weight_g: 20_000, amount: 3000 })).id;
  ids.standard5usd = (await addRate(t, shop, { carrier: 'olva', service_code: 'standard', weight_g: 5000, amount: 500, currency: 'USD' })).id;
  ids.express5 = (await addRate(t, shop, { carrier: 'shalom', service_name: 'Shalom Express', service_code: 'express', weight_g: 5000, amount: 2000, estimated_days: 1 })).id;
  // The other store's rate: never seen by the shop, and the other's dollar rate is its own.
  ids.theirs = (await addRate(t, other, { carrier: 'olva', service_code: 'standard', weight_g: 5000, amount: 9900, currency: 'USD' })).id;
});
afterAll(async () => t?.close());

type Quoted = { id: string; carrier: string; service_code: string; currency: string; amount: number; source: string };
const calculate = async (tenant: TestTenant, body: Record<string, unknown>, query = '', headers: Record<string, string> = {}) => {
  const res = await t.request({ method: 'POST', url: `${RATES}/calculate${query}`, headers: { ...tenant.headers(tenant.storefrontToken), ...headers }, payload: body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Quoted[];
};

/** `priceFor` as the checkout asks it inside a request: the caller's token carries the store's currencies. */
function priceWithToken(tenant: TestTenant, request: ShippingPriceRequest) {
  const principal: Principal = { tokenId: null, kind: 'storefront', tenantId: tenant.id, subjectId: null, id: null, permissions: new Set(), money };
  return TenantContext.run({ tenantId: tenant.id, principal }, () =>
    t.app.container.resolve(Database).tenant(async (tx) => {
      // The transaction's BEGIN goes out with its first statement: this one, so that only the price's are counted.
      await tx.em.execute('select 1');
      const { result, count } = await t.countQueries(() => t.app.container.resolve(ShippingPrices).priceFor(tx, request));
      return { price: result, count };
    }),
  );
}

describe('calculate in a currency of the store', () => {
  it("offers a service's rate in that currency when it has one, else its rate in the default currency converted", async () => {
    const rates = await calculate(shop, parcel({ weight_g: 1000, currency: 'USD' }));
    expect(rates).toEqual([
      expect.objectContaining({ id: ids.standard5usd, carrier: 'olva', service_code: 'standard', currency: 'USD', amount: 500, source: 'table' }),
      // 20.00 soles × 0.27 = 5.40 dollars.
      expect.objectContaining({ id: ids.express5, carrier: 'shalom', service_code: 'express', currency: 'USD', amount: 540, source: 'table' }),
    ]);
    expect(convertAmount(money, 2000, 'USD')).toBe(540);
  });

  it('per weight: a parcel no dollar bracket covers takes the tightest sol bracket, converted', async () => {
    const rates = await calculate(shop, parcel({ weight_g: 6000, currency: 'USD' }));
    expect(rates.map((r) => [r.id, r.currency, r.amount])).toEqual([[ids.standard20, 'USD', 810]]);
  });

  it("rounds to the currency's increment by its rule (CLP: up to a hundred pesos)", async () => {
    const rates = await calculate(shop, parcel({ weight_g: 1000, currency: 'CLP' }));
    // 15.00 soles × 250 = 3750 pesos → 3800; 20.00 soles → 5000.
    expect(rates.map((r) => [r.id, r.currency, r.amount])).toEqual([[ids.standard5, 'CLP', 3800], [ids.express5, 'CLP', 5000]]);
    expect(convertAmount(money, 1500, 'CLP')).toBe(3800);
  });

  it('a currency listed without a rate converts nothing; one the store does not list finds nothing, as before', async () => {
    expect(await calculate(shop, parcel({ weight_g: 1000, currency: 'EUR' }))).toEqual([]);
    expect(await calculate(shop, parcel({ weight_g: 1000, currency: 'GBP' }))).toEqual([]);
    // The default currency and no currency answer what they answered.
    expect((await calculate(shop, parcel({ weight_g: 1000, currency: 'PEN' }))).map((r) => r.id)).toEqual([ids.standard5, ids.express5]);
    expect((await calculate(shop, parcel({ weight_g: 1000 }))).map((r) => r.id)).toEqual([ids.standard5usd, ids.standard5, ids.express5]);
  });

  it("a market named by the request prices in its currency; another currency beside it is 422", async () => {
    const admin = caller(t, shop);
    expect((await admin('PUT', '/api/v1/locales', { default_locale: 'es-PE', locales: ['en'] })).statusCode).toBe(200);
    const market = await admin('POST', '/api/v1/markets', { handle: 'us', name: 'United States', countries: ['US'], currency: 'USD', default_locale: 'en', prices_include_tax: false });
    expect(market.statusCode, market.body).toBe(201);
    const byHeader = await calculate(shop, parcel({ weight_g: 1000 }), '', { 'x-market': 'us' });
    expect(byHeader.map((r) => [r.id, r.currency, r.amount])).toEqual([[ids.standard5usd, 'USD', 500], [ids.express5, 'USD', 540]]);
    expect(await calculate(shop, parcel({ weight_g: 1000 }), '?market=us')).toEqual(byHeader);
    const clash = await t.request({ method: 'POST', url: `${RATES}/calculate?market=us`, headers: shop.headers(shop.storefrontToken), payload: parcel({ weight_g: 1000, currency: 'CLP' }) });
    expect(clash.statusCode).toBe(422);
    expect(clash.json().error).toMatchObject({ code: 'CURRENCY_NOT_LISTED', details: [{ path: 'body.currency' }] });
    const unknown = await t.request({ method: 'POST', url: `${RATES}/calculate?market=mars`, headers: shop.headers(shop.storefrontToken), payload: parcel() });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().error.code).toBe('MARKET_NOT_FOUND');
  });

  it('still runs in one read-only transaction of three statements when it converts', async () => {
    await calculate(shop, parcel({ currency: 'USD' })); // the key is looked up once, then cached
    const { result, count, statements } = await t.countQueries(() => calculate(shop, parcel({ weight_g: 1000, currency: 'USD' })));
    expect(result).toHaveLength(2);
    expect(count, statements.join('\n')).toBe(3);
  });
});

describe('ShippingPrices.priceFor in a currency of the store', () => {
  it("prices the service at its rate in the currency, else its default currency's converted: in one statement with the caller's token", async () => {
    const usd = await priceWithToken(shop, priceRequest({ currency: 'USD' }));
    expect(usd).toEqual({ count: 1, price: expect.objectContaining({ priced: true, price: 500, rateId: ids.standard5usd, source: 'table' }) });
    const converted = await priceWithToken(shop, priceRequest({ carrier: 'shalom', service: 'express', currency: 'USD' }));
    expect(converted).toEqual({ count: 1, price: expect.objectContaining({ priced: true, price: 540, rateId: ids.express5, serviceName: 'Shalom Express' }) });
    const heavy = await priceWithToken(shop, priceRequest({ weightGrams: 6000, currency: 'USD' }));
    expect(heavy.price).toMatchObject({ price: 810, rateId: ids.standard20 });
    const pesos = await priceWithToken(shop, priceRequest({ currency: 'CLP' }));
    expect(pesos).toEqual({ count: 1, price: expect.objectContaining({ price: 3800, rateId: ids.standard5 }) });
    // The default currency: the statement of a store of one currency.
    expect((await priceWithToken(shop, priceRequest({ currency: 'PEN' }))).price).toMatchObject({ price: 1500, rateId: ids.standard5 });
  });

  it("without a caller's token (a job), reads the store's currencies only when the currency's own rates do not price it", async () => {
    const counted = (request: ShippingPriceRequest) =>
      inTenant(t, shop, async (tx) => {
        const { result, count } = await t.countQueries(() => t.app.container.resolve(ShippingPrices).priceFor(tx, request));
        return { price: result, count };
      });
    expect(await counted(priceRequest({ currency: 'USD' }))).toEqual({ count: 1, price: expect.objectContaining({ price: 500, rateId: ids.standard5usd }) });
    // Its own rates first, then the store's currencies, then the default currency's rate converted.
    expect(await counted(priceRequest({ carrier: 'shalom', service: 'express', currency: 'USD' }))).toEqual({ count: 3, price: expect.objectContaining({ price: 540, rateId: ids.express5 }) });
    expect(await priceIn(t, shop, priceRequest({ carrier: 'shalom', service: 'express', currency: 'CLP' }))).toMatchObject({ price: 5000 });
  });

  it('no rate in the currency and none to convert: SHIPPING_RATE_NOT_FOUND, as before', async () => {
    for (const currency of ['EUR', 'GBP']) {
      const refused = await priceRefusal(t, shop, priceRequest({ currency }));
      expect(refused).toMatchObject({ status: 422, code: 'SHIPPING_RATE_NOT_FOUND', details: [{ currency }] });
    }
    expect((await priceRefusal(t, shop, priceRequest({ weightGrams: 20_001, currency: 'USD' }))).code).toBe('SHIPPING_RATE_NOT_FOUND');
  });

  it("another store's rates are never its own, in any currency", async () => {
    expect((await priceWithToken(other, priceRequest({ currency: 'USD' }))).price).toMatchObject({ price: 9900, rateId: ids.theirs });
    expect((await priceRefusal(t, other, priceRequest({ carrier: 'shalom', service: 'express', currency: 'USD' }))).code).toBe('SHIPPING_CARRIER_UNKNOWN');
    const theirs = await calculate(other, parcel({ weight_g: 1000, currency: 'USD' }));
    expect(theirs.map((r) => r.id)).toEqual([ids.theirs]);
    const mine = await calculate(shop, parcel({ weight_g: 1000, currency: 'USD' }));
    expect(mine.map((r) => r.id)).not.toContain(ids.theirs);
  });
});

describe('a rate is written in one of the store’s currencies', () => {
  it('one it sells in is taken; another is 422 CURRENCY_NOT_LISTED naming the field and the currencies', async () => {
    const admin = caller(t, shop);
    const eur = await admin('POST', RATES, rate({ carrier: 'dhl', currency: 'EUR', amount: 700 }));
    expect(eur.statusCode, eur.body).toBe(201);
    const refused = await admin('POST', RATES, rate({ carrier: 'dhl', currency: 'GBP', amount: 700 }));
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error).toEqual({
      code: 'CURRENCY_NOT_LISTED',
      message: expect.stringContaining('GBP'),
      details: [{ path: 'body.currency', message: expect.any(String), currency: 'GBP', currencies: ['PEN', 'CLP', 'EUR', 'USD'] }],
    });
    expect((await admin('GET', `${RATES}?filter[carrier]=dhl`)).json().data.map((r: { currency: string }) => r.currency)).toEqual(['EUR']);
  });

  it('a store of one currency takes rates in it only', async () => {
    const single = await t.createTenant({ currency: 'PEN' });
    expect((await caller(t, single)('POST', RATES, rate({ currency: 'USD' }))).json().error.code).toBe('CURRENCY_NOT_LISTED');
    expect((await caller(t, single)('POST', RATES, rate())).statusCode).toBe(201);
  });
});
