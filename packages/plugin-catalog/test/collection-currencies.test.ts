import { answersMatch, listOf } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CollectionProductEntry } from '../src/schemas/collection.js';
import { caller, catalogApp, createProduct, limaStore } from './helpers.js';

/**
 * A collection's product entries priced in the currency a storefront asks for (decision 0109), in a
 * store of several currencies and markets (`limaStore`).
 */
let t: TestApp;
let shop: TestTenant;
let url: string;
let sweater: { id: string; handle: string };
let poncho: { id: string; handle: string };
let scarf: { id: string; handle: string };

type Entry = { id: string; title: string; price: number | null; currency: string };
const get = (path: string, headers: Record<string, string> = {}, token = shop.storefrontToken) =>
  t.request({ method: 'GET', url: path, headers: { ...shop.headers(token), ...headers } });
/** Each entry as [title, price, currency], in the collection's order. */
const priced = (res: { json(): { data: Entry[] } }) => res.json().data.map((e) => [e.title, e.price, e.currency]);

// The sweater's first variant has no explicit prices: USD 118.00 × 0.27 = 31.86, CLP 29 500; no EUR (no rate), its second variant's EUR 0.50 instead.
// The poncho's only variant has an explicit USD 15.00 (derived it would be 13.50), and no EUR price anywhere.
// The scarf's first variant has an explicit EUR 9.00 and a second variant, cheaper, with its own.
const IN_PEN = [['Chompa de alpaca', 11800, 'PEN'], ['Poncho', 5000, 'PEN'], ['Chalina', 4000, 'PEN']];
const IN_USD = [['Chompa de alpaca', 3186, 'USD'], ['Poncho', 1500, 'USD'], ['Chalina', 1080, 'USD']];
const IN_EUR = [['Chompa de alpaca', 50, 'EUR'], ['Poncho', null, 'EUR'], ['Chalina', 900, 'EUR']];
const IN_CLP = [['Chompa de alpaca', 29500, 'CLP'], ['Poncho', 12500, 'CLP'], ['Chalina', 10000, 'CLP']];

beforeAll(async () => {
  t = await catalogApp();
  shop = await limaStore(t);
  const admin = caller(t, shop);
  sweater = await createProduct(t, shop, {
    title: 'Chompa de alpaca',
    variants: [{ title: 'Talla S', price: 11800 }, { title: 'Talla M', price: 150, prices: [{ currency: 'EUR', amount: 50 }] }],
  });
  poncho = await createProduct(t, shop, { title: 'Poncho', variants: [{ title: 'Único', price: 5000, prices: [{ currency: 'USD', amount: 1500 }] }] });
  scarf = await createProduct(t, shop, {
    title: 'Chalina',
    variants: [{ title: 'Larga', price: 4000, prices: [{ currency: 'EUR', amount: 900 }] }, { title: 'Corta', price: 2000, prices: [{ currency: 'EUR', amount: 450 }] }],
  });
  expect((await admin('PUT', `/api/v1/catalog/products/${sweater.id}/translations/en`, { title: 'Alpaca sweater' })).statusCode).toBe(200);
  const collection = await admin('POST', '/api/v1/catalog/collections', { title: 'Invierno' });
  url = `/api/v1/catalog/collections/${collection.json().data.id}/products`;
  for (const p of [sweater, poncho, scarf]) expect((await admin('POST', url, { product_id: p.id })).statusCode).toBe(201);
}, 60_000);
afterAll(async () => t?.close());

