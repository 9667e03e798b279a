import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { caller, cartWith, CHECKOUTS, checkoutTo, ok, ORDERS, paymentsAnnouncer, product, TAXES, taxesApp, type Caller } from './helpers.js';
import { LevyDouble, levyPlugin } from './fixtures/levy.js';

// A plugin replaces the rate table with a provider that quotes live, over HTTP.
const KEY = 'levy_test_key';
let double: LevyDouble;
let t: TestApp;
let shop: TestTenant;
let admin: Caller;
let store: Caller;

beforeAll(async () => {
  double = await new LevyDouble(KEY).start();
  t = await taxesApp({ extra: [levyPlugin(double.url, KEY), paymentsAnnouncer] });
  shop = await t.createTenant({ currency: 'USD' });
  admin = caller(t, shop);
  store = caller(t, shop, shop.storefrontToken);
  // The store's own rate table says otherwise: the provider's answer is what counts.
  await ok(await admin('POST', `${TAXES}/regions`, { country_code: 'US', province: 'WA', rates: { standard: 1 } }), 201);
});
afterAll(async () => {
  await t.close();
  await double.stop();
});

describe('a replaced tax calculator', () => {
  it("taxes carts, checkouts and orders by the provider's quotes, asked once per shipping step", async () => {
    const kayak = await product(admin, [40000]);
    const cart = await cartWith(store, [[kayak.variants[0], 1]]);
    // No address yet: the provider is asked and answers nothing.
    expect(cart).toMatchObject({ tax_total: 0, total: 40000 });
    expect(double.requests.at(-1)!.body).toMatchObject({ currency: 'USD', to: null, lines: [{ ref: kayak.variants[0], amount: 40000, quantity: 1, taxable: true }] });

    const made = await ok(await store('POST', CHECKOUTS, { cart_id: cart.id, email: 'rosa@example.com' }), 201);
    const before = double.requests.length;
    const wa = { first_name: 'Rosa', last_name: 'Q', address1: '1 Pike St', city: 'Seattle', province: 'WA', country_code: 'US', zip: '98101', phone: '+12065550100' };
    const placed = await ok(await store('PUT', `${CHECKOUTS}/${made.id}/shipping`, { shipping_address: wa, shipping_rate: { carrier: 'UPS', service: 'Ground', price: 2000 } }));
    // 40000 × 10.25 % = 4100, shipping 2000 × 10.25 % = 205.
    expect(placed).toMatchObject({ status: 'payment_pending', tax_total: 4305, shipping_tax: 205, prices_include_tax: false, total: 46305 });
    expect(placed.line_items[0]).toMatchObject({ tax_class: 'general', tax_rate: 1025, tax_amount: 4100 });
    // The order took the checkout's quote: the provider was asked once for the step, not twice.
    expect(double.requests.length - before).toBe(1);
    expect(double.requests.at(-1)).toMatchObject({ authorization: `Bearer ${KEY}`, body: { to: { country: 'US', region: 'WA' }, shipping: 2000 } });

    const order = await ok(await admin('GET', `${ORDERS}/${placed.order_id}`));
    expect(order).toMatchObject({ tax_total: 4305, shipping_tax: 205, total: 46305, amount_due: 46305 });
    expect(order.line_items[0]).toMatchObject({ tax_class: 'general', tax_rate: 1025, tax_amount: 4100 });
  });

  it('asks the provider for orders made through the orders API', async () => {
    const paddle = await product(admin, [5000]);
    const order = await ok(
      await admin('POST', ORDERS, {
        customer_email: 'ana@example.com',
        line_items: [{ variant_id: paddle.variants[0], quantity: 2 }],
        shipping_address: { first_name: 'Ana', last_name: 'L', address1: '1 Pike St', city: 'Seattle', country_code: 'US', province: 'WA', zip: '98101' },
      }),
      201,
    );
    expect(order).toMatchObject({ subtotal: 10000, tax_total: 1025, total: 11025 });
    const elsewhere = await checkoutTo(store, (await cartWith(store, [[paddle.variants[0], 1]])).id, 'US', 'OR');
    expect(elsewhere).toMatchObject({ tax_total: 0, total: 5000 });
  });

  it('refuses the step with 503 TAX_UNAVAILABLE when the provider is down, changing nothing', async () => {
    const tent = await product(admin, [9000]);
    const cart = await cartWith(store, [[tent.variants[0], 1]]);
    const made = await ok(await store('POST', CHECKOUTS, { cart_id: cart.id, email: 'rosa@example.com' }), 201);
    const down = { first_name: 'Rosa', last_name: 'Q', address1: '1 Main St', city: 'Nowhere', province: 'Outage', country_code: 'US', zip: '00000', phone: '+12065550100' };
    const res = await store('PUT', `${CHECKOUTS}/${made.id}/shipping`, { shipping_address: down, shipping_rate: { carrier: 'UPS', service: 'Ground', price: 0 } });
    expect(res.statusCode).toBe(503);
    expect(res.json().error.code).toBe('TAX_UNAVAILABLE');
    expect(await ok(await store('GET', `${CHECKOUTS}/${made.id}`))).toMatchObject({ status: 'pending', order_id: null, shipping_address: null });
  });
});

