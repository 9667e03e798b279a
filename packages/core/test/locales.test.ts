import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestTenant } from '../src/testing/index.js';

/** The locales a store sells in (decision 0089): read by its storefronts, set by staff, kept per store. */
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
beforeAll(async () => {
  t = await createTestApp({ plugins: [] });
  shop = await t.createTenant({ name: 'Tienda' });
  other = await t.createTenant({ name: 'Other' });
});
afterAll(async () => t?.close());

const locales = (tenant: TestTenant, token?: string) => t.request({ method: 'GET', url: '/api/v1/locales', headers: tenant.headers(token) });
const setLocales = (tenant: TestTenant, payload: unknown, token?: string) => t.request({ method: 'PUT', url: '/api/v1/locales', headers: tenant.headers(token), payload: payload as never });

describe('/api/v1/locales', () => {
  it('is the default alone for a new store', async () => {
    const res = await locales(shop, shop.storefrontToken);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ default_locale: 'en', locales: ['en'] });
  });

  it('sets the default and the others, normalized, deduplicated, the default first and listed whether sent or not', async () => {
    const res = await setLocales(shop, { default_locale: 'ES-pe', locales: ['en-us', 'pt-BR', 'en-US'] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ default_locale: 'es-PE', locales: ['es-PE', 'en-US', 'pt-BR'] });
    // Read at once by a key whose lookup was cached before the change.
    expect((await locales(shop, shop.storefrontToken)).json().data.locales).toEqual(['es-PE', 'en-US', 'pt-BR']);
    expect((await locales(other)).json().data).toEqual({ default_locale: 'en', locales: ['en'] });
  });

  it('refuses what is not a locale (400), too many (400) and callers without locales.manage (403)', async () => {
    const bad = await setLocales(shop, { default_locale: 'es-PE', locales: ['english'] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ code: 'VALIDATION_ERROR', details: [expect.objectContaining({ path: 'body.locales.0' })] });
    expect((await setLocales(shop, { default_locale: 'es-PE', locales: ['en'], other: true })).statusCode).toBe(400);
    const many = Array.from({ length: 21 }, (_, i) => `x${String.fromCharCode(97 + i)}`);
    expect((await setLocales(shop, { default_locale: 'es-PE', locales: many })).statusCode).toBe(400);
    expect((await setLocales(shop, { default_locale: 'es-PE', locales: [] }, shop.storefrontToken)).statusCode).toBe(403);
    expect((await locales(shop)).json().data.locales).toEqual(['es-PE', 'en-US', 'pt-BR']);
  });

  it('takes the new default off the others when the platform moves it', async () => {
    const res = await t.request({ method: 'PUT', url: `/api/v1/tenants/${shop.id}`, headers: { authorization: `Bearer ${t.platformToken}` }, payload: { name: 'Tienda', default_locale: 'en-US' } });
    expect(res.statusCode, res.body).toBe(200);
    expect((await locales(shop, shop.storefrontToken)).json().data).toEqual({ default_locale: 'en-US', locales: ['en-US', 'pt-BR'] });
  });

  it('is documented in OpenAPI with its permission', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.paths['/api/v1/locales'].put['x-permission']).toBe('locales.manage');
    expect(Object.keys(doc.paths['/api/v1/locales'])).toEqual(expect.arrayContaining(['get', 'put']));
  });
});
