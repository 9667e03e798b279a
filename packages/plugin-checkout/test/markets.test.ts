import type { TestApp, TestTenant } from '@qhatu/core/testing';
import taxes from '@qhatu/plugin-taxes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS, caller, CARTS, CHECKOUTS, checkoutApp, createProduct, type Caller } from './helpers.js';

// Carts and checkouts in a market and a currency (decision 0097). A store in Lima sells in soles
// (its default, IGV 18 % included in its prices by its tax setting) and in US dollars at 0.27 per
// sol, to two markets: `pe` (PEN, es-PE, tax included) and `us` (USD, en, tax added at checkout).
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let admin: Caller;
let store: Caller;
let markets: Record<string, { id: string }>;
let poncho: { id: string; variants: Array<{ id: string }> };

const US_ADDRESS = { ...ADDRESS, city: 'Miami', province: 'FL', country_code: 'US', zip: '33101' };
const RATE = { carrier: 'Olva', service: 'Express', price: 0 };

async function ok(res: { statusCode: number; body: string; json(): any }, status = 200): Promise<any> {
  expect(res.statusCode, res.body).toBe(status);
  return res.json().data;
}

beforeAll(async () => {
  t = await checkoutApp({ plugins: [taxes] });
  shop = await t.createTenant({ currency: 'PEN' });
  other = await t.createTenant({ currency: 'PEN' });
  admin = caller(t, shop);
  store = caller(t, shop, shop.storefrontToken);
  await ok(await admin('PATCH', '/api/v1/taxes/settings', { prices_include_tax: true, origin_country: 'PE' }));
  await ok(await admin('POST', '/api/v1/taxes/regions', { country_code: 'PE', rates: { standard: 1800 } }), 201);
  await ok(await admin('POST', '/api/v1/taxes/regions', { country_code: 'US', province: 'FL', rates: { standard: 700 } }), 201);
  await ok(await admin('PUT', '/api/v1/currencies', { currencies: [{ code: 'USD', rate: '0.27' }] }));
  await ok(await admin('PUT', '/api/v1/locales', { default_locale: 'es-PE', locales: ['en'] }));
  markets = {};
  for (const market of [
    { handle: 'pe', name: 'Perú', countries: ['PE'], currency: 'PEN', default_locale: 'es-PE', prices_include_tax: true },
    { handle: 'us', name: 'United States', countries: ['US'], currency: 'USD', default_locale: 'en', prices_include_tax: false },
  ]) markets[market.handle] = await ok(await admin('POST', '/api/v1/markets', market), 201);
  // Another store with a market of its own, named as no market of this store is.
  const otherAdmin = caller(t, other);
  await ok(await otherAdmin('PUT', '/api/v1/currencies', { currencies: [{ code: 'USD', rate: '0.3' }] }));
  await ok(await otherAdmin('POST', '/api/v1/markets', { handle: 'mx', name: 'México', countries: ['MX'], currency: 'USD', default_locale: 'en' }), 201);
  // S/ 118.00, IGV included: S/ 18.00 of it is tax. In dollars: 11800 × 0.27 = 3186 cents.
  poncho = await createProduct(admin, { title: 'Poncho', variants: [{ title: 'Alpaca', price: 11_800 }] });
});
afterAll(async () => t?.close());