describe('collection products in a currency', () => {
  it('answers the default currency as before, now naming it', async () => {
    const res = await get(url);
    expect(res.statusCode, res.body).toBe(200);
    expect(answersMatch(listOf(CollectionProductEntry), res.json())).toBe(true);
    expect(res.json().data[0]).toEqual({ id: sweater.id, title: 'Chompa de alpaca', slug: sweater.handle, price: 11800, currency: 'PEN', position: 0 });
    expect(priced(res)).toEqual(IN_PEN);
    expect(priced(await get(`${url}?currency=PEN`))).toEqual(IN_PEN);
  });

  it('prices each entry in another currency: explicit, else derived by the rate and rounding', async () => {
    const usd = await get(`${url}?currency=USD`);
    expect(usd.statusCode, usd.body).toBe(200);
    expect(answersMatch(listOf(CollectionProductEntry), usd.json())).toBe(true);
    expect(priced(usd)).toEqual(IN_USD);
    expect(usd.json().data.map((e: Entry) => e.id)).toEqual([sweater.id, poncho.id, scarf.id]);
    // Rounded up to tens of pesos.
    expect(priced(await get(`${url}?currency=CLP`))).toEqual(IN_CLP);
    // Staff read the same prices.
    expect(priced(await get(`${url}?currency=USD`, {}, shop.adminToken))).toEqual(IN_USD);
  });

  it("takes the first variant with a price there, as the product reads leave the others out; none, and the price is null", async () => {
    const eur = await get(`${url}?currency=EUR`);
    expect(eur.statusCode, eur.body).toBe(200);
    expect(answersMatch(listOf(CollectionProductEntry), eur.json())).toBe(true);
    expect(priced(eur)).toEqual(IN_EUR);
    // The sweater's entry shows the price of the first variant its product read shows in euros; the poncho's shows none.
    const read = async (id: string) => (await get(`/api/v1/catalog/products/${id}?currency=EUR`)).json().data.variants.map((v: { price: number }) => v.price);
    expect(await read(sweater.id)).toEqual([50]);
    expect(await read(poncho.id)).toEqual([]);
    expect(await read(scarf.id)).toEqual([900, 450]);
  });

  it('takes the market by X-Market or ?market=: its currency, and its locale when none is asked', async () => {
    for (const [path, headers] of [[`${url}?market=us`, {}], [url, { 'x-market': 'us' }]] as const) {
      const res = await get(path, headers);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-language']).toBe('en');
      expect(res.headers.vary).toContain('X-Market');
      expect(priced(res), path).toEqual([['Alpaca sweater', 3186, 'USD'], ...IN_USD.slice(1)]);
    }
    expect(priced(await get(url, { 'x-market': 'ec' }))).toEqual(IN_USD);
    expect(priced(await get(`${url}?market=us&locale=es`))).toEqual(IN_USD);
    expect(priced(await get(`${url}?market=us&currency=USD`))).toEqual([['Alpaca sweater', 3186, 'USD'], ...IN_USD.slice(1)]);
  });

  it('refuses an unknown market or a currency not sold as the product list does (422, the same codes and paths)', async () => {
    const cases: Array<[string, Record<string, string>, string, string]> = [
      ['?currency=GBP', {}, 'CURRENCY_NOT_LISTED', 'querystring.currency'],
      ['?market=mars', {}, 'MARKET_NOT_FOUND', 'querystring.market'],
      ['', { 'x-market': 'mars' }, 'MARKET_NOT_FOUND', 'headers.x-market'],
      ['?market=us&currency=CLP', {}, 'CURRENCY_NOT_LISTED', 'querystring.currency'],
    ];
    for (const [query, headers, code, path] of cases) {
      const entries = await get(`${url}${query}`, headers);
      const products = await get(`/api/v1/catalog/products${query}`, headers);
      expect(entries.statusCode, query).toBe(422);
      expect(entries.json().error).toMatchObject({ code, details: [{ path }] });
      expect(entries.json().error).toEqual(products.json().error);
    }
    // A code that is not one (lower case, a number) is a 400, as on the product list.
    for (const query of ['?currency=usd', '?currency=12', `?market=${'x'.repeat(65)}`]) {
      const res = await get(`${url}${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
      expect((await get(`/api/v1/catalog/products${query}`)).statusCode).toBe(400);
    }
  });

  it('pages with the same cursors in every currency', async () => {
    const first = (await get(`${url}?currency=EUR&limit=2`)).json();
    expect(first.data.map((e: Entry) => e.price)).toEqual([50, null]);
    const cursor = encodeURIComponent(first.meta.pagination.cursor);
    expect(priced(await get(`${url}?currency=EUR&limit=2&cursor=${cursor}`))).toEqual(IN_EUR.slice(2));
    expect(priced(await get(`${url}?limit=2&cursor=${cursor}`))).toEqual(IN_PEN.slice(2));
  });

  it('documents the parameters and the entry in /openapi.json', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
    const operation = doc.paths['/api/v1/catalog/collections/{id}/products'].get;
    expect(operation.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['market', 'currency', 'locale', 'cursor', 'limit']));
    expect(operation.description).toContain('null when no variant has one');
    const entry = doc.components.schemas.CollectionProductEntry;
    expect(entry.required).toEqual(expect.arrayContaining(['price', 'currency']));
    expect(entry.properties.currency.type).toBe('string');
    expect(JSON.stringify(entry.properties.price)).toContain('null');
  });
});

describe('the storefront read cache of collection products', () => {
  it('keeps two currencies apart on the same URL: USD (X-Market), then PEN, then each again from memory', async () => {
    const read = (headers: Record<string, string>) => t.countQueries(() => get(url, headers));
    const usd = await read({ 'x-market': 'ec' });
    expect(priced(usd.result)).toEqual(IN_USD);
    const pen = await read({});
    expect(priced(pen.result)).toEqual(IN_PEN);
    expect(pen.result.headers.etag).not.toBe(usd.result.headers.etag);
    let again = await read({ 'x-market': 'ec' });
    for (const end = Date.now() + 1000; again.count > 0 && Date.now() < end; again = await read({ 'x-market': 'ec' })) await new Promise((r) => setTimeout(r, 10));
    expect([again.count, priced(again.result)]).toEqual([0, IN_USD]);
    const penAgain = await read({});
    expect([penAgain.count, priced(penAgain.result)]).toEqual([0, IN_PEN]);
    // By ?currency= too, and a new rate is a new answer at once.
    expect(priced(await get(`${url}?currency=USD`))).toEqual(IN_USD);
    expect(priced(await get(url))).toEqual(IN_PEN);
    const rate = await caller(t, shop)('PUT', '/api/v1/currencies', {
      currencies: [{ code: 'USD', rate: '0.3' }, { code: 'CLP', rate: '250', rounding_increment: 10, rounding: 'up' }, { code: 'EUR', rate: null }],
    });
    expect(rate.statusCode, rate.body).toBe(200);
    expect(priced(await get(`${url}?currency=USD`))).toEqual([['Chompa de alpaca', 3540, 'USD'], ['Poncho', 1500, 'USD'], ['Chalina', 1200, 'USD']]);
    expect(priced(await get(url))).toEqual(IN_PEN);
  });

  it('reads a page in another currency in one statement, as in the default', async () => {
    const { statements } = await t.countQueries(() => get(`${url}?currency=CLP`, {}, shop.adminToken));
    const entries = statements.filter((s) => /catalog_collection_product/.test(s));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatch(/catalog_variant_price/);
  });
});
