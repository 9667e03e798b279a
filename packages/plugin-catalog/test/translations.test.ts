import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProductOut } from '../src/schemas/product.js';
import { answersMatch, dataOf, listOf, ReadCache } from '@qhatu/core';
import { caller, catalogApp, MISSING } from './helpers.js';

/**
 * A store in Lima selling in Spanish (its default), English and Portuguese: products, variants,
 * collections and brands translated per locale, read in the locale asked and searched in its language.
 */
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let product: { id: string; variants: Array<{ id: string }> };
let plain: { id: string };

const get = (url: string, headers: Record<string, string> = {}, token = shop.storefrontToken) =>
  t.request({ method: 'GET', url, headers: { ...shop.headers(token), ...headers } });
const gql = (query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  t.request({ method: 'POST', url: '/graphql', headers: { ...shop.headers(shop.storefrontToken), ...headers }, payload: { query, variables } }).then((r) => r.json());

beforeAll(async () => {
  t = await catalogApp();
  shop = await t.createTenant({ name: 'Tienda Lima', currency: 'PEN' });
  other = await t.createTenant({ name: 'Otra tienda', currency: 'PEN' });
  const admin = caller(t, shop);
  const set = await admin('PUT', '/api/v1/locales', { default_locale: 'es-PE', locales: ['en-US', 'pt-br'] });
  expect(set.statusCode, set.body).toBe(200);
  product = (await admin('POST', '/api/v1/catalog/products', {
    title: 'Zapatos de cuero',
    description_html: '<p>Hechos a mano en Cusco</p>',
    variants: [{ title: 'Talla 40', price: 25000 }, { title: 'Talla 42', price: 25000 }],
  })).json().data;
  plain = (await admin('POST', '/api/v1/catalog/products', { title: 'Chompa de alpaca', variants: [{ title: 'Única', price: 9000 }] })).json().data;
  const en = await admin('PUT', `/api/v1/catalog/products/${product.id}/translations/en-US`, { title: 'Leather shoes' });
  expect(en.statusCode, en.body).toBe(200);
  expect((await admin('PUT', `/api/v1/catalog/products/${product.id}/variants/${product.variants[0].id}/translations/en-US`, { title: 'Size 40' })).statusCode).toBe(200);
  expect((await admin('PUT', `/api/v1/catalog/products/${product.id}/translations/pt-BR`, { title: 'Sapatos de couro', description_html: '<p>Feitos à mão</p>' })).statusCode).toBe(200);
}, 60_000);
afterAll(async () => t?.close());

describe("the store's locales", () => {
  it('lists the default first, for storefronts too; staff set them, others may not', async () => {
    const res = await get('/api/v1/locales');
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ default_locale: 'es-PE', locales: ['es-PE', 'en-US', 'pt-BR'] });
    expect((await t.request({ method: 'PUT', url: '/api/v1/locales', headers: shop.headers(shop.storefrontToken), payload: { default_locale: 'es-PE', locales: [] } })).statusCode).toBe(403);
    const bad = await caller(t, shop)('PUT', '/api/v1/locales', { default_locale: 'spanish', locales: [] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('VALIDATION_ERROR');
    // Another store keeps its own.
    expect((await t.request({ method: 'GET', url: '/api/v1/locales', headers: other.headers(other.storefrontToken) })).json().data).toEqual({ default_locale: 'en', locales: ['en'] });
  });
});

describe('a product read in a locale', () => {
  it('answers in Spanish by default and in English when asked, field by field', async () => {
    const es = await get(`/api/v1/catalog/products/${product.id}`);
    expect(es.json().data).toMatchObject({ title: 'Zapatos de cuero', description_html: '<p>Hechos a mano en Cusco</p>', variants: [{ title: 'Talla 40' }, { title: 'Talla 42' }] });
    expect(es.headers['content-language']).toBe('es-PE');
    expect(es.headers.vary).toContain('Accept-Language');
    const en = await get(`/api/v1/catalog/products/${product.id}?locale=en-US`);
    expect(en.statusCode).toBe(200);
    // The title and the first variant are translated; the description and the second variant fall back to Spanish.
    expect(en.json().data).toMatchObject({ title: 'Leather shoes', description_html: '<p>Hechos a mano en Cusco</p>', variants: [{ title: 'Size 40' }, { title: 'Talla 42' }] });
    expect(en.headers['content-language']).toBe('en-US');
    expect(answersMatch(dataOf(ProductOut), en.json())).toBe(true);
  });

  it('takes Accept-Language with q-values, a language for one of its regions, and the default when none is listed', async () => {
    const en = await get(`/api/v1/catalog/products/${product.id}`, { 'accept-language': 'fr;q=0.9, en-GB;q=0.95, de' });
    expect(en.json().data.title).toBe('Leather shoes');
    expect(en.headers['content-language']).toBe('en-US');
    const pt = await get(`/api/v1/catalog/products/${product.id}`, { 'accept-language': 'pt-BR,pt;q=0.8' });
    expect(pt.json().data).toMatchObject({ title: 'Sapatos de couro', description_html: '<p>Feitos à mão</p>', variants: [{ title: 'Talla 40' }, { title: 'Talla 42' }] });
    const none = await get(`/api/v1/catalog/products/${product.id}`, { 'accept-language': 'de-DE, fr;q=0.5' });
    expect(none.json().data.title).toBe('Zapatos de cuero');
    expect(none.headers['content-language']).toBe('es-PE');
    // The query parameter wins over the header.
    expect((await get(`/api/v1/catalog/products/${product.id}?locale=es-PE`, { 'accept-language': 'en-US' })).json().data.title).toBe('Zapatos de cuero');
  });

  it('refuses a locale the store does not list (422) and one that is not a locale (400)', async () => {
    const fr = await get(`/api/v1/catalog/products/${product.id}?locale=fr-FR`);
    expect(fr.statusCode).toBe(422);
    expect(fr.json().error).toMatchObject({ code: 'LOCALE_NOT_LISTED', details: [{ path: 'querystring.locale', locale: 'fr-FR', locales: ['es-PE', 'en-US', 'pt-BR'] }] });
    expect((await get(`/api/v1/catalog/products?locale=fr`)).statusCode).toBe(422);
    const bad = await get(`/api/v1/catalog/products/${product.id}?locale=no_such_thing!`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('VALIDATION_ERROR');
  });

  it('lists products in the locale, held to the list schema', async () => {
    const res = await get('/api/v1/catalog/products?locale=en-US&sort=title');
    expect(res.statusCode).toBe(200);
    expect(answersMatch(listOf(ProductOut), res.json())).toBe(true);
    expect(res.json().data.map((p: { title: string }) => p.title)).toEqual(['Chompa de alpaca', 'Leather shoes']);
    const paged = await get('/api/v1/catalog/products?locale=en-US&sort=title&limit=1');
    const next = await get(`/api/v1/catalog/products?locale=en-US&sort=title&limit=1&cursor=${paged.json().meta.pagination.cursor}`);
    expect(next.json().data.map((p: { title: string }) => p.title)).toEqual(['Leather shoes']);
  });

  it('keeps each locale its own entry in the read cache: en, then es, then en again from memory', async () => {
    const url = `/api/v1/catalog/products/${plain.id}`;
    await caller(t, shop)('PUT', `${url}/translations/en-US`, { title: 'Alpaca sweater' });
    // The change's notice from the database arrives first (it would file what is read before it under an old version).
    await t.app.container.resolve(ReadCache).caughtUp();
    const read = (language: string) => t.countQueries(() => get(url, { 'accept-language': language }));
    const en = await read('en-US');
    const es = await read('es-PE');
    expect(en.result.json().data.title).toBe('Alpaca sweater');
    expect(es.result.json().data.title).toBe('Chompa de alpaca');
    expect(en.count).toBeGreaterThan(0);
    const again = await read('en-US');
    expect(again.result.json().data.title).toBe('Alpaca sweater');
    expect(again.count).toBe(0);
    expect((await read('en-US')).count).toBe(0);
    expect((await read('es-PE')).count).toBe(0);
    // A translation changed moves the catalog's version: the entry is read again.
    await caller(t, shop)('PUT', `${url}/translations/en-US`, { title: 'Alpaca jumper' });
    expect((await read('en-US')).result.json().data.title).toBe('Alpaca jumper');
  });
});

describe('search in a locale', () => {
  it('finds the English words stemmed in English, the Portuguese in Portuguese, and the store’s own words in any locale', async () => {
    const titles = async (url: string) => (await get(url)).json().data.map((p: { title: string }) => p.title);
    expect(await titles('/api/v1/catalog/products?q=shoe&locale=en-US')).toEqual(['Leather shoes']);
    expect(await titles('/api/v1/catalog/products?q=shoe')).toEqual([]);
    expect(await titles('/api/v1/catalog/products?q=sapato&locale=pt-BR')).toEqual(['Sapatos de couro']);
    expect(await titles('/api/v1/catalog/products?q=zapatos')).toEqual(['Zapatos de cuero']);
    expect(await titles('/api/v1/catalog/products?q=zapatos&locale=en-US')).toEqual(['Leather shoes']);
    // Words of another store's translations are not found here, nor ours there.
    expect((await t.request({ method: 'GET', url: '/api/v1/catalog/products?q=shoe', headers: other.headers(other.storefrontToken) })).json().data).toEqual([]);
  });
});

describe('translations through the admin API', () => {
  const admin = () => caller(t, shop);
  it('lists a resource’s translations and removes one, which falls back to the default', async () => {
    const list = await admin()('GET', `/api/v1/catalog/products/${product.id}/translations`);
    expect(list.statusCode).toBe(200);
    expect(list.json().data.map((x: { locale: string; title: string }) => [x.locale, x.title])).toEqual([['en-US', 'Leather shoes'], ['pt-BR', 'Sapatos de couro']]);
    expect(list.json().data[0].description_html).toBeNull();
    expect((await admin()('DELETE', `/api/v1/catalog/products/${product.id}/translations/pt-BR`)).statusCode).toBe(204);
    expect((await get(`/api/v1/catalog/products/${product.id}?locale=pt-BR`)).json().data.title).toBe('Zapatos de cuero');
    const again = await admin()('DELETE', `/api/v1/catalog/products/${product.id}/translations/pt-BR`);
    expect(again.statusCode).toBe(404);
    expect(again.json().error.code).toBe('TRANSLATION_NOT_FOUND');
  });

  it('refuses a locale not listed (422 LOCALE_NOT_LISTED), the default (422 LOCALE_IS_DEFAULT), an unknown field and an empty body (400)', async () => {
    const fr = await admin()('PUT', `/api/v1/catalog/products/${product.id}/translations/fr-FR`, { title: 'Chaussures' });
    expect(fr.statusCode).toBe(422);
    expect(fr.json().error).toMatchObject({ code: 'LOCALE_NOT_LISTED', details: [{ path: 'params.locale', locale: 'fr-FR' }] });
    const es = await admin()('PUT', `/api/v1/catalog/products/${product.id}/translations/es-PE`, { title: 'Zapatos' });
    expect(es.statusCode).toBe(422);
    expect(es.json().error.code).toBe('LOCALE_IS_DEFAULT');
    const unknown = await admin()('PUT', `/api/v1/catalog/products/${product.id}/translations/en-US`, { title: 'Shoes', status: 'active' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.code).toBe('VALIDATION_ERROR');
    expect((await admin()('PUT', `/api/v1/catalog/products/${product.id}/translations/en-US`, {})).statusCode).toBe(400);
    expect((await admin()('PUT', `/api/v1/catalog/products/${product.id}/translations/english`, { title: 'Shoes' })).statusCode).toBe(400);
    const storefront = await t.request({ method: 'PUT', url: `/api/v1/catalog/products/${product.id}/translations/en-US`, headers: shop.headers(shop.storefrontToken), payload: { title: 'Hacked' } });
    expect(storefront.statusCode).toBe(403);
  });

  it('never shows or changes another store’s translations: its ids are 404s', async () => {
    const theirs = caller(t, other);
    await theirs('PUT', '/api/v1/locales', { default_locale: 'en', locales: ['en-US'] });
    for (const [method, url] of [
      ['PUT', `/api/v1/catalog/products/${product.id}/translations/en-US`],
      ['GET', `/api/v1/catalog/products/${product.id}/translations`],
      ['DELETE', `/api/v1/catalog/products/${product.id}/translations/en-US`],
      ['GET', `/api/v1/catalog/products/${product.id}?locale=en-US`],
    ] as const) {
      const res = await theirs(method, url, method === 'PUT' ? { title: 'Stolen' } : undefined);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().error.code).toBe('PRODUCT_NOT_FOUND');
    }
    expect((await get(`/api/v1/catalog/products/${product.id}?locale=en-US`)).json().data.title).toBe('Leather shoes');
  });

  it('translates a variant of its own product only', async () => {
    const res = await admin()('PUT', `/api/v1/catalog/products/${plain.id}/variants/${product.variants[1].id}/translations/en-US`, { title: 'Size 42' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('VARIANT_NOT_FOUND');
  });

  it('translates collections and brands, read in the locale', async () => {
    const collection = (await admin()('POST', '/api/v1/catalog/collections', { title: 'Calzado', description: 'Para caminar' })).json().data;
    await admin()('POST', `/api/v1/catalog/collections/${collection.id}/products`, { product_id: product.id });
    expect((await admin()('PUT', `/api/v1/catalog/collections/${collection.id}/translations/en-US`, { title: 'Footwear' })).statusCode).toBe(200);
    expect((await get(`/api/v1/catalog/collections/${collection.id}?locale=en-US`)).json().data).toMatchObject({ title: 'Footwear', description: 'Para caminar' });
    expect((await get(`/api/v1/catalog/collections/${collection.id}`)).json().data.title).toBe('Calzado');
    expect((await get('/api/v1/catalog/collections?locale=en-US')).json().data.map((c: { title: string }) => c.title)).toEqual(['Footwear']);
    expect((await get(`/api/v1/catalog/collections/${collection.id}/products`, { 'accept-language': 'en' })).json().data.map((p: { title: string }) => p.title)).toEqual(['Leather shoes']);

    const brand = (await admin()('POST', '/api/v1/catalog/brands', { name: 'Inka', description: 'Hecho en Perú' })).json().data;
    expect((await admin()('PUT', `/api/v1/catalog/brands/${brand.id}/translations/en-US`, { description: 'Made in Peru' })).statusCode).toBe(200);
    expect((await get(`/api/v1/catalog/brands/${brand.id}?locale=en-US`)).json().data).toMatchObject({ name: 'Inka', description: 'Made in Peru' });
    expect((await get('/api/v1/catalog/brands', { 'accept-language': 'en-US' })).json().data[0].description).toBe('Made in Peru');
    expect((await admin()('PUT', `/api/v1/catalog/brands/${MISSING}/translations/en-US`, { name: 'X' })).json().error.code).toBe('BRAND_NOT_FOUND');
  });
});

describe('GraphQL in a locale', () => {
  const QUERY = 'query($id: ID!, $locale: String) { product(id: $id, locale: $locale) { title descriptionHtml variants { title } } }';

  it('reads a product in the locale asked, or Accept-Language, falling back field by field', async () => {
    const en = await gql(QUERY, { id: product.id, locale: 'en-US' });
    expect(en.errors).toBeUndefined();
    expect(en.data.product).toEqual({ title: 'Leather shoes', descriptionHtml: '<p>Hechos a mano en Cusco</p>', variants: [{ title: 'Size 40' }, { title: 'Talla 42' }] });
    expect((await gql(QUERY, { id: product.id })).data.product.title).toBe('Zapatos de cuero');
    const list = await gql('query($l: String) { products(locale: $l) { edges { node { title } } } }', { l: 'en-US' });
    expect(list.data.products.edges.map((e: { node: { title: string } }) => e.node.title).sort()).toEqual(['Alpaca jumper', 'Leather shoes']);
  });

  it('keys whole answers by the Accept-Language locale: en, then es, each its own', async () => {
    const query = `{ product(id: "${product.id}") { title } }`;
    for (let round = 0; round < 2; round++) {
      expect((await gql(query, {}, { 'accept-language': 'en-US' })).data.product.title).toBe('Leather shoes');
      expect((await gql(query, {}, { 'accept-language': 'es-PE' })).data.product.title).toBe('Zapatos de cuero');
    }
    const cached = await t.countQueries(() => gql(query, {}, { 'accept-language': 'en-US' }));
    expect(cached.result.data.product.title).toBe('Leather shoes');
    expect(cached.count).toBe(0);
  });

  it('answers LOCALE_NOT_LISTED for a locale the store does not list', async () => {
    const res = await gql(QUERY, { id: product.id, locale: 'fr-FR' });
    expect(res.errors[0].extensions.code).toBe('LOCALE_NOT_LISTED');
  });
});