describe('a cart in a market', () => {
  it('of the us market is in dollars, its lines derived from the soles price, its tax added as the market says', async () => {
    const cart = await ok(await store('POST', CARTS, { market: 'us' }), 201);
    expect(cart).toMatchObject({ currency: 'USD', market_id: markets.us.id, prices_include_tax: false, total: 0 });
    const added = await ok(await store('POST', `${CARTS}/${cart.id}/items`, { variant_id: poncho.variants[0].id, quantity: 2 }), 201);
    // Taxed where the store sells from (Peru, 18 %) until the address is known, added on top: 6372 × 18 % = 1146.96.
    expect(added).toMatchObject({ currency: 'USD', market_id: markets.us.id, subtotal: 6372, tax_total: 1147, prices_include_tax: false, total: 7519 });
    expect(added.line_items[0]).toMatchObject({ unit_price: 3186, subtotal: 6372 });
    // A read prices it the same way (the market found among the store's by the cart's market_id).
    expect(await ok(await store('GET', `${CARTS}/${cart.id}`))).toMatchObject({ subtotal: 6372, tax_total: 1147, prices_include_tax: false, total: 7519 });
    const gql = await t.request({
      method: 'POST', url: '/graphql', headers: shop.headers(shop.storefrontToken),
      payload: { query: 'query($id: ID!) { cart(id: $id) { currency marketId pricesIncludeTax total } }', variables: { id: cart.id } },
    });
    expect(gql.json().data.cart).toEqual({ currency: 'USD', marketId: markets.us.id, pricesIncludeTax: false, total: 7519 });
  });

  it('prices a variant at its explicit dollar price over the derived one; a derived price follows a new rate', async () => {
    const chullo = await createProduct(admin, { title: 'Chullo', variants: [{ title: 'Red', price: 5000, prices: [{ currency: 'USD', amount: 1500 }] }] });
    const cart = await ok(await store('POST', CARTS, { market: 'us' }), 201);
    await ok(await store('POST', `${CARTS}/${cart.id}/items`, { variant_id: chullo.variants[0].id, quantity: 1 }), 201);
    const both = await ok(await store('POST', `${CARTS}/${cart.id}/items`, { variant_id: poncho.variants[0].id, quantity: 1 }), 201);
    // 1500 as set (derived it would be 1350), 3186 derived; tax added: 270 + 573.48.
    expect(both.line_items.map((l: { unit_price: number }) => l.unit_price)).toEqual([1500, 3186]);
    expect(both).toMatchObject({ subtotal: 4686, tax_total: 843, total: 5529 });
    try {
      await ok(await admin('PUT', '/api/v1/currencies', { currencies: [{ code: 'USD', rate: '0.3' }] }));
      expect((await ok(await store('GET', `${CARTS}/${cart.id}`))).line_items.map((l: { unit_price: number }) => l.unit_price)).toEqual([1500, 3540]);
    } finally {
      await ok(await admin('PUT', '/api/v1/currencies', { currencies: [{ code: 'USD', rate: '0.27' }] }));
    }
  });

  it('refuses a variant with no price in the cart’s currency (422 CURRENCY_MISMATCH): a currency without a rate sells what is priced in it', async () => {
    try {
      await ok(await admin('PUT', '/api/v1/currencies', { currencies: [{ code: 'USD', rate: '0.27' }, { code: 'EUR', rate: null }] }));
      const beret = await createProduct(admin, { title: 'Beret', variants: [{ title: 'Blue', price: 4000, prices: [{ currency: 'EUR', amount: 1100 }] }] });
      const cart = await ok(await store('POST', CARTS, { currency: 'EUR' }), 201);
      const refused = await store('POST', `${CARTS}/${cart.id}/items`, { variant_id: poncho.variants[0].id, quantity: 1 });
      expect(refused.statusCode).toBe(422);
      expect(refused.json().error).toMatchObject({ code: 'CURRENCY_MISMATCH', details: [{ path: 'body.variant_id', currency: 'EUR' }] });
      const added = await ok(await store('POST', `${CARTS}/${cart.id}/items`, { variant_id: beret.variants[0].id, quantity: 2 }), 201);
      expect(added).toMatchObject({ currency: 'EUR', subtotal: 2200, line_items: [{ variant_id: beret.variants[0].id, unit_price: 1100 }] });
    } finally {
      await ok(await admin('PUT', '/api/v1/currencies', { currencies: [{ code: 'USD', rate: '0.27' }] }));
    }
  });

  it('of the pe market is in soles with the tax included; X-Market and ?market= name it too', async () => {
    const byHeader = await t.request({ method: 'POST', url: CARTS, headers: { ...shop.headers(shop.storefrontToken), 'x-market': 'pe' }, payload: {} });
    const cart = await ok(byHeader, 201);
    expect(cart).toMatchObject({ currency: 'PEN', market_id: markets.pe.id, prices_include_tax: true });
    const added = await ok(await store('POST', `${CARTS}/${cart.id}/items`, { variant_id: poncho.variants[0].id, quantity: 1 }), 201);
    expect(added).toMatchObject({ subtotal: 11_800, tax_total: 1800, prices_include_tax: true, total: 11_800 });
    expect(added.line_items[0].unit_price).toBe(11_800);
    expect(await ok(await store('POST', `${CARTS}?market=us`, {}), 201)).toMatchObject({ currency: 'USD', market_id: markets.us.id });
    // The body's market wins over the header's.
    const both = await t.request({ method: 'POST', url: CARTS, headers: { ...shop.headers(shop.storefrontToken), 'x-market': 'pe' }, payload: { market: 'us' } });
    expect(await ok(both, 201)).toMatchObject({ currency: 'USD', market_id: markets.us.id });
  });

  it('without a market: the currency sent (one the store sells in) with the store’s tax setting, else the default', async () => {
    const dollars = await ok(await store('POST', CARTS, { currency: 'USD' }), 201);
    expect(dollars).toMatchObject({ currency: 'USD', market_id: null, prices_include_tax: true });
    const added = await ok(await store('POST', `${CARTS}/${dollars.id}/items`, { variant_id: poncho.variants[0].id, quantity: 1 }), 201);
    // The store's setting: the tax is in the price (3186 × 18 / 118 = 486).
    expect(added).toMatchObject({ subtotal: 3186, tax_total: 486, prices_include_tax: true, total: 3186 });
    expect(await ok(await store('POST', CARTS, {}), 201)).toMatchObject({ currency: 'PEN', market_id: null, prices_include_tax: true });
  });

  it('refuses an unknown market, a currency the store does not sell in and one other than the market’s (422)', async () => {
    const unknown = await store('POST', CARTS, { market: 'br' });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().error).toMatchObject({ code: 'MARKET_NOT_FOUND', details: [{ path: 'body.market', market: 'br', markets: ['pe', 'us'] }] });
    const header = await t.request({ method: 'POST', url: CARTS, headers: { ...shop.headers(shop.storefrontToken), 'x-market': 'zz' }, payload: {} });
    expect(header.json().error).toMatchObject({ code: 'MARKET_NOT_FOUND', details: [{ path: 'headers.x-market' }] });
    const query = await store('POST', `${CARTS}?market=zz`, {});
    expect(query.json().error).toMatchObject({ code: 'MARKET_NOT_FOUND', details: [{ path: 'querystring.market' }] });
    const unlisted = await store('POST', CARTS, { currency: 'EUR' });
    expect(unlisted.statusCode).toBe(422);
    expect(unlisted.json().error).toMatchObject({ code: 'CURRENCY_NOT_LISTED', details: [{ path: 'body.currency', currencies: ['PEN', 'USD'] }] });
    const notTheMarkets = await store('POST', CARTS, { market: 'us', currency: 'PEN' });
    expect(notTheMarkets.json().error).toMatchObject({ code: 'CURRENCY_NOT_LISTED', details: [{ path: 'body.currency', currencies: ['USD'] }] });
  });

  it('cannot be made in another store’s market, nor seen by another store', async () => {
    const foreign = await store('POST', CARTS, { market: 'mx' });
    expect(foreign.statusCode).toBe(422);
    expect(foreign.json().error).toMatchObject({ code: 'MARKET_NOT_FOUND', details: [{ market: 'mx', markets: ['pe', 'us'] }] });
    // The other store's own market works there, and this store's markets do not.
    const theirs = caller(t, other, other.storefrontToken);
    expect(await ok(await theirs('POST', CARTS, { market: 'mx' }), 201)).toMatchObject({ currency: 'USD' });
    expect((await theirs('POST', CARTS, { market: 'us' })).json().error.code).toBe('MARKET_NOT_FOUND');
    const mine = await ok(await store('POST', CARTS, { market: 'us' }), 201);
    expect((await theirs('GET', `${CARTS}/${mine.id}`)).json().error.code).toBe('CART_NOT_FOUND');
  });

  it('costs no statement more to make in a market (the markets come with the storefront key)', async () => {
    await store('GET', `${CARTS}/00000000-0000-4000-8000-000000000001`);
    const { result, count, statements } = await t.countQueries(() => store('POST', CARTS, { market: 'us' }));
    expect(result.statusCode, result.body).toBe(201);
    expect(count, statements.join('\n')).toBeLessThanOrEqual(5);
  });
});