// The store adds tax to its prices (a USD store's default); its market `gross` shows them with the
// tax in (decision 0110). 40000 and a 2000 shipping to Washington hold 40000 × 1025 / 11025 =
// 3718.8 and 185.9 of tax: Levy rounds that down (3718, 185), the rate table half up (3719, 186).
async function grossMarket(on: TestApp, tenant: TestTenant): Promise<void> {
  const admin = caller(on, tenant);
  const locales = await ok(await admin('GET', '/api/v1/locales'));
  await ok(await admin('POST', '/api/v1/markets', { handle: 'gross', name: 'Washington, tax in', countries: ['US'], currency: 'USD', default_locale: locales.default_locale, prices_include_tax: true }), 201);
}

describe("a market's tax mode told to the provider", () => {
  beforeAll(async () => grossMarket(t, shop));

  it("asks in the market's mode and keeps the provider's own answer, through the order", async () => {
    const kayak = await product(admin, [40000]);
    const cart = await cartWith(store, [[kayak.variants[0], 1]], { market: 'gross' });
    expect(cart).toMatchObject({ prices_include_tax: true, tax_total: 0, total: 40000 });
    expect(double.requests.at(-1)!.body).toMatchObject({ prices_include_tax: true, to: null });

    const placed = await checkoutTo(store, cart.id, 'US', 'WA', 2000);
    expect(double.requests.at(-1)!.body).toMatchObject({ prices_include_tax: true, to: { country: 'US', region: 'WA' }, shipping: 2000, lines: [{ amount: 40000 }] });
    // Levy's rounding (down), not the rate worked out again here (half up: 3719 and 186).
    expect(placed).toMatchObject({ status: 'payment_pending', prices_include_tax: true, tax_total: 3718 + 185, shipping_tax: 185, total: 42000 });
    expect(placed.line_items[0]).toMatchObject({ tax_class: 'general', tax_rate: 1025, tax_amount: 3718 });
    const order = await ok(await admin('GET', `${ORDERS}/${placed.order_id}`));
    expect(order).toMatchObject({ prices_include_tax: true, tax_total: 3903, shipping_tax: 185, total: 42000, amount_due: 42000 });
    expect(order.line_items[0]).toMatchObject({ tax_rate: 1025, tax_amount: 3718 });
  });

  it('tells no mode for a cart in no market: the provider adds its tax as before', async () => {
    const kayak = await product(admin, [40000]);
    const cart = await cartWith(store, [[kayak.variants[0], 1]]);
    expect(double.requests.at(-1)!.body).toMatchObject({ prices_include_tax: null });
    const placed = await checkoutTo(store, cart.id, 'US', 'WA', 2000);
    expect(double.requests.at(-1)!.body).toMatchObject({ prices_include_tax: null, to: { region: 'WA' } });
    expect(placed).toMatchObject({ prices_include_tax: false, tax_total: 4100 + 205, shipping_tax: 205, total: 46305 });
  });
});

describe('a provider that ignores the tax mode', () => {
  let legacy: TestApp;
  let legacyShop: TestTenant;

  beforeAll(async () => {
    legacy = await taxesApp({ extra: [levyPlugin(double.url, KEY, { tellsMode: false }), paymentsAnnouncer] });
    legacyShop = await legacy.createTenant({ currency: 'USD' });
    await grossMarket(legacy, legacyShop);
  });
  afterAll(async () => legacy?.close());

  it("has its quote worked out again in the market's mode from the rates it gave", async () => {
    const legacyAdmin = caller(legacy, legacyShop);
    const legacyStore = caller(legacy, legacyShop, legacyShop.storefrontToken);
    const kayak = await product(legacyAdmin, [40000]);
    const cart = await cartWith(legacyStore, [[kayak.variants[0], 1]], { market: 'gross' });
    const placed = await checkoutTo(legacyStore, cart.id, 'US', 'WA', 2000);
    // Told nothing, Levy added 4100 and 205; taken out of the prices at its 10.25 % instead, half up.
    expect(double.requests.at(-1)!.body).not.toHaveProperty('prices_include_tax');
    expect(placed).toMatchObject({ status: 'payment_pending', prices_include_tax: true, tax_total: 3719 + 186, shipping_tax: 186, total: 42000 });
    expect(placed.line_items[0]).toMatchObject({ tax_rate: 1025, tax_amount: 3719 });
    expect(await ok(await legacyAdmin('GET', `${ORDERS}/${placed.order_id}`))).toMatchObject({ prices_include_tax: true, tax_total: 3905, total: 42000 });
  });
});
