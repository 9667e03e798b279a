import { answersMatch, Database, dataOf, listOf } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PriceResolver, type PriceResolverStrategy, type PricedVariant } from '../src/index.js';
import { ProductOut } from '../src/schemas/product.js';
import { caller, catalogApp, limaStore } from './helpers.js';

/** Prices in a store of several currencies and markets (`limaStore`, decision 0097). */
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
type VariantAnswer = { id: string; title: string; price: number; compare_at_price: number | null; currency: string; prices?: unknown };
let product: { id: string; handle: string; variants: VariantAnswer[] };

const get = (url: string, headers: Record<string, string> = {}, tenant = shop) =>
  t.request({ method: 'GET', url, headers: { ...tenant.headers(tenant.storefrontToken), ...headers } });
const gql = (query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  t.request({ method: 'POST', url: '/graphql', headers: { ...shop.headers(shop.storefrontToken), ...headers }, payload: { query, variables } }).then((r) => r.json());
const prices = (variants: VariantAnswer[]) => variants.map((v) => [v.title, v.price, v.compare_at_price, v.currency]);

// Talla S: 118.00 (150.00 before) → USD 31.86 (40.50), CLP 29 500 (37 500).
// Talla M: 1.50 with explicit USD 0.99 (1.20) and EUR 0.50 → CLP 375 rounded up to 380.
// Talla L: 19.99 → USD 5.3973 → 5.40, CLP 4 997.5 → 5 000; no EUR price.
const IN_PEN = [['Talla S', 11800, 15000, 'PEN'], ['Talla M', 150, null, 'PEN'], ['Talla L', 1999, null, 'PEN']];
const IN_USD = [['Talla S', 3186, 4050, 'USD'], ['Talla M', 99, 120, 'USD'], ['Talla L', 540, null, 'USD']];
const IN_CLP = [['Talla S', 29500, 37500, 'CLP'], ['Talla M', 380, null, 'CLP'], ['Talla L', 5000, null, 'CLP']];

beforeAll(async () => {
  t = await catalogApp();
  shop = await limaStore(t);
  other = await t.createTenant({ name: 'Otra tienda', currency: 'PEN' });
  const admin = caller(t, shop);
  const created = await admin('POST', '/api/v1/catalog/products', {
    title: 'Chompa de alpaca',
    variants: [
      { title: 'Talla S', price: 11800, compare_at_price: 15000 },
      { title: 'Talla M', price: 150, prices: [{ currency: 'USD', amount: 99, compare_at_amount: 120 }, { currency: 'EUR', amount: 50 }] },
      { title: 'Talla L', price: 1999 },
    ],
  });
  expect(created.statusCode, created.body).toBe(201);
  product = created.json().data;
  expect((await admin('PUT', `/api/v1/catalog/products/${product.id}/translations/en`, { title: 'Alpaca sweater' })).statusCode).toBe(200);
  // The other store sells in USD too, at another rate, and sets no price of its own.
  expect((await caller(t, other)('PUT', '/api/v1/currencies', { currencies: [{ code: 'USD', rate: '0.5' }] })).statusCode).toBe(200);
}, 60_000);
afterAll(async () => t?.close());

describe('explicit prices, set by staff', () => {
  it('are answered to staff by currency on create, read and list; a store of one currency shows none', async () => {
    expect(product.variants.map((v) => v.prices)).toEqual([[], [{ currency: 'EUR', amount: 50, compare_at_amount: null }, { currency: 'USD', amount: 99, compare_at_amount: 120 }], []]);
    const read = await caller(t, shop)('GET', `/api/v1/catalog/products/${product.id}`);
    expect(read.json().data.variants.map((v: VariantAnswer) => v.prices)).toEqual(product.variants.map((v) => v.prices));
    const list = await caller(t, shop)('GET', '/api/v1/catalog/products');
    expect(answersMatch(listOf(ProductOut), list.json())).toBe(true);
    expect(list.json().data[0].variants[1].prices).toEqual(product.variants[1].prices);
    // Storefronts see the price in their currency, not the list.
    expect((await get(`/api/v1/catalog/products/${product.id}`)).json().data.variants[1]).not.toHaveProperty('prices');
    const single = await t.createTenant({ currency: 'PEN' });
    const plain = await caller(t, single)('POST', '/api/v1/catalog/products', { title: 'Mate', variants: [{ title: 'Uno', price: 500 }] });
    expect(plain.json().data.variants[0].prices).toEqual([]);
    expect((await caller(t, single)('GET', '/api/v1/catalog/products')).json().data[0].variants[0].prices).toEqual([]);
  });

  it('are GraphQL variants\' prices for admin callers, in the variants\' own statement; null for storefront callers', async () => {
    const fields = 'variants { title prices { currency amount compareAtAmount } }';
    const asAdmin = shop.headers();
    const explicit = [[], [{ currency: 'EUR', amount: 50, compareAtAmount: null }, { currency: 'USD', amount: 99, compareAtAmount: 120 }], []];
    const one = await gql(`query($id: ID!) { product(id: $id) { ${fields} } }`, { id: product.id }, asAdmin);
    expect(one.errors).toBeUndefined();
    expect(one.data.product.variants.map((v: { prices: unknown }) => v.prices)).toEqual(explicit);
    // Whatever the currency the variants are priced in, and on a page too, read with the variants.
    await gql('{ apiVersion }', {}, asAdmin);
    const page = await t.countQueries(() => gql(`{ products(currency: "USD") { edges { node { id ${fields} } } } }`, {}, asAdmin));
    const node = page.result.data.products.edges.find((e: { node: { id: string } }) => e.node.id === product.id).node;
    expect(node.variants.map((v: { prices: unknown }) => v.prices)).toEqual(explicit);
    expect(page.statements.filter((s) => /catalog_variant_price/.test(s))).toHaveLength(1);
    expect(page.statements.filter((s) => /catalog_variant\b/.test(s))).toHaveLength(1);
    // Storefront callers see the price in their currency, never the list (as REST hides it from them).
    for (const query of [`query($id: ID!) { product(id: $id) { ${fields} } }`, `{ products { edges { node { ${fields} } } } }`]) {
      const res = await gql(query, { id: product.id });
      expect(res.errors).toBeUndefined();
      const variants = res.data.product?.variants ?? res.data.products.edges[0].node.variants;
      expect(variants.map((v: { prices: unknown }) => v.prices)).toEqual([null, null, null]);
    }
    // A store of one currency has none to show.
    const single = await t.createTenant({ currency: 'PEN' });
    await caller(t, single)('POST', '/api/v1/catalog/products', { title: 'Mate', variants: [{ title: 'Uno', price: 500 }] });
    const plain = await t.request({ method: 'POST', url: '/graphql', headers: single.headers(), payload: { query: `{ products { edges { node { ${fields} } } } }` } });
    expect(plain.json().data.products.edges[0].node.variants).toEqual([{ title: 'Uno', prices: [] }]);
  });

  it('refuses a currency the store does not sell in, or its default, with the body path (422 CURRENCY_NOT_LISTED); nothing is written', async () => {
    const admin = caller(t, shop);
    const unlisted = await admin('POST', '/api/v1/catalog/products', { title: 'Poncho', variants: [{ title: 'A', price: 100 }, { title: 'B', price: 100, prices: [{ currency: 'USD', amount: 30 }, { currency: 'GBP', amount: 20 }] }] });
    expect(unlisted.statusCode, unlisted.body).toBe(422);
    expect(unlisted.json().error).toMatchObject({ code: 'CURRENCY_NOT_LISTED', details: [{ path: 'body.variants.1.prices.1.currency', currency: 'GBP' }] });
    const standard = await admin('POST', `/api/v1/catalog/products/${product.id}/variants`, { title: 'Talla XL', price: 100, prices: [{ currency: 'PEN', amount: 90 }] });
    expect(standard.statusCode).toBe(422);
    expect(standard.json().error).toMatchObject({ code: 'CURRENCY_NOT_LISTED', details: [{ path: 'body.prices.0.currency' }] });
    const twice = await admin('PATCH', `/api/v1/catalog/products/${product.id}/variants/${product.variants[0].id}`, { prices: [{ currency: 'USD', amount: 1 }, { currency: 'USD', amount: 2 }] });
    expect(twice.statusCode).toBe(400);
    expect(twice.json().error.details[0].path).toBe('body.prices.1.currency');
    const negative = await admin('PATCH', `/api/v1/catalog/products/${product.id}/variants/${product.variants[0].id}`, { prices: [{ currency: 'USD', amount: -1 }] });
    expect(negative.statusCode).toBe(400);
    // The variant's own currency is still the store's.
    const own = await admin('POST', `/api/v1/catalog/products/${product.id}/variants`, { title: 'Talla XL', price: 100, currency: 'USD' });
    expect(own.json().error.code).toBe('VARIANT_CURRENCY_MISMATCH');
    expect((await admin('GET', '/api/v1/catalog/products?q=poncho')).json().data).toEqual([]);
    expect((await admin('GET', `/api/v1/catalog/products/${product.id}`)).json().data.variants).toHaveLength(3);
  });

  it("are another store's to neither see nor change", async () => {
    const v = product.variants[1];
    const change = await caller(t, other)('PATCH', `/api/v1/catalog/products/${product.id}/variants/${v.id}`, { prices: [{ currency: 'USD', amount: 1 }] });
    expect(change.statusCode).toBe(404);
    // Its own USD is its rate over its own products; the shop's explicit price is not a row it can read.
    const resolver = t.app.container.resolve<PriceResolverStrategy>(PriceResolver);
    const facts: PricedVariant = { id: v.id, productId: product.id, price: 150, currency: 'PEN' };
    const seen = await t.app.container.resolve(Database).tenant((tx) => resolver.resolve(tx, [facts], { customerId: null, currency: 'USD' }), other.id);
    expect(seen.get(v.id)).toMatchObject({ price: 75, currency: 'USD' }); // 1.50 × 0.5, not the shop's 0.99
    const rows = await t.app.container.resolve(Database).tenant((tx) => tx.query('select * from catalog_variant_price'), other.id);
    expect(rows).toEqual([]);
  });
});

describe('a product read in a currency', () => {
  it('answers the default currency as always, and another by ?currency=: explicit, else derived by the rate and rounding', async () => {
    const pen = await get(`/api/v1/catalog/products/${product.id}`);
    expect(pen.statusCode).toBe(200);
    expect(prices(pen.json().data.variants)).toEqual(IN_PEN);
    const usd = await get(`/api/v1/catalog/products/${product.id}?currency=USD`);
    expect(usd.statusCode, usd.body).toBe(200);
    expect(answersMatch(dataOf(ProductOut), usd.json())).toBe(true);
    expect(prices(usd.json().data.variants)).toEqual(IN_USD);
    expect(usd.json().data.title).toBe('Chompa de alpaca');
    // Rounded up to tens of pesos, whatever the remainder.
    expect(prices((await get(`/api/v1/catalog/products/${product.id}?currency=CLP`)).json().data.variants)).toEqual(IN_CLP);
    // No rate: only what has an explicit price is for sale.
    expect(prices((await get(`/api/v1/catalog/products/${product.id}?currency=EUR`)).json().data.variants)).toEqual([['Talla M', 50, null, 'EUR']]);
    expect(prices((await get(`/api/v1/catalog/products/handle/${product.handle}?currency=USD`)).json().data.variants)).toEqual(IN_USD);
    expect(prices((await get(`/api/v1/catalog/products/${product.id}?currency=PEN`)).json().data.variants)).toEqual(IN_PEN);
  });

  it('takes the market by ?market= or X-Market: its currency, and its locale when none is asked', async () => {
    for (const [url, headers] of [[`/api/v1/catalog/products/${product.id}?market=us`, {}], [`/api/v1/catalog/products/${product.id}`, { 'x-market': 'us' }]] as const) {
      const res = await get(url, headers);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.title, url).toBe('Alpaca sweater');
      expect(res.headers['content-language']).toBe('en');
      expect(res.headers.vary).toContain('X-Market');
      expect(prices(res.json().data.variants)).toEqual(IN_USD);
    }
    // A locale asked is kept: the market only gives the currency then.
    const es = await get(`/api/v1/catalog/products/${product.id}?market=us&locale=es`);
    expect([es.json().data.title, prices(es.json().data.variants)]).toEqual(['Chompa de alpaca', IN_USD]);
  });

  it('refuses an unknown market and a currency not sold (422), before any answer is kept', async () => {
    const cases: Array<[string, Record<string, string>, string, string]> = [
      [`?currency=GBP`, {}, 'CURRENCY_NOT_LISTED', 'querystring.currency'],
      [`?market=mars`, {}, 'MARKET_NOT_FOUND', 'querystring.market'],
      [``, { 'x-market': 'mars' }, 'MARKET_NOT_FOUND', 'headers.x-market'],
      [`?market=us&currency=CLP`, {}, 'CURRENCY_NOT_LISTED', 'querystring.currency'],
    ];
    for (const [query, headers, code, path] of cases) {
      for (const url of [`/api/v1/catalog/products/${product.id}${query}`, `/api/v1/catalog/products${query}`]) {
        const res = await get(url, headers);
        expect(res.statusCode, url).toBe(422);
        expect(res.json().error).toMatchObject({ code, details: [{ path }] });
      }
    }
    expect((await get(`/api/v1/catalog/products/${product.id}?currency=usd`)).statusCode).toBe(400);
  });

  it('prices the list the same way, by ?currency=, ?market= and X-Market', async () => {
    const pen = await get('/api/v1/catalog/products');
    expect(prices(pen.json().data[0].variants)).toEqual(IN_PEN);
    for (const [url, headers] of [['/api/v1/catalog/products?currency=USD', {}], ['/api/v1/catalog/products?market=us', {}], ['/api/v1/catalog/products', { 'x-market': 'us' }]] as const) {
      const res = await get(url, headers);
      expect(res.statusCode, res.body).toBe(200);
      expect(answersMatch(listOf(ProductOut), res.json())).toBe(true);
      expect(prices(res.json().data[0].variants), url).toEqual(IN_USD);
    }
    expect((await get('/api/v1/catalog/products?market=us')).json().data[0].title).toBe('Alpaca sweater');
    expect(prices((await get('/api/v1/catalog/products?currency=EUR')).json().data[0].variants)).toEqual([['Talla M', 50, null, 'EUR']]);
  });

  it('prices GraphQL products by argument or X-Market', async () => {
    const fields = 'title variants { title price compareAtPrice currency }';
    const gqlPrices = (variants: Array<{ title: string; price: number; compareAtPrice: number | null; currency: string }>) => variants.map((v) => [v.title, v.price, v.compareAtPrice, v.currency]);
    const pen = await gql(`query($id: ID!) { product(id: $id) { ${fields} } }`, { id: product.id });
    expect(gqlPrices(pen.data.product.variants)).toEqual(IN_PEN);
    const usd = await gql(`query($id: ID!) { product(id: $id, currency: "USD") { ${fields} } }`, { id: product.id });
    expect(usd.errors).toBeUndefined();
    expect([usd.data.product.title, gqlPrices(usd.data.product.variants)]).toEqual(['Chompa de alpaca', IN_USD]);
    const market = await gql(`{ products(market: "us") { edges { node { ${fields} } } } }`);
    expect([market.data.products.edges[0].node.title, gqlPrices(market.data.products.edges[0].node.variants)]).toEqual(['Alpaca sweater', IN_USD]);
    const header = await gql(`query($id: ID!) { product(id: $id) { ${fields} } }`, { id: product.id }, { 'x-market': 'us' });
    expect([header.data.product.title, gqlPrices(header.data.product.variants)]).toEqual(['Alpaca sweater', IN_USD]);
    expect(gqlPrices((await gql(`{ products(currency: "CLP") { edges { node { ${fields} } } } }`)).data.products.edges[0].node.variants)).toEqual(IN_CLP);
    const unknown = await gql(`{ products(market: "mars") { edges { node { title } } } }`);
    expect(unknown.errors[0].extensions.code).toBe('MARKET_NOT_FOUND');
    const unlisted = await gql(`{ products(currency: "GBP") { edges { node { title } } } }`);
    expect(unlisted.errors[0].extensions.code).toBe('CURRENCY_NOT_LISTED');
    // Read again after the other currencies: each answer kept apart.
    expect(gqlPrices((await gql(`query($id: ID!) { product(id: $id) { ${fields} } }`, { id: product.id })).data.product.variants)).toEqual(IN_PEN);
  });
});

