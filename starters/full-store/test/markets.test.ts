import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { createTestApp } from '@qhatu/core/testing';
import { caller } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import project from '../qhatu.config.js';

/**
 * One store selling in two languages and two currencies to two markets, with every plugin of the
 * full store installed (issue 31; decisions 0089, 0097): a store in Lima sells in soles with IGV
 * included to Peru (Spanish) and in US dollars with tax added to the United States (English).
 */
type Caller = ReturnType<typeof caller>;
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let admin: Caller;
let store: Caller;
let product: { id: string; variants: Array<{ id: string }> };

const ADDRESS = { first_name: 'Ann', last_name: 'Lee', address1: '1 Ocean Dr', city: 'Miami', province: 'FL', country_code: 'US', zip: '33101', phone: '+13055550100' };

async function ok(res: { statusCode: number; body: string; json(): any }, status = 200): Promise<any> {
  expect(res.statusCode, res.body).toBe(status);
  return res.json().data;
}

beforeAll(async () => {
  t = await createTestApp({ plugins: project.plugins });
  shop = await t.createTenant({ name: 'Tienda Lima', currency: 'PEN' });
  other = await t.createTenant({ name: 'Otra', currency: 'PEN' });
  admin = caller(t, shop);
  store = caller(t, shop, shop.storefrontToken);
  await ok(await admin('PUT', '/api/v1/locales', { default_locale: 'es-PE', locales: ['en'] }));
  await ok(await admin('PUT', '/api/v1/currencies', { currencies: [{ code: 'USD', rate: '0.27' }] }));
  await ok(await admin('PATCH', '/api/v1/taxes/settings', { prices_include_tax: true, origin_country: 'PE' }));
  await ok(await admin('POST', '/api/v1/taxes/regions', { country_code: 'PE', rates: { standard: 1800 } }), 201);
  await ok(await admin('POST', '/api/v1/taxes/regions', { country_code: 'US', province: 'FL', rates: { standard: 700 } }), 201);
  await ok(await admin('POST', '/api/v1/markets', { handle: 'pe', name: 'Perú', countries: ['PE'], currency: 'PEN', default_locale: 'es-PE', prices_include_tax: true }), 201);
  await ok(await admin('POST', '/api/v1/markets', { handle: 'us', name: 'United States', countries: ['US'], currency: 'USD', default_locale: 'en', prices_include_tax: false }), 201);
  // S/ 250.00; in dollars set explicitly at $70.00 (the derived one would be $67.50).
  product = await ok(await admin('POST', '/api/v1/catalog/products', {
    title: 'Chompa de alpaca',
    description_html: '<p>Tejida a mano en Puno</p>',
    variants: [{ title: 'Talla M', price: 25_000, prices: [{ currency: 'USD', amount: 7_000 }] }, { title: 'Talla L', price: 26_000 }],
  }), 201);
  await ok(await admin('PUT', `/api/v1/catalog/products/${product.id}/translations/en`, { title: 'Alpaca sweater', description_html: '<p>Hand-knitted in Puno</p>' }));
  await ok(await admin('PUT', `/api/v1/catalog/products/${product.id}/variants/${product.variants[0].id}/translations/en`, { title: 'Size M' }));
  // Another store translates and prices its own product; none of it reaches this store.
  const theirs = await ok(await caller(t, other)('POST', '/api/v1/catalog/products', { title: 'Chompa de vicuña', variants: [{ title: 'Única', price: 90_000 }] }), 201);
  await ok(await caller(t, other)('PUT', '/api/v1/locales', { default_locale: 'es', locales: ['en'] }));
  await ok(await caller(t, other)('PUT', `/api/v1/catalog/products/${theirs.id}/translations/en`, { title: 'Alpaca vicuna sweater' }));
}, 120_000);
afterAll(async () => t?.close());

