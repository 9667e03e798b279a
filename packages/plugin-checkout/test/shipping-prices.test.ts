import type { TestApp, TestTenant } from '@qhatu/core/testing';
import shipping from '@qhatu/plugin-shipping';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addItem, ADDRESS, caller, CHECKOUTS, checkoutApp, createCart, createProduct, customerToken, type Caller } from './helpers.js';

// The shipping step charges the store's price for the carrier and service chosen, whatever price
// the client sends (the shipping plugin's ShippingPrices); a store without rates keeps the
// specification's client-priced step.
let t: TestApp;
let shop: TestTenant;
let bare: TestTenant;
beforeAll(async () => {
  t = await checkoutApp({ plugins: [shipping] });
  shop = await t.createTenant({ currency: 'PEN' });
  bare = await t.createTenant({ currency: 'PEN' });
  const rate = { carrier: 'olva', service_name: 'Olva Estándar', service_code: 'standard', currency: 'PEN', estimated_days: 3, origin_country: 'PE', destination_country: 'PE' };
  for (const [weight, amount] of [[5000, 1500], [20_000, 3000]]) {
    const res = await caller(t, shop)('POST', '/shipping/rates', { ...rate, weight_g: weight, amount });
    expect(res.statusCode, res.body).toBe(201);
  }
});
afterAll(async () => t?.close());

/** A checkout of `quantity` units of a new 2000 product weighing `grams` each, made by `api`. */
async function checkoutOf(tenant: TestTenant, api: Caller, grams = 1000, quantity = 2) {
  const product = await createProduct(caller(t, tenant), { variants: [{ title: 'One', price: 2000, weight_grams: grams }] });
  const cart = await createCart(api);
  await addItem(api, cart.id, product.variants[0].id, quantity);
  const res = await api('POST', CHECKOUTS, { cart_id: cart.id, email: 'rosa@example.com' });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string };
}

const ordersOf = async (tenant: TestTenant) => (await caller(t, tenant)('GET', '/api/v1/orders?limit=100')).json().data as Array<{ id: string }>;