describe('the read cache', () => {
  it('never answers one currency for another: USD, then PEN, then USD on the same URL and locale, the last from memory', async () => {
    const url = `/api/v1/catalog/products/${product.id}`;
    const read = (headers: Record<string, string>) => t.countQueries(() => get(url, headers));
    const usd = await read({ 'x-market': 'ec' });
    expect([usd.result.json().data.title, prices(usd.result.json().data.variants)]).toEqual(['Chompa de alpaca', IN_USD]);
    const pen = await read({});
    expect(prices(pen.result.json().data.variants)).toEqual(IN_PEN);
    let again = await read({ 'x-market': 'ec' });
    for (const end = Date.now() + 1000; again.count > 0 && Date.now() < end; again = await read({ 'x-market': 'ec' })) await new Promise((r) => setTimeout(r, 10));
    expect(again.count).toBe(0);
    expect(prices(again.result.json().data.variants)).toEqual(IN_USD);
    expect(again.result.headers.etag).not.toBe(pen.result.headers.etag);
    const penAgain = await read({});
    expect([penAgain.count, prices(penAgain.result.json().data.variants)]).toEqual([0, IN_PEN]);
    // GraphQL keeps its answers apart the same way.
    const query = `query($id: ID!) { product(id: $id) { variants { price currency } } }`;
    for (const market of ['ec', null, 'ec', null]) {
      const res = await gql(query, { id: product.id }, market ? { 'x-market': market } : {});
      expect(res.data.product.variants[0], String(market)).toEqual(market ? { price: 3186, currency: 'USD' } : { price: 11800, currency: 'PEN' });
    }
  });

  it('reads a product in another currency in one round trip, as in the default', async () => {
    const { count, statements } = await t.countQueries(() => caller(t, shop)('GET', `/api/v1/catalog/products/${product.id}?currency=CLP`));
    expect(count).toBe(1);
    expect(statements[0]).toMatch(/catalog_variant_price/);
    const list = await t.countQueries(() => caller(t, shop)('GET', '/api/v1/catalog/products?currency=USD'));
    expect(list.count).toBe(1);
  });

  it('shows a price change at once, explicit (REST and GraphQL) and a new rate', async () => {
    const url = `/api/v1/catalog/products/${product.id}?currency=USD`;
    const query = `query($id: ID!) { product(id: $id, currency: "USD") { variants { price } } }`;
    expect((await get(url)).json().data.variants[1].price).toBe(99);
    expect((await gql(query, { id: product.id })).data.product.variants[1].price).toBe(99);
    const patched = await caller(t, shop)('PATCH', `/api/v1/catalog/products/${product.id}/variants/${product.variants[1].id}`, { prices: [{ currency: 'USD', amount: 77 }] });
    expect(patched.statusCode, patched.body).toBe(200);
    // Replaced: the euro price is gone with the old dollar one.
    expect(patched.json().data.prices).toEqual([{ currency: 'USD', amount: 77, compare_at_amount: null }]);
    expect((await get(url)).json().data.variants[1]).toMatchObject({ price: 77, compare_at_price: null });
    expect((await gql(query, { id: product.id })).data.product.variants[1].price).toBe(77);
    expect((await get(`/api/v1/catalog/products/${product.id}?currency=EUR`)).json().data.variants).toEqual([]);
    // A new rate reprices every derived price at once; the explicit one stays as set.
    const rate = await caller(t, shop)('PUT', '/api/v1/currencies', { currencies: [{ code: 'USD', rate: '0.3' }, { code: 'CLP', rate: '250', rounding_increment: 10, rounding: 'up' }, { code: 'EUR', rate: null }] });
    expect(rate.statusCode).toBe(200);
    expect(prices((await get(url)).json().data.variants)).toEqual([['Talla S', 3540, 4500, 'USD'], ['Talla M', 77, null, 'USD'], ['Talla L', 600, null, 'USD']]);
    const viaGraphQL = async () => (await gql(query, { id: product.id })).data.product.variants.map((v: { price: number }) => v.price);
    let seen = await viaGraphQL();
    for (const end = Date.now() + 1000; seen[0] !== 3540 && Date.now() < end; seen = await viaGraphQL()) await new Promise((r) => setTimeout(r, 10));
    expect(seen).toEqual([3540, 77, 600]);
    // A variant added with its prices is for sale in them at once.
    const added = await caller(t, shop)('POST', `/api/v1/catalog/products/${product.id}/variants`, { title: 'Talla XL', price: 2000, prices: [{ currency: 'EUR', amount: 480 }] });
    expect(added.statusCode, added.body).toBe(201);
    expect(added.json().data.prices).toEqual([{ currency: 'EUR', amount: 480, compare_at_amount: null }]);
    expect(prices((await get(`/api/v1/catalog/products/${product.id}?currency=EUR`)).json().data.variants)).toEqual([['Talla XL', 480, null, 'EUR']]);
    // And an empty list takes them away.
    await caller(t, shop)('PATCH', `/api/v1/catalog/products/${product.id}/variants/${added.json().data.id}`, { prices: [] });
    expect((await get(`/api/v1/catalog/products/${product.id}?currency=EUR`)).json().data.variants).toEqual([]);
    await caller(t, shop)('DELETE', `/api/v1/catalog/products/${product.id}/variants/${added.json().data.id}`);
  });
});

