import type { InjectOptions } from 'fastify';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, blogApp, caller, createPost, publish, type PostJson } from './helpers.js';

/** Posts of a store in Spanish (its default) and English, read and searched in the locale asked. */
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let post: PostJson;

const send = (tenant: TestTenant, method: 'GET' | 'PUT' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = {}, token?: string) =>
  t.request({ method, url, headers: { ...tenant.headers(token), ...headers }, payload: payload as InjectOptions['payload'] });
const storefront = (url: string, headers: Record<string, string> = {}) => send(shop, 'GET', url, undefined, headers, shop.storefrontToken);

beforeAll(async () => {
  t = await blogApp();
  shop = await t.createTenant();
  other = await t.createTenant();
  expect((await send(shop, 'PUT', '/api/v1/locales', { default_locale: 'es', locales: ['es', 'en-US'] })).statusCode).toBe(200);
  const api = caller(t, shop);
  post = await createPost(api, { title: 'Tejidos de los Andes', excerpt: 'Una historia', content: '<p>Hilos de alpaca</p>' });
  await publish(api, post.id);
  await publish(api, (await createPost(api, { title: 'Recetas de quinua' })).id);
}, 60_000);
afterAll(async () => t?.close());

describe('blog post translations', () => {
  it('are written by staff, sanitized, and read in the locale asked, field by field', async () => {
    const put = await send(shop, 'PUT', `${BASE}/${post.id}/translations/en-US`, { title: '<b>Andean weavings</b>', content: '<p onclick="x()">Alpaca threads</p><script>alert(1)</script>' });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json().data).toMatchObject({ locale: 'en-US', title: 'Andean weavings', excerpt: null, content: '<p>Alpaca threads</p>' });
    const en = await storefront(`${BASE}/${post.id}?locale=en-US`);
    expect(en.json().data).toMatchObject({ title: 'Andean weavings', excerpt: 'Una historia', content: '<p>Alpaca threads</p>', slug: post.slug });
    expect((await storefront(`${BASE}/slug/${post.slug}`, { 'accept-language': 'en;q=0.9, es;q=0.5' })).json().data.title).toBe('Andean weavings');
    expect((await storefront(`${BASE}/${post.id}`)).json().data.title).toBe('Tejidos de los Andes');
    const list = await storefront(`${BASE}?locale=en-US&sort=title`);
    expect(list.json().data.map((p: PostJson) => p.title)).toEqual(['Recetas de quinua', 'Andean weavings']);
    const translations = await send(shop, 'GET', `${BASE}/${post.id}/translations`);
    expect(translations.json().data.map((x: { locale: string }) => x.locale)).toEqual(['en-US']);
  });

  it('are searched in the locale’s language, beside the post’s own titles', async () => {
    const titles = async (url: string) => (await storefront(url)).json().data.map((p: PostJson) => p.title);
    expect(await titles(`${BASE}?q=weaving&locale=en-US`)).toEqual(['Andean weavings']);
    expect(await titles(`${BASE}?q=weaving`)).toEqual([]);
    expect(await titles(`${BASE}?q=tejidos&locale=en-US`)).toEqual(['Andean weavings']);
    expect(await titles(`${BASE}?q=quinua&locale=en-US`)).toEqual(['Recetas de quinua']);
  });

  it('refuse a locale the store does not list (422), its default (422), unknown fields (400); a storefront key may not write', async () => {
    const fr = await send(shop, 'PUT', `${BASE}/${post.id}/translations/fr`, { title: 'Tissages' });
    expect(fr.statusCode).toBe(422);
    expect(fr.json().error.code).toBe('LOCALE_NOT_LISTED');
    expect((await send(shop, 'PUT', `${BASE}/${post.id}/translations/es`, { title: 'Otra' })).json().error.code).toBe('LOCALE_IS_DEFAULT');
    const unknown = await send(shop, 'PUT', `${BASE}/${post.id}/translations/en-US`, { title: 'X', slug: 'x' });
    expect(unknown.statusCode).toBe(400);
    expect((await storefront(`${BASE}/${post.id}?locale=fr`)).statusCode).toBe(422);
    expect((await send(shop, 'PUT', `${BASE}/${post.id}/translations/en-US`, { title: 'X' }, {}, shop.storefrontToken)).statusCode).toBe(403);
  });

  it('of another store are never seen: its post ids are 404s', async () => {
    await send(other, 'PUT', '/api/v1/locales', { default_locale: 'en', locales: ['es'] });
    for (const [method, url] of [
      ['GET', `${BASE}/${post.id}/translations`],
      ['PUT', `${BASE}/${post.id}/translations/es`],
      ['DELETE', `${BASE}/${post.id}/translations/es`],
    ] as const) {
      const res = await send(other, method, url, method === 'PUT' ? { title: 'Robado' } : undefined);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().error.code).toBe('BLOG_POST_NOT_FOUND');
    }
  });

  it('removed, fall back to the default locale', async () => {
    expect((await send(shop, 'DELETE', `${BASE}/${post.id}/translations/en-US`)).statusCode).toBe(204);
    expect((await storefront(`${BASE}/${post.id}?locale=en-US`)).json().data.title).toBe('Tejidos de los Andes');
    expect((await send(shop, 'DELETE', `${BASE}/${post.id}/translations/en-US`)).statusCode).toBe(404);
  });
});
