import { TenantContext } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import shipping from '@qhatu/plugin-shipping';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckoutCompletion } from '../src/index.js';
import { ADDRESS, caller, CARTS, CHECKOUTS, checkoutApp, createCoupon, createProduct, createVolumeTier, RATE, type Caller } from './helpers.js';

// The SQL statements (round trips to PostgreSQL) of each step of the way from an empty cart to a
// completed order, with a volume tier and a coupon in play, in a store that prices its shipping
// (the shipping plugin's rate table): the budget the README states. A tenant transaction's BEGIN
// carries the tenant setup and goes out with its first statement, COMMIT is one.
let t: TestApp;
let shop: TestTenant;
let admin: Caller;
let store: Caller;
beforeAll(async () => {
  t = await checkoutApp({ plugins: [shipping] });
  shop = await t.createTenant({ currency: 'PEN' });
  admin = caller(t, shop);
  store = caller(t, shop, shop.storefrontToken);
  const rate = { carrier: RATE.carrier, service_code: RATE.service, service_name: 'Olva Express', currency: 'PEN', amount: RATE.price, estimated_days: 2, weight_g: 30_000, origin_country: 'PE', destination_country: 'PE' };
  expect((await admin('POST', '/shipping/rates', rate)).statusCode).toBe(201);
});
afterAll(async () => t?.close());

/** Runs one step, checks its status and that it stayed within `budget` statements; answers its body. */
async function step(budget: number, status: number, work: () => ReturnType<Caller>) {
  const { result, count, statements } = await t.countQueries(work);
  expect(result.statusCode, result.body).toBe(status);
  expect(count, statements.join('\n')).toBeLessThanOrEqual(budget);
  return { body: result.json().data, count };
}

describe('the cart → checkout → order path, statement by statement', () => {
  it('stays within the stated budget at every step, 32 round trips in all', async () => {
    const scarf = await createProduct(admin, { title: 'Scarf', variants: [{ title: 'Grey', price: 1000 }] });
    const hat = await createProduct(admin, { title: 'Hat', variants: [{ title: 'Red', price: 2500 }] });
    await createVolumeTier(admin, scarf.id, 2, 1000);
    const coupon = await createCoupon(admin, { type: 'percentage', value: 500 });

    // The storefront key is known already (its lookup is cached per process; not part of the path).
    expect((await store('GET', `${CARTS}/00000000-0000-4000-8000-000000000001`)).statusCode).toBe(404);
    const counts: number[] = [];
    const take = async (budget: number, status: number, work: () => ReturnType<Caller>) => {
      const done = await step(budget, status, work);
      counts.push(done.count);
      return done.body;
    };
    const cart = await take(5, 201, () => store('POST', CARTS, {}));
    await take(2, 201, () => store('POST', `${CARTS}/${cart.id}/items`, { variant_id: scarf.variants[0].id, quantity: 1 }));
    await take(2, 201, () => store('POST', `${CARTS}/${cart.id}/items`, { variant_id: hat.variants[0].id, quantity: 1 }));
    await take(2, 200, () => store('PUT', `${CARTS}/${cart.id}/items/${scarf.variants[0].id}`, { quantity: 2 }));
    await take(3, 200, () => store('POST', `${CARTS}/${cart.id}/coupon`, { code: coupon.code }));
    await take(3, 200, () => store('GET', `${CARTS}/${cart.id}`));
    // The cart's lock and read, the coupon's, then the writes with COMMIT (decision 0080).
    const checkout = await take(3, 201, () => store('POST', CHECKOUTS, { cart_id: cart.id, email: 'rosa@example.com' }));
    // The order's number in a transaction of its own in the round trip of BEGIN (decision 0081), which goes out with the
    // checkout locked and read with its catalog facts, the tax of its address, the rate table's price, the customer of its
    // e-mail and how its variants are sold (decisions 0102, 0105, 0106), the coupon judged and its use written, then
    // COMMIT with the order, its lines, the checkout and the outbox's rows in its round trip.
    const placed = await take(7, 200, () => store('PUT', `${CHECKOUTS}/${checkout.id}/shipping`, { shipping_address: ADDRESS, shipping_rate: { ...RATE, price: 1 } }));
    expect(placed).toMatchObject({ status: 'payment_pending', shipping_total: RATE.price });
    await take(3, 200, () => store('GET', `${CHECKOUTS}/${checkout.id}`));

    // Its order paid completes the checkout (the job's work, without HTTP).
    const completion = await t.countQueries(() =>
      TenantContext.run({ tenantId: shop.id }, () => t.app.container.resolve(CheckoutCompletion).orderPaid({ id: placed.order_id, status: 'paid' })),
    );
    expect(completion.count, completion.statements.join('\n')).toBeLessThanOrEqual(5);
    counts.push(completion.count);
    const done = (await store('GET', `${CHECKOUTS}/${checkout.id}`)).json().data;
    expect(done.status).toBe('completed');
    expect(counts.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(32);
  });

  // The reservation takes the inventory's locks (the default warehouse, the variants, their stock
  // records) and writes what it holds and the catalog's inventory_quantity: 9 more round trips.
  it('holds the stock of tracked variants in the shipping step in at most 12 round trips', async () => {
    const scarf = await createProduct(admin, { title: 'Scarf', variants: [{ title: 'Grey', price: 1000 }] });
    const hat = await createProduct(admin, { title: 'Hat', variants: [{ title: 'Red', price: 2500 }] });
    const warehouse = (await admin('POST', '/api/v1/inventory/warehouses', { name: 'Main', code: 'MAIN' })).json().data.id;
    for (const p of [scarf, hat]) await admin('POST', `/api/v1/inventory/warehouses/${warehouse}/stock/adjust`, { variant_id: p.variants[0].id, delta: 5, reason: 'received' });
    const cart = (await store('POST', CARTS, {})).json().data;
    for (const p of [scarf, hat]) await store('POST', `${CARTS}/${cart.id}/items`, { variant_id: p.variants[0].id, quantity: 2 });
    const checkout = (await store('POST', CHECKOUTS, { cart_id: cart.id, email: 'rosa@example.com' })).json().data;
    const placed = await step(12, 200, () => store('PUT', `${CHECKOUTS}/${checkout.id}/shipping`, { shipping_address: ADDRESS, shipping_rate: RATE }));
    expect(placed.body.status).toBe('payment_pending');
  });
});