describe('price resolution', () => {
  const facts = () => product.variants.map((v, i): PricedVariant => ({ id: v.id, productId: product.id, price: [11800, 150, 1999][i], currency: 'PEN' }));
  const resolve = (currency: string | undefined) => {
    const resolver = t.app.container.resolve<PriceResolverStrategy>(PriceResolver);
    return t.countQueries(() => t.app.container.resolve(Database).tenant((tx) => resolver.resolve(tx, facts(), { customerId: null, currency }), shop.id));
  };

  it("answers the variant's own price without a statement, and another currency's in one (with the store's rates when no caller carries them)", async () => {
    const own = await resolve(undefined);
    expect([...own.result.values()].map((p) => [p.price, p.catalogPrice, p.currency])).toEqual([[11800, 11800, 'PEN'], [150, 150, 'PEN'], [1999, 1999, 'PEN']]);
    const pen = await resolve('PEN');
    expect([...pen.result.values()].map((p) => p.price)).toEqual([11800, 150, 1999]);
    const usd = await resolve('USD');
    expect([...usd.result.values()].map((p) => [p.variantId, p.price, p.catalogPrice, p.currency])).toEqual([
      [product.variants[0].id, 3540, 3540, 'USD'], [product.variants[1].id, 77, 77, 'USD'], [product.variants[2].id, 600, 600, 'USD'],
    ]);
    // The store's currencies (no token here) and the explicit prices: one statement each, beside the transaction's own.
    expect(usd.statements.filter((s) => /core_store_currency|catalog_variant_price/.test(s))).toHaveLength(2);
    expect(own.statements.filter((s) => /core_store_currency|catalog_variant_price/.test(s))).toHaveLength(0);
    // Not for sale where neither price exists, nor in a currency the store does not sell in.
    expect([...(await resolve('EUR')).result.keys()]).toEqual([]);
    expect([...(await resolve('GBP')).result.keys()]).toEqual([]);
    expect([...(await resolve('CLP')).result.values()].map((p) => p.price)).toEqual([29500, 380, 5000]);
  });
});
