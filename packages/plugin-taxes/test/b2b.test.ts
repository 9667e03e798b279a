import { randomInt, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import b2b, { rucCheckDigit } from '@qhatu/plugin-b2b';
import catalog from '@qhatu/plugin-catalog';
import checkout from '@qhatu/plugin-checkout';
import customers from '@qhatu/plugin-customers';
import discounts from '@qhatu/plugin-discounts';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import orders from '@qhatu/plugin-orders';
import taxes from '../src/index.js';
import { address, caller, CARTS, CHECKOUTS, ok, ORDERS, paymentsAnnouncer, product, TAXES, taxesApp, type Caller } from './helpers.js';

// A wholesale buyer's price-list price is a line price like any other: its tax is taken from it.
const B2B = '/api/v1/b2b';
let t: TestApp;
let shop: TestTenant;
let admin: Caller;

beforeAll(async () => {
  t = await taxesApp({ plugins: [taxes, media, catalog, customers, inventory, discounts, orders, checkout, b2b, paymentsAnnouncer] });
  shop = await t.createTenant({ currency: 'PEN' });
  admin = caller(t, shop);
  await ok(await admin('PATCH', `${TAXES}/settings`, { origin_country: 'PE' }));
  await ok(await admin('POST', `${TAXES}/regions`, { country_code: 'PE', rates: { standard: 1800 } }), 201);
});
afterAll(async () => t.close());

describe("a B2B buyer's price list", () => {
  it("taxes the list price, in the cart, the checkout and the order", async () => {
    const poncho = await product(admin, [11800]);
    const list = await ok(await admin('POST', `${B2B}/price-lists`, { name: 'Mayoristas', currency: 'PEN' }), 201);
    await ok(await admin('POST', `${B2B}/price-lists/${list.id}/rules`, { type: 'percentage', value: 50, applies_to: 'all' }), 201);
    const ten = '20' + String(randomInt(0, 100_000_000)).padStart(8, '0');
    const company = await ok(
      await admin('POST', `${B2B}/customers`, { company_name: 'Andes S.A.C.', ruc: ten + rucCheckDigit(ten), email: `compras-${randomUUID().slice(0, 6)}@andes.pe`, phone: '+51 1 555 0101', price_list_id: list.id }),
      201,
    );
    await ok(await admin('PUT', '/api/v1/customers/settings', { registration: 'instant' }));
    const email = `${randomUUID().slice(0, 8)}@example.com`;
    const signed = await ok(await caller(t, shop, shop.storefrontToken)('POST', '/api/v1/auth/customer/register', { email, password: 'correct horse battery', first_name: 'Luis', last_name: 'Huamán' }), 201);
    await ok(await admin('POST', `${B2B}/customers/${company.id}/buyers`, { customer_id: signed.customer.id }), 201);

    const buyer = caller(t, shop, signed.token);
    const cart = await ok(await buyer('POST', CARTS, {}), 201);
    const added = await ok(await buyer('POST', `${CARTS}/${cart.id}/items`, { variant_id: poncho.variants[0], quantity: 1 }), 201);
    // 59.00 at the list's half price holds 9.00 of IGV.
    expect(added).toMatchObject({ subtotal: 5900, tax_total: 900, total: 5900 });
    const made = await ok(await buyer('POST', CHECKOUTS, { cart_id: cart.id, email }), 201);
    const to = address('PE', 'Lima');
    const placed = await ok(await buyer('PUT', `${CHECKOUTS}/${made.id}/shipping`, { shipping_address: to, shipping_rate: { carrier: 'Olva', service: 'Express', price: 0 } }));
    expect(placed).toMatchObject({ status: 'payment_pending', subtotal: 5900, tax_total: 900, total: 5900 });
    const order = await ok(await admin('GET', `${ORDERS}/${placed.order_id}`));
    expect(order).toMatchObject({ total: 5900, tax_total: 900 });
    expect(order.line_items[0]).toMatchObject({ unit_price_amount: 5900, tax_rate: 1800, tax_amount: 900 });
  });
});