describe('the checkout of a cart in a market', () => {
  async function usCheckout() {
    const cart = await ok(await store('POST', CARTS, { market: 'us' }), 201);
    await ok(await store('POST', `${CARTS}/${cart.id}/items`, { variant_id: poncho.variants[0].id, quantity: 1 }), 201);
    return ok(await store('POST', CHECKOUTS, { cart_id: cart.id, email: 'ana@example.com' }), 201);
  }

  it('keeps the cart’s currency and market, ships only to the market’s countries, and places the order in dollars', async () => {
    const checkout = await usCheckout();
    expect(checkout).toMatchObject({ currency: 'USD', market_id: markets.us.id, subtotal: 3186, tax_total: 573, prices_include_tax: false, total: 3759 });
    const outside = await store('PUT', `${CHECKOUTS}/${checkout.id}/shipping`, { shipping_address: ADDRESS, shipping_rate: RATE });
    expect(outside.statusCode).toBe(422);
    expect(outside.json().error).toMatchObject({
      code: 'COUNTRY_NOT_IN_MARKET',
      details: [{ path: 'body.shipping_address.country_code', country_code: 'PE', market: 'us', countries: ['US'] }],
    });
    // Nothing changed: no address, no order.
    expect(await ok(await store('GET', `${CHECKOUTS}/${checkout.id}`))).toMatchObject({ status: 'pending', shipping_address: null, order_id: null });

    const placed = await ok(await store('PUT', `${CHECKOUTS}/${checkout.id}/shipping`, { shipping_address: US_ADDRESS, shipping_rate: RATE }));
    // Florida's 7 % added on the dollar price.
    expect(placed).toMatchObject({ status: 'payment_pending', currency: 'USD', market_id: markets.us.id, subtotal: 3186, tax_total: 223, prices_include_tax: false, total: 3409 });
    const order = await ok(await admin('GET', `/api/v1/orders/${placed.order_id}`));
    expect(order).toMatchObject({ currency: 'USD', subtotal: 3186, tax_total: 223, prices_include_tax: false, total: 3409 });
  });

  it('of a market deleted since keeps its currency and tax mode, and ships anywhere', async () => {
    const ca = await ok(await admin('POST', '/api/v1/markets', { handle: 'ca', name: 'Canada', countries: ['CA'], currency: 'USD', default_locale: 'en', prices_include_tax: false }), 201);
    const cart = await ok(await store('POST', CARTS, { market: 'ca' }), 201);
    await ok(await store('POST', `${CARTS}/${cart.id}/items`, { variant_id: poncho.variants[0].id, quantity: 1 }), 201);
    expect((await admin('DELETE', `/api/v1/markets/${ca.id}`)).statusCode).toBe(204);
    expect(await ok(await store('GET', `${CARTS}/${cart.id}`))).toMatchObject({ currency: 'USD', market_id: ca.id, subtotal: 3186, tax_total: 573, prices_include_tax: false, total: 3759 });
    const checkout = await ok(await store('POST', CHECKOUTS, { cart_id: cart.id, email: 'ana@example.com' }), 201);
    expect(checkout).toMatchObject({ currency: 'USD', market_id: ca.id, prices_include_tax: false, total: 3759 });
    const set = await ok(await store('PUT', `${CHECKOUTS}/${checkout.id}/shipping`, { shipping_address: ADDRESS }));
    expect(set).toMatchObject({ status: 'shipping_set', prices_include_tax: false, tax_total: 573, total: 3759 });
  });
});