describe('a store in two languages, two currencies and two markets', () => {
  it('reads one product in Spanish and soles, and in English and dollars', async () => {
    const es = await ok(await store('GET', `/api/v1/catalog/products/${product.id}`));
    expect(es).toMatchObject({ title: 'Chompa de alpaca', variants: [{ title: 'Talla M', price: 25_000, currency: 'PEN' }, { title: 'Talla L', price: 26_000, currency: 'PEN' }] });
    const us = await ok(await store('GET', `/api/v1/catalog/products/${product.id}?market=us`));
    expect(us).toMatchObject({ title: 'Alpaca sweater', description_html: '<p>Hand-knitted in Puno</p>', variants: [{ title: 'Size M', price: 7_000, currency: 'USD' }, { title: 'Talla L', price: 7_020, currency: 'USD' }] });
    const header = await t.request({ method: 'GET', url: `/api/v1/catalog/products/${product.id}`, headers: { ...shop.headers(shop.storefrontToken), 'x-market': 'us' } });
    expect(header.json().data).toEqual(us);
    // Asked again in soles: the cache keeps each currency apart.
    expect(await ok(await store('GET', `/api/v1/catalog/products/${product.id}`))).toEqual(es);
    const gql = await t.request({
      method: 'POST', url: '/graphql', headers: shop.headers(shop.storefrontToken),
      payload: { query: `query ($id: ID!) { product(id: $id, market: "us") { title variants { price currency } } }`, variables: { id: product.id } },
    });
    expect(gql.json(), gql.body).toMatchObject({ data: { product: { title: 'Alpaca sweater', variants: [{ price: 7_000, currency: 'USD' }, { price: 7_020, currency: 'USD' }] } } });
  });

  it('searches in both languages, and never finds another store’s translations', async () => {
    const found = async (url: string) => (await ok(await store('GET', url))).map((p: { id: string }) => p.id);
    expect(await found('/api/v1/catalog/products?q=chompa')).toEqual([product.id]);
    expect(await found('/api/v1/catalog/products?q=sweater&locale=en')).toEqual([product.id]);
    expect(await found('/api/v1/catalog/products?q=vicuna&locale=en')).toEqual([]);
    expect(await found('/api/v1/catalog/products?q=sweater')).toEqual([]);
  });

  it('charges a USD cart in the PEN store as its market says: dollars, tax added, a coupon in dollars', async () => {
    await ok(await admin('POST', '/api/v1/discounts/coupons', { code: 'HOLA10', type: 'fixed_amount', value: 1_000, currency: 'PEN', amounts: { USD: 300 } }), 201);
    const cart = await ok(await store('POST', '/api/v1/checkout/carts', { market: 'us' }), 201);
    expect(cart).toMatchObject({ currency: 'USD', prices_include_tax: false });
    await ok(await store('POST', `/api/v1/checkout/carts/${cart.id}/items`, { variant_id: product.variants[0].id, quantity: 1 }), 201);
    const discounted = await ok(await store('POST', `/api/v1/checkout/carts/${cart.id}/coupon`, { code: 'HOLA10' }));
    expect(discounted).toMatchObject({ currency: 'USD', subtotal: 7_000, discount_total: 300 });
    const checkout = await ok(await store('POST', '/api/v1/checkout/checkouts', { cart_id: cart.id, email: 'ann@example.com' }), 201);
    const placed = await ok(await store('PUT', `/api/v1/checkout/checkouts/${checkout.id}/shipping`, { shipping_address: ADDRESS, billing_address: ADDRESS, shipping_rate: { carrier: 'manual', service: 'standard', price: 0 } }));
    // Florida's 7 % on the $67.00 after the coupon, added on top.
    expect(placed).toMatchObject({ currency: 'USD', subtotal: 7_000, discount_total: 300, tax_total: 469, prices_include_tax: false, total: 7_169 });
    const order = await ok(await admin('GET', `/api/v1/orders/${placed.order_id}`));
    expect(order).toMatchObject({ currency: 'USD', total: 7_169 });
  });

  it('charges a PEN cart in Peru with IGV included, the same coupon in soles', async () => {
    const cart = await ok(await store('POST', '/api/v1/checkout/carts', { market: 'pe' }), 201);
    await ok(await store('POST', `/api/v1/checkout/carts/${cart.id}/items`, { variant_id: product.variants[0].id, quantity: 1 }), 201);
    const discounted = await ok(await store('POST', `/api/v1/checkout/carts/${cart.id}/coupon`, { code: 'HOLA10' }));
    // S/ 240.00 after the coupon, IGV included: 240 − 240 / 1.18 = 36.61.
    expect(discounted).toMatchObject({ currency: 'PEN', subtotal: 25_000, discount_total: 1_000, tax_total: 3_661, prices_include_tax: true, total: 24_000 });
  });

  it('refuses a market or a currency the store does not have', async () => {
    const market = await store('POST', '/api/v1/checkout/carts', { market: 'mx' });
    expect(market.statusCode).toBe(422);
    expect(market.json().error.code).toBe('MARKET_NOT_FOUND');
    const currency = await store('GET', `/api/v1/catalog/products/${product.id}?currency=EUR`);
    expect(currency.statusCode).toBe(422);
    expect(currency.json().error.code).toBe('CURRENCY_NOT_LISTED');
  });
});