describe('a store with shipping rates', () => {
  it("charges a customer the rate table's 1500 when the client sends 1, and the answer shows it", async () => {
    const { token } = await customerToken(t, shop);
    const shopper = caller(t, shop, token);
    const checkout = await checkoutOf(shop, shopper);
    const res = await shopper('PUT', `${CHECKOUTS}/${checkout.id}/shipping`, { shipping_address: ADDRESS, shipping_rate: { carrier: 'olva', service: 'standard', price: 1 } });
    expect(res.statusCode, res.body).toBe(200);
    const placed = res.json().data;
    expect(placed).toMatchObject({ status: 'payment_pending', shipping_rate: { carrier: 'olva', service: 'standard', price: 1500 }, shipping_total: 1500, subtotal: 4000, total: 5500 });
    const order = (await caller(t, shop)('GET', `/api/v1/orders/${placed.order_id}`)).json().data;
    expect(order).toMatchObject({ shipping_total: 1500, total: 5500, amount_due: 5500 });
    expect((await shopper('GET', `${CHECKOUTS}/${checkout.id}`)).json().data).toMatchObject({ shipping_total: 1500, total: 5500 });
  });

  it("prices the parcel's weight: 12 kg take the 20 kg bracket, whatever the client sends", async () => {
    const store = caller(t, shop, shop.storefrontToken);
    const checkout = await checkoutOf(shop, store, 3000, 4);
    const res = await store('PUT', `${CHECKOUTS}/${checkout.id}/shipping`, { shipping_address: ADDRESS, shipping_rate: { carrier: 'olva', service: 'standard', price: 1500 } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ shipping_rate: { price: 3000 }, shipping_total: 3000, total: 8000 + 3000 });
  });

  it('reads the price with the checkout, in the round trip that locks it: the step is two round trips', async () => {
    const store = caller(t, shop, shop.storefrontToken);
    // 3 × 2 kg ship (6 kg: the 20 kg bracket); 10 units of 1 kg that do not ship weigh nothing.
    const parcel = await createProduct(caller(t, shop), { variants: [{ title: 'Box', price: 1000, weight_grams: 2000 }] });
    const voucher = await createProduct(caller(t, shop), { variants: [{ title: 'Voucher', price: 100, weight_grams: 1000, requires_shipping: false }] });
    const cart = await createCart(store);
    await addItem(store, cart.id, parcel.variants[0].id, 3);
    await addItem(store, cart.id, voucher.variants[0].id, 10);
    const made = await store('POST', CHECKOUTS, { cart_id: cart.id, email: 'rosa@example.com' });
    expect(made.statusCode, made.body).toBe(201);
    const { result, statements } = await t.countQueries(() =>
      store('PUT', `${CHECKOUTS}/${made.json().data.id}/shipping`, { shipping_address: ADDRESS, shipping_rate: { carrier: 'olva', service: 'standard', price: 1 } }),
    );
    expect(result.statusCode, result.body).toBe(200);
    expect(result.json().data).toMatchObject({ shipping_rate: { price: 3000 }, shipping_total: 3000, total: 3000 + 1000 + 3000 });
    expect(statements, statements.join('\n--\n')).toHaveLength(2);
    expect(statements[0]).toMatch(/for update of c/);
    expect(statements[0]).toMatch(/from shipping_rate/);
    expect(statements[1]).toMatch(/insert into orders_order[\s\S]*; COMMIT$/);
  });

  it('refuses carrier "nobody", service "teleport" at 0 with 422 and places no order; an unknown service of a known carrier too', async () => {
    const store = caller(t, shop, shop.storefrontToken);
    const checkout = await checkoutOf(shop, store);
    const before = (await ordersOf(shop)).length;
    const nobody = await store('PUT', `${CHECKOUTS}/${checkout.id}/shipping`, { shipping_address: ADDRESS, shipping_rate: { carrier: 'nobody', service: 'teleport', price: 0 } });
    expect(nobody.statusCode, nobody.body).toBe(422);
    expect(nobody.json().error).toMatchObject({ code: 'SHIPPING_CARRIER_UNKNOWN', details: [{ path: 'body.shipping_rate.carrier' }] });
    const teleport = await store('PUT', `${CHECKOUTS}/${checkout.id}/shipping`, { shipping_address: ADDRESS, shipping_rate: { carrier: 'olva', service: 'teleport', price: 0 } });
    expect(teleport.statusCode).toBe(422);
    expect(teleport.json().error).toMatchObject({ code: 'SHIPPING_SERVICE_UNKNOWN', details: [{ path: 'body.shipping_rate.service' }] });
    // Nothing written: no order, the checkout still at its step without an address.
    expect(await ordersOf(shop)).toHaveLength(before);
    expect((await store('GET', `${CHECKOUTS}/${checkout.id}`)).json().data).toMatchObject({ status: 'pending', order_id: null, shipping_rate: null, shipping_total: 0, shipping_address: null });
    // The step without a rate is not priced: addresses only.
    const addresses = await store('PUT', `${CHECKOUTS}/${checkout.id}/shipping`, { shipping_address: ADDRESS });
    expect(addresses.json().data).toMatchObject({ status: 'shipping_set', shipping_total: 0 });
  });
});

describe('a store without shipping rates', () => {
  it("keeps the specification's client-priced step: the price sent is charged", async () => {
    const store = caller(t, bare, bare.storefrontToken);
    const checkout = await checkoutOf(bare, store);
    const res = await store('PUT', `${CHECKOUTS}/${checkout.id}/shipping`, { shipping_address: ADDRESS, shipping_rate: { carrier: 'Olva', service: 'Express', price: 700 } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'payment_pending', shipping_rate: { carrier: 'Olva', service: 'Express', price: 700 }, shipping_total: 700, total: 4700 });
  });
});