describe('a market whose prices include tax, in a store whose prices exclude it', () => {
  // The store adds IGV (18 %) to its prices; its market `gross` shows them with the IGV in: the
  // rate table is asked in the market's mode and answers in it (decision 0110).
  let gross: Caller;
  let grossStore: Caller;
  let chompa: { id: string; variants: Array<{ id: string }> };

  beforeAll(async () => {
    const tenant = await t.createTenant({ currency: 'PEN' });
    gross = caller(t, tenant);
    grossStore = caller(t, tenant, tenant.storefrontToken);
    await ok(await gross('PATCH', '/api/v1/taxes/settings', { prices_include_tax: false, origin_country: 'PE', tax_shipping: true }));
    await ok(await gross('POST', '/api/v1/taxes/regions', { country_code: 'PE', rates: { standard: 1800 } }), 201);
    await ok(await gross('PUT', '/api/v1/locales', { default_locale: 'es-PE', locales: [] }));
    await ok(await gross('POST', '/api/v1/markets', { handle: 'gross', name: 'Perú', countries: ['PE'], currency: 'PEN', default_locale: 'es-PE', prices_include_tax: true }), 201);
    chompa = await createProduct(gross, { title: 'Chompa', variants: [{ title: 'Beige', price: 11_800 }] });
  });

  it('quotes the tax out of the prices through the placed order, and added to them in no market', async () => {
    const cart = await ok(await grossStore('POST', CARTS, { market: 'gross' }), 201);
    const added = await ok(await grossStore('POST', `${CARTS}/${cart.id}/items`, { variant_id: chompa.variants[0].id, quantity: 2 }), 201);
    // 23600 × 18 / 118 = 3600 held in the price.
    expect(added).toMatchObject({ prices_include_tax: true, subtotal: 23_600, tax_total: 3600, total: 23_600 });

    const checkout = await ok(await grossStore('POST', CHECKOUTS, { cart_id: cart.id, email: 'ana@example.com' }), 201);
    expect(checkout).toMatchObject({ prices_include_tax: true, tax_total: 3600, total: 23_600 });
    expect(checkout.line_items[0]).toMatchObject({ tax_rate: 1800, tax_amount: 3600 });
    const placed = await ok(await grossStore('PUT', `${CHECKOUTS}/${checkout.id}/shipping`, { shipping_address: ADDRESS, shipping_rate: { ...RATE, price: 1500 } }));
    // The shipping's 15.00 holds 1500 × 18 / 118 = 228.8: 229.
    expect(placed).toMatchObject({ status: 'payment_pending', prices_include_tax: true, subtotal: 23_600, shipping_total: 1500, shipping_tax: 229, tax_total: 3829, total: 25_100 });
    const order = await ok(await gross('GET', `/api/v1/orders/${placed.order_id}`));
    expect(order).toMatchObject({ prices_include_tax: true, subtotal: 23_600, shipping_tax: 229, tax_total: 3829, total: 25_100 });
    expect(order.line_items[0]).toMatchObject({ tax_rate: 1800, tax_amount: 3600 });

    // No market: the store's own setting, IGV added (23600 × 18 % = 4248).
    const plain = await ok(await grossStore('POST', CARTS, {}), 201);
    expect(await ok(await grossStore('POST', `${CARTS}/${plain.id}/items`, { variant_id: chompa.variants[0].id, quantity: 2 }), 201))
      .toMatchObject({ market_id: null, prices_include_tax: false, subtotal: 23_600, tax_total: 4248, total: 27_848 });
  });
});
