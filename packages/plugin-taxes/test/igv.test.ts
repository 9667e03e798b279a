import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { address, caller, cartWith, CARTS, CHECKOUTS, checkoutTo, ok, ORDERS, product, sumOfTaxes, TAXES, taxesApp, type Caller } from './helpers.js';

// A Peruvian store: IGV 18 %, shown inside its prices (the default for PEN stores).
let t: TestApp;
let shop: TestTenant;
let admin: Caller;
let store: Caller;

beforeAll(async () => {
  t = await taxesApp();
  shop = await t.createTenant({ currency: 'PEN' });
  admin = caller(t, shop);
  store = caller(t, shop, shop.storefrontToken);
  const settings = await ok(await admin('PATCH', `${TAXES}/settings`, { origin_country: 'pe' }));
  expect(settings).toMatchObject({ prices_include_tax: true, prices_include_tax_default: true, tax_shipping: true, origin_country: 'PE' });
  await ok(await admin('POST', `${TAXES}/regions`, { name: 'Perú', country_code: 'PE', rates: { standard: 1800 } }), 201);
});
afterAll(async () => t.close());

describe('a PEN store with IGV 18 % included in its prices', () => {
  it('shows 18.00 of tax inside a 118.00 item, in the cart, the checkout and the order', async () => {
    const poncho = await product(admin, [11800]);
    const cart = await cartWith(store, [[poncho.variants[0], 1]]);
    expect(cart).toMatchObject({ subtotal: 11800, tax_total: 1800, prices_include_tax: true, total: 11800 });
    // A read prices (and taxes) the same without writing.
    expect(await ok(await store('GET', `${CARTS}/${cart.id}`))).toMatchObject({ tax_total: 1800, total: 11800 });

    const made = await ok(await store('POST', CHECKOUTS, { cart_id: cart.id, email: 'rosa@example.com' }), 201);
    expect(made).toMatchObject({ subtotal: 11800, tax_total: 1800, shipping_tax: 0, prices_include_tax: true, total: 11800 });
    expect(made.line_items[0]).toMatchObject({ tax_class: 'standard', tax_rate: 1800, tax_amount: 1800, discount_amount: 0 });

    const to = address('PE', 'Cusco');
    const checkout = await ok(await store('PUT', `${CHECKOUTS}/${made.id}/shipping`, { shipping_address: to, shipping_rate: { carrier: 'Olva', service: 'Express', price: 0 } }));
    expect(checkout).toMatchObject({ status: 'payment_pending', subtotal: 11800, tax_total: 1800, total: 11800 });
    const order = await ok(await admin('GET', `${ORDERS}/${checkout.order_id}`));
    expect(order).toMatchObject({ subtotal: 11800, tax_total: 1800, shipping_tax: 0, prices_include_tax: true, total: 11800, amount_due: 11800 });
    expect(order.line_items[0]).toMatchObject({ unit_price_amount: 11800, tax_class: 'standard', tax_rate: 1800, tax_amount: 1800 });
  });

  it('taxes shipping inside its price, or not at all when the store says so', async () => {
    const poncho = await product(admin, [11800]);
    const taxed = await checkoutTo(store, (await cartWith(store, [[poncho.variants[0], 1]])).id, 'PE', 'Lima', 1180);
    // 1180 of shipping holds 180 of IGV; the total is what the prices say.
    expect(taxed).toMatchObject({ shipping_total: 1180, shipping_tax: 180, tax_total: 1980, total: 12980 });
    expect(taxed.tax_total).toBe(sumOfTaxes(taxed));

    await ok(await admin('PATCH', `${TAXES}/settings`, { tax_shipping: false }));
    try {
      const untaxed = await checkoutTo(store, (await cartWith(store, [[poncho.variants[0], 1]])).id, 'PE', 'Lima', 1180);
      expect(untaxed).toMatchObject({ shipping_total: 1180, shipping_tax: 0, tax_total: 1800, total: 12980 });
      const order = await ok(await admin('GET', `${ORDERS}/${untaxed.order_id}`));
      expect(order).toMatchObject({ shipping_tax: 0, tax_total: 1800, total: 12980 });
    } finally {
      await ok(await admin('PATCH', `${TAXES}/settings`, { tax_shipping: true }));
    }
  });

  it('charges nothing where the store has no rate, and the order says so', async () => {
    const poncho = await product(admin, [11800]);
    const abroad = await checkoutTo(store, (await cartWith(store, [[poncho.variants[0], 1]])).id, 'CL', 'Santiago');
    expect(abroad).toMatchObject({ tax_total: 0, total: 11800 });
    expect(abroad.line_items[0]).toMatchObject({ tax_rate: 0, tax_amount: 0 });
  });
});
