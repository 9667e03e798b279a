import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { caller, cartWith, CHECKOUTS, checkoutTo, ok, ORDERS, product, sumOfTaxes, TAXES, taxesApp, type Caller } from './helpers.js';

// A US store: sales tax by state, added on top of its prices (the default outside PEN).
let t: TestApp;
let shop: TestTenant;
let admin: Caller;
let store: Caller;

beforeAll(async () => {
  t = await taxesApp();
  shop = await t.createTenant({ currency: 'USD' });
  admin = caller(t, shop);
  store = caller(t, shop, shop.storefrontToken);
  await ok(await admin('PATCH', `${TAXES}/settings`, { origin_country: 'US', origin_province: 'ca', tax_shipping: false }));
  await ok(await admin('POST', `${TAXES}/regions`, { name: 'California', country_code: 'US', province: 'CA', rates: { standard: 725, reduced: 100 } }), 201);
  await ok(await admin('POST', `${TAXES}/regions`, { name: 'New York', country_code: 'US', province: 'NY', rates: { standard: 400 } }), 201);
});
afterAll(async () => t.close());

describe('a US store with two states, prices without tax', () => {
  it("adds each state's rate to the total, estimated in the cart from the store's own state", async () => {
    const boots = await product(admin, [10000]);
    const cart = await cartWith(store, [[boots.variants[0], 1]]);
    expect(cart).toMatchObject({ subtotal: 10000, tax_total: 725, prices_include_tax: false, total: 10725 });

    const toCalifornia = await checkoutTo(store, cart.id, 'US', 'CA', 1500);
    expect(toCalifornia).toMatchObject({ subtotal: 10000, shipping_total: 1500, shipping_tax: 0, tax_total: 725, prices_include_tax: false, total: 12225 });
    const toNewYork = await checkoutTo(store, (await cartWith(store, [[boots.variants[0], 1]])).id, 'US', 'ny', 1500);
    expect(toNewYork).toMatchObject({ tax_total: 400, total: 11900 });
    expect(toNewYork.line_items[0]).toMatchObject({ tax_rate: 400, tax_amount: 400 });
    // A state without a region: no tax.
    const toTexas = await checkoutTo(store, (await cartWith(store, [[boots.variants[0], 1]])).id, 'US', 'TX', 1500);
    expect(toTexas).toMatchObject({ tax_total: 0, total: 11500 });

    // The order is due its total, tax included: payments must cover it (decision 0028).
    const order = await ok(await admin('GET', `${ORDERS}/${toNewYork.order_id}`));
    expect(order).toMatchObject({ tax_total: 400, prices_include_tax: false, total: 11900, amount_due: 11900 });
    expect(order.line_items[0]).toMatchObject({ tax_rate: 400, tax_amount: 400 });
  });

  it('a checkout follows its address: before it, the store state; after it, the state it ships to', async () => {
    const hat = await product(admin, [2000]);
    const cart = await cartWith(store, [[hat.variants[0], 1]]);
    const made = await ok(await store('POST', CHECKOUTS, { cart_id: cart.id, email: 'rosa@example.com' }), 201);
    expect(made).toMatchObject({ tax_total: 145, total: 2145 });
    const ny = { first_name: 'Rosa', last_name: 'Q', address1: '1 Main St', city: 'Albany', province: 'NY', country_code: 'US', zip: '12207', phone: '+15185550100' };
    const set = await ok(await store('PUT', `${CHECKOUTS}/${made.id}/shipping`, { shipping_address: ny }));
    expect(set).toMatchObject({ status: 'shipping_set', tax_total: 80, total: 2080 });
    expect(await ok(await store('GET', `${CHECKOUTS}/${made.id}`))).toMatchObject({ tax_total: 80, total: 2080 });
  });

  it('exempts a variant the catalog marks not taxable, and one put in the exempt class', async () => {
    const food = await product(admin, [5000], { taxable: false });
    const book = await product(admin, [3000, 3000]);
    await ok(await admin('PUT', `${TAXES}/classes/exempt/products`, { variant_ids: [book.variants[0]] }));
    const checkout = await checkoutTo(store, (await cartWith(store, [[food.variants[0], 1], [book.variants[0], 1], [book.variants[1], 1]])).id, 'US', 'CA');
    const [f, b1, b2] = checkout.line_items;
    expect(f).toMatchObject({ taxable: false, tax_class: 'exempt', tax_rate: 0, tax_amount: 0 });
    expect(b1).toMatchObject({ tax_class: 'exempt', tax_rate: 0, tax_amount: 0 });
    expect(b2).toMatchObject({ tax_class: 'standard', tax_rate: 725, tax_amount: 218 }); // 3000 × 7.25 % = 217.5 → 218
    expect(checkout).toMatchObject({ subtotal: 11000, tax_total: 218, total: 11218 });
  });

  it("taxes a product's class at the region's rate for it, and a variant's own class first", async () => {
    const seeds = await product(admin, [4000, 4000]);
    await ok(await admin('PUT', `${TAXES}/classes/reduced/products`, { product_ids: [seeds.id] }));
    await ok(await admin('PUT', `${TAXES}/classes/standard/products`, { variant_ids: [seeds.variants[1]] }));
    const checkout = await checkoutTo(store, (await cartWith(store, [[seeds.variants[0], 1], [seeds.variants[1], 1]])).id, 'US', 'CA');
    expect(checkout.line_items[0]).toMatchObject({ tax_class: 'reduced', tax_rate: 100, tax_amount: 40 });
    expect(checkout.line_items[1]).toMatchObject({ tax_class: 'standard', tax_rate: 725, tax_amount: 290 });
    // New York has no reduced rate: the class pays its standard rate there.
    const ny = await checkoutTo(store, (await cartWith(store, [[seeds.variants[0], 1]])).id, 'US', 'NY');
    expect(ny.line_items[0]).toMatchObject({ tax_class: 'reduced', tax_rate: 400, tax_amount: 160 });
  });

  it('takes coupons and volume discounts off before tax', async () => {
    const coat = await product(admin, [10000]);
    const coupon = await ok(await admin('POST', '/api/v1/discounts/coupons', { code: 'TENOFF', type: 'percentage', value: 1000 }), 201);
    expect(coupon.code).toBe('TENOFF');
    await ok(await admin('POST', '/api/v1/discounts/volume', { product_id: coat.id, min_quantity: 2, value: 500 }), 201);
    const cart = await cartWith(store, [[coat.variants[0], 2]]);
    const withCoupon = await ok(await store('POST', `${CARTS_OF(cart.id)}/coupon`, { code: 'TENOFF' }));
    // 20000 − 1000 volume − 1900 coupon = 17100, taxed at 7.25 % = 1239.75 → 1240.
    expect(withCoupon).toMatchObject({ subtotal: 20000, discount_total: 2900, tax_total: 1240, total: 18340 });
    const checkout = await checkoutTo(store, cart.id, 'US', 'CA', 1000);
    expect(checkout).toMatchObject({ discount_total: 2900, tax_total: 1240, total: 17100 + 1000 + 1240 });
    expect(checkout.line_items[0]).toMatchObject({ volume_discount: 1000, discount_amount: 2900, tax_amount: 1240 });
    const order = await ok(await admin('GET', `${ORDERS}/${checkout.order_id}`));
    expect(order).toMatchObject({ discount_total: 2900, tax_total: 1240, total: 19340 });
    expect(order.line_items[0]).toMatchObject({ discount_amount: 2900, tax_amount: 1240 });
  });

  it('rounds each line to the cent, so that many lines add up to tax_total exactly', async () => {
    // Each of these carries 0.48 of a cent of tax below the rounding point: 48, 448, 848, ...
    const prices = Array.from({ length: 12 }, (_, n) => 48 + 400 * n);
    const many = await product(admin, prices);
    const checkout = await checkoutTo(store, (await cartWith(store, many.variants.map((v) => [v, 1] as [string, number]))).id, 'US', 'CA');
    const expected = prices.map((p) => Math.round((p * 725) / 10000));
    expect(checkout.line_items.map((l: { tax_amount: number }) => l.tax_amount)).toEqual(expected);
    expect(checkout.tax_total).toBe(expected.reduce((s, x) => s + x, 0));
    expect(checkout.tax_total).toBe(sumOfTaxes(checkout));
    // Per line is not the same as rounding the sum: the rule is what makes lines and total agree.
    expect(Math.round((checkout.subtotal * 725) / 10000) - checkout.tax_total).toBe(6);
    const order = await ok(await admin('GET', `${ORDERS}/${checkout.order_id}`));
    expect(order.line_items.reduce((s: number, l: { tax_amount: number }) => s + l.tax_amount, 0)).toBe(order.tax_total);
    expect(order.total).toBe(checkout.total);
  });

  it('taxes an order made through the orders API by its shipping address too', async () => {
    const scarf = await product(admin, [5000]);
    const order = await ok(
      await admin('POST', ORDERS, {
        customer_email: 'ana@example.com',
        line_items: [{ variant_id: scarf.variants[0], quantity: 2 }],
        shipping_address: { first_name: 'Ana', last_name: 'L', address1: '1 Main St', city: 'Albany', country_code: 'US', province: 'NY', zip: '12207' },
      }),
      201,
    );
    expect(order).toMatchObject({ subtotal: 10000, tax_total: 400, total: 10400 });
  });
});

const CARTS_OF = (id: string) => `/api/v1/checkout/carts/${id}`;
