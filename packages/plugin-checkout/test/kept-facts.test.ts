import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { answersMatch, createApp, dataOf, Database, loadConfig, type QhatuApp } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import catalog from '@qhatu/plugin-catalog';
import customers from '@qhatu/plugin-customers';
import discounts from '@qhatu/plugin-discounts';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import orders from '@qhatu/plugin-orders';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import checkout from '../src/index.js';
import { CartOut } from '../src/schemas/cart.js';
import { addItem, caller, CARTS, checkoutApp, createCart, createProduct, createVolumeTier, paymentsAnnouncer, type Caller, type ProductOut } from './helpers.js';

/**
 * What a cart's change keeps in memory (its lines at the cart's row version, the catalog's facts and
 * volume tiers at the store's versions: decision 0049), with two API processes on one database as
 * behind a load balancer. Whatever one process changes, the other's next change of a cart prices
 * and counts it exactly, at once: the versions are read in the change's own transaction.
 */
let t: TestApp;
let other: QhatuApp;
let otherDir: string;
let shop: TestTenant;
let admin: Caller;
let store: Caller;
let storeThere: Caller;
let adminThere: Caller;
let scarf: ProductOut;
let hat: ProductOut;

beforeAll(async () => {
  t = await checkoutApp();
  otherDir = await mkdtemp(path.join(tmpdir(), 'qhatu-other-'));
  other = await createApp({
    plugins: [media, catalog, customers, inventory, discounts, orders, checkout, paymentsAnnouncer],
    config: loadConfig({
      DATABASE_URL: t.databaseUrl,
      DATABASE_POOL_MAX: '4',
      QHATU_PLATFORM_TOKEN: t.platformToken,
      QHATU_DATA_DIR: otherDir,
      QHATU_ENV: 'development',
      LOG_LEVEL: 'silent',
    }),
  });
  shop = await t.createTenant({ currency: 'PEN' });
  admin = caller(t, shop);
  store = caller(t, shop, shop.storefrontToken);
  const there = (token: string) => (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    other.http.inject({ method, url, headers: shop.headers(token), payload: payload as never });
  storeThere = there(shop.storefrontToken);
  adminThere = there(shop.adminToken);
  scarf = await createProduct(admin, { title: 'Alpaca scarf', variants: [{ title: 'Grey', price: 8900 }, { title: 'Red', price: 9900 }] });
  hat = await createProduct(admin, { title: 'Chullo', variants: [{ title: 'Blue', price: 4500 }] });
});
afterAll(async () => {
  await other?.close();
  await t?.close();
  if (otherDir) await rm(otherDir, { recursive: true, force: true });
});

/** The statements of `app`'s ORM-free paths while `work` runs. */
async function statementsOf<T>(app: QhatuApp, work: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  const emitter = app.container.resolve(Database).statements;
  const statements: string[] = [];
  const listener = (sql: string) => statements.push(sql);
  emitter.on('statement', listener);
  try {
    return { result: await work(), statements };
  } finally {
    emitter.off('statement', listener);
  }
}

/** Whether a round trip read the cart's lines and facts from the database (the whole read) rather than from memory. */
const readWhole = (statements: string[]) => statements.some((s) => s.includes('json_agg(i order by'));

describe('a cart change with what the process keeps', () => {
  it('sends a change it can work out from memory in one round trip, behind the guard that locks the cart', async () => {
    const cart = await createCart(store);
    await addItem(store, cart.id, scarf.variants[0].id, 1);
    const { result, statements } = await statementsOf(t.app, () => store('POST', `${CARTS}/${cart.id}/items`, { variant_id: scarf.variants[0].id, quantity: 2 }));
    expect(result.statusCode, result.body).toBe(201);
    expect(result.json().data).toMatchObject({ item_count: 3, subtotal: 3 * 8900 });
    expect(statements).toHaveLength(1);
    expect(readWhole(statements)).toBe(false);
    expect(statements[0]).toMatch(/^BEGIN; .*core_expect.*for update.*update checkout_cart_item .*update checkout_cart .*insert into core_outbox .*COMMIT$/s);
    // And what it wrote is what the database holds.
    expect((await storeThere('GET', `${CARTS}/${cart.id}`)).json().data).toMatchObject({ item_count: 3, subtotal: 3 * 8900 });
  });

  it('a change that needs a read (a coupon) or would refuse runs the usual way', async () => {
    const cart = await createCart(store);
    await addItem(store, cart.id, scarf.variants[0].id, 1);
    const refused = await statementsOf(t.app, () => store('POST', `${CARTS}/${cart.id}/items`, { variant_id: scarf.variants[0].id, quantity: 1, product_id: hat.id }));
    expect(refused.result.statusCode).toBe(422);
    expect(refused.result.json().error.code).toBe('VARIANT_NOT_FOUND');
    // Decided on the locked row, not on memory alone.
    expect(refused.statements.some((s) => s.includes('core_expect'))).toBe(false);
    expect(refused.statements[0]).toContain('for update');
  });

  it('sees at once the lines another process added, and the one after that again from memory', async () => {
    const cart = await createCart(store);
    await addItem(store, cart.id, scarf.variants[0].id, 1);
    // The other process changes the cart: this one's memory of it is a version behind.
    expect((await storeThere('POST', `${CARTS}/${cart.id}/items`, { variant_id: hat.variants[0].id, quantity: 2 })).statusCode).toBe(201);
    const { result, statements } = await statementsOf(t.app, () => store('PUT', `${CARTS}/${cart.id}/items/${scarf.variants[0].id}`, { quantity: 4 }));
    expect(result.statusCode, result.body).toBe(200);
    expect(result.json().data).toMatchObject({ item_count: 6, subtotal: 4 * 8900 + 2 * 4500 });
    expect(result.json().data.line_items.map((l: { variant_id: string; quantity: number }) => [l.variant_id, l.quantity])).toEqual([
      [scarf.variants[0].id, 4],
      [hat.variants[0].id, 2],
    ]);
    // The lock, then the whole read (the cart had moved on), then the writes with COMMIT.
    expect(statements).toHaveLength(3);
    expect(readWhole(statements)).toBe(true);
    const next = await statementsOf(t.app, () => store('DELETE', `${CARTS}/${cart.id}/items/${hat.variants[0].id}`));
    expect(next.result.json().data).toMatchObject({ item_count: 4, subtotal: 4 * 8900 });
    expect(readWhole(next.statements)).toBe(false);
  });

  it('keeps every unit when both processes change one cart at once, each from what it remembers', async () => {
    const cart = await createCart(store);
    await addItem(store, cart.id, scarf.variants[0].id, 1);
    expect((await storeThere('POST', `${CARTS}/${cart.id}/items`, { variant_id: scarf.variants[0].id, quantity: 1 })).statusCode).toBe(201);
    // Both know the cart now (at versions that will not last); sixteen more units at once, half through each.
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, n) => (n % 2 ? store : storeThere)('POST', `${CARTS}/${cart.id}/items`, { variant_id: [scarf.variants[0].id, hat.variants[0].id][n % 4 < 2 ? 0 : 1], quantity: 1 })),
    );
    expect(answers.map((r) => r.statusCode)).toEqual(Array(16).fill(201));
    for (const read of [store, storeThere]) {
      const final = (await read('GET', `${CARTS}/${cart.id}`)).json().data;
      expect(final.line_items.map((l: { variant_id: string; quantity: number }) => [l.variant_id, l.quantity])).toEqual([
        [scarf.variants[0].id, 10],
        [hat.variants[0].id, 8],
      ]);
      expect(final).toMatchObject({ item_count: 18, subtotal: 10 * 8900 + 8 * 4500 });
    }
  });

  it('a read in one process shows what the other just changed', async () => {
    const cart = await createCart(store);
    await addItem(store, cart.id, scarf.variants[0].id, 1);
    expect((await storeThere('GET', `${CARTS}/${cart.id}`)).json().data).toMatchObject({ item_count: 1 });
    await addItem(store, cart.id, hat.variants[0].id, 3);
    const there = await statementsOf(other, () => storeThere('GET', `${CARTS}/${cart.id}`));
    expect(there.result.json().data).toMatchObject({ item_count: 4, subtotal: 8900 + 3 * 4500 });
    expect(readWhole(there.statements)).toBe(true);
    // And again, with nothing changed since: from memory.
    const again = await statementsOf(other, () => storeThere('GET', `${CARTS}/${cart.id}`));
    expect(again.result.json().data).toMatchObject({ item_count: 4 });
    expect(readWhole(again.statements)).toBe(false);
  });

  it('charges a price another process changed on the very next change', async () => {
    const product = await createProduct(admin, { variants: [{ title: 'x', price: 500 }] });
    const cart = await createCart(store);
    await addItem(store, cart.id, product.variants[0].id, 1);
    await addItem(store, cart.id, product.variants[0].id, 1);
    expect((await adminThere('PATCH', `/api/v1/catalog/products/${product.id}/variants/${product.variants[0].id}`, { price: 700 })).statusCode).toBe(200);
    const { result, statements } = await statementsOf(t.app, () => store('PUT', `${CARTS}/${cart.id}/items/${product.variants[0].id}`, { quantity: 3 }));
    expect(result.json().data).toMatchObject({ subtotal: 3 * 700 });
    expect(result.json().data.line_items[0]).toMatchObject({ unit_price: 700 });
    expect(readWhole(statements)).toBe(true);
    // A product unpublished there leaves the cart here on its next change.
    expect((await adminThere('PATCH', `/api/v1/catalog/products/${product.id}`, { status: 'draft' })).statusCode).toBe(200);
    const after = await addItem(store, cart.id, scarf.variants[1].id, 1);
    expect(after.line_items.map((l) => l.variant_id)).toEqual([scarf.variants[1].id]);
    expect(after.subtotal).toBe(9900);
  });

  it('applies a volume tier another process made, and stops when it is removed there', async () => {
    const product = await createProduct(admin, { variants: [{ title: 'x', price: 1000 }] });
    const cart = await createCart(store);
    await addItem(store, cart.id, product.variants[0].id, 2);
    await addItem(store, cart.id, product.variants[0].id, 1);
    const made = await adminThere('POST', '/api/v1/discounts/volume', { product_id: product.id, min_quantity: 3, value: 1000 });
    expect(made.statusCode, made.body).toBe(201);
    const tiered = await addItem(store, cart.id, product.variants[0].id, 1);
    expect(tiered).toMatchObject({ subtotal: 4000, discount_total: 400, total: 3600 });
    expect((await adminThere('DELETE', `/api/v1/discounts/volume/${made.json().id}`)).statusCode).toBe(204);
    const plain = await addItem(store, cart.id, product.variants[0].id, 1);
    expect(plain).toMatchObject({ subtotal: 5000, discount_total: 0, total: 5000 });
  });

  it('a tier made in this process counts too (the same versions, bumped in the change)', async () => {
    const product = await createProduct(admin, { variants: [{ title: 'x', price: 2000 }] });
    const cart = await createCart(store);
    await addItem(store, cart.id, product.variants[0].id, 1);
    await addItem(store, cart.id, product.variants[0].id, 1);
    await createVolumeTier(admin, product.id, 2, 500);
    const tiered = await addItem(store, cart.id, product.variants[0].id, 1);
    expect(tiered).toMatchObject({ subtotal: 6000, discount_total: 300 });
  });

  it('answers exactly what CartOut says, on every route of a cart (they are sent as built)', async () => {
    const cart = await createCart(store);
    const answers = [
      await store('POST', `${CARTS}/${cart.id}/items`, { variant_id: scarf.variants[0].id, quantity: 2 }),
      await store('PUT', `${CARTS}/${cart.id}/items/${scarf.variants[0].id}`, { quantity: 1 }),
      await store('POST', `${CARTS}/${cart.id}/items`, { variant_id: hat.variants[0].id, quantity: 1 }),
      await store('DELETE', `${CARTS}/${cart.id}/items/${hat.variants[0].id}`),
      await store('GET', `${CARTS}/${cart.id}`),
      await store('DELETE', `${CARTS}/${cart.id}/coupon`),
      await store('POST', CARTS, {}),
    ];
    for (const answer of answers) {
      expect(answer.statusCode, answer.body).toBeLessThan(300);
      expect(answersMatch(dataOf(CartOut), answer.json()), answer.body).toBe(true);
    }
    // The check itself tells an extra field from none.
    expect(answersMatch(dataOf(CartOut), { data: { ...answers[0].json().data, internal: 1 } })).toBe(false);
  });
});

describe('QHATU_CACHE=off', () => {
  let cold: TestApp;
  afterAll(async () => cold?.close());

  it('keeps nothing: every change reads the whole cart, and prices it the same', async () => {
    cold = await checkoutApp({ env: { QHATU_CACHE: 'off' } });
    const tenant = await cold.createTenant({ currency: 'PEN' });
    const product = await createProduct(caller(cold, tenant), { variants: [{ title: 'x', price: 1200 }] });
    const shopper = caller(cold, tenant, tenant.storefrontToken);
    const cart = await createCart(shopper);
    await addItem(shopper, cart.id, product.variants[0].id, 1);
    const { result, statements } = await statementsOf(cold.app, () => shopper('POST', `${CARTS}/${cart.id}/items`, { variant_id: product.variants[0].id, quantity: 1 }));
    expect(result.json().data).toMatchObject({ item_count: 2, subtotal: 2400 });
    expect(statements).toHaveLength(2);
    expect(readWhole(statements)).toBe(true);
  });
});
