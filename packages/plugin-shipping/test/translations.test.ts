import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addRate, caller, parcel, RATES, shippingApp } from './helpers.js';

/** The rate table's service names in the store's other locales: set by staff, shown by calculate. */
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let standard: { id: string };
beforeAll(async () => {
  t = await shippingApp();
  shop = await t.createTenant({ currency: 'PEN' });
  other = await t.createTenant({ currency: 'PEN' });
  expect((await caller(t, shop)('PUT', '/api/v1/locales', { default_locale: 'es-PE', locales: ['en-US'] })).statusCode).toBe(200);
  standard = await addRate(t, shop);
  await addRate(t, shop, { service_name: 'Olva Express', service_code: 'express', amount: 2500 });
}, 60_000);
afterAll(async () => t?.close());

const calculate = (query = '', headers: Record<string, string> = {}) =>
  t.request({ method: 'POST', url: `${RATES}/calculate${query}`, headers: { ...shop.headers(shop.storefrontToken), ...headers }, payload: parcel() });

describe('shipping method names per locale', () => {
  it('names a rate’s service in English; calculate shows it in English and falls back to the rate’s own name', async () => {
    const put = await caller(t, shop)('PUT', `${RATES}/${standard.id}/translations/en-US`, { service_name: 'Olva Standard' });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json().data).toMatchObject({ locale: 'en-US', service_name: 'Olva Standard' });
    const names = async (res: Awaited<ReturnType<typeof calculate>>) => res.json().map((r: { service_name: string }) => r.service_name);
    expect(await names(await calculate('?locale=en-US'))).toEqual(['Olva Standard', 'Olva Express']);
    expect(await names(await calculate('', { 'accept-language': 'en' }))).toEqual(['Olva Standard', 'Olva Express']);
    expect(await names(await calculate())).toEqual(['Olva Estándar', 'Olva Express']);
    expect((await calculate('?locale=fr-FR')).json().error.code).toBe('LOCALE_NOT_LISTED');
    expect((await caller(t, shop)('GET', `${RATES}/${standard.id}/translations`)).json().data.map((x: { locale: string }) => x.locale)).toEqual(['en-US']);
  });

  it('validates the locale and the body; another store’s rate is a 404', async () => {
    expect((await caller(t, shop)('PUT', `${RATES}/${standard.id}/translations/pt-BR`, { service_name: 'Olva Padrão' })).json().error.code).toBe('LOCALE_NOT_LISTED');
    expect((await caller(t, shop)('PUT', `${RATES}/${standard.id}/translations/en-US`, { service_name: 'X', amount: 1 })).statusCode).toBe(400);
    const theirs = await caller(t, other)('PUT', `${RATES}/${standard.id}/translations/en`, { service_name: 'Stolen' });
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json().error.code).toBe('SHIPPING_RATE_NOT_FOUND');
  });

  it('go with their rate, and a removed one shows the rate’s own name again', async () => {
    expect((await caller(t, shop)('DELETE', `${RATES}/${standard.id}/translations/en-US`)).statusCode).toBe(204);
    expect((await calculate('?locale=en-US')).json()[0].service_name).toBe('Olva Estándar');
    await caller(t, shop)('PUT', `${RATES}/${standard.id}/translations/en-US`, { service_name: 'Olva Standard' });
    expect((await caller(t, shop)('DELETE', `${RATES}/${standard.id}`)).statusCode).toBe(204);
    const left = await t.app.orm.em.getConnection().execute('select count(*)::int as n from shipping_translation where resource_id = ?', [standard.id]);
    expect(left[0].n).toBe(0);
  });
});
