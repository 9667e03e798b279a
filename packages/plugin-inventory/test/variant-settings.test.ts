import type { Tx } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Reservations } from '../src/index.js';
import { caller, createVariants, createWarehouse, inTenant, inventoryApp, levelOf, MISSING, stock } from './helpers.js';

// Whether the store keeps a variant's stock and sells it short (decision 0054): the setting's API,
// and `Reservations.hold`, which the orders plugin calls when it places an order.
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let main: { id: string };
let reservations: Reservations;
beforeAll(async () => {
  t = await inventoryApp();
  shop = await t.createTenant();
  other = await t.createTenant();
  main = await createWarehouse(t, shop, { code: 'MAIN' });
  reservations = t.app.container.resolve(Reservations);
});
afterAll(async () => t?.close());

const SETTINGS = '/api/v1/inventory/variant-settings';
const admin = (tenant = shop) => caller(t, tenant);
const put = (variantId: string, body: unknown, tenant = shop) => admin(tenant)('PUT', `${SETTINGS}/${variantId}`, body);
const get = async (variantId: string) => (await admin()('GET', `${SETTINGS}/${variantId}`)).json().data;
const run = <T>(work: (tx: Tx) => Promise<T>) => inTenant(t, shop, work);
const failure = (p: Promise<unknown>) => p.then(() => { throw new Error('expected a failure'); }, (e) => e as { status: number; code: string; details: Array<Record<string, unknown>> });

describe('the variant setting', () => {
  it('defaults: tracked once the variant has a stock record, no backorders', async () => {
    const [v] = await createVariants(t, shop);
    expect(await get(v)).toMatchObject({ variant_id: v, tracked: null, allow_backorder: false, is_tracked: false, has_stock_record: false, created_at: null, updated_at: null });
    await stock(t, shop, main.id, v, 1);
    expect(await get(v)).toMatchObject({ tracked: null, is_tracked: true, has_stock_record: true });
  });

  it('PUT replaces it: tracked false wins over a stock record, true over none; absent fields take their defaults', async () => {
    const [stocked, bare] = await createVariants(t, shop, 2);
    await stock(t, shop, main.id, stocked, 3);
    const off = await put(stocked, { tracked: false });
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json().data).toMatchObject({ variant_id: stocked, tracked: false, allow_backorder: false, is_tracked: false, has_stock_record: true, created_at: expect.any(String) });
    expect((await put(bare, { tracked: true, allow_backorder: true })).json().data).toMatchObject({ tracked: true, allow_backorder: true, is_tracked: true, has_stock_record: false });
    expect((await put(bare, {})).json().data).toMatchObject({ tracked: null, allow_backorder: false, is_tracked: false });
  });

  it('two PUTs at once leave one setting', async () => {
    const [v] = await createVariants(t, shop);
    const answers = await Promise.all(Array.from({ length: 8 }, (_, n) => put(v, { allow_backorder: n % 2 === 0 })));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(8).fill(200));
    const [{ n }] = await t.app.orm.em.getConnection().execute<Array<{ n: string }>>('select count(*) as n from inventory_variant_setting where variant_id = ?', [v]);
    expect(Number(n)).toBe(1);
  });

  it('lists the settings page by page, filtered, newest change first', async () => {
    const ids = await createVariants(t, shop, 3);
    for (const id of ids) await put(id, { tracked: true, allow_backorder: id !== ids[1] });
    const first = (await admin()('GET', `${SETTINGS}?filter[allow_backorder]=true&limit=1`)).json();
    expect(first.data.map((s: { variant_id: string }) => s.variant_id)).toEqual([ids[2]]);
    expect(first.meta.pagination).toMatchObject({ has_next: true, limit: 1 });
    const second = (await admin()('GET', `${SETTINGS}?filter[allow_backorder]=true&limit=1&cursor=${first.meta.pagination.cursor}`)).json();
    expect(second.data.map((s: { variant_id: string }) => s.variant_id)).toEqual([ids[0]]);
    const untracked = (await admin()('GET', `${SETTINGS}?filter[tracked]=false&limit=100`)).json().data;
    expect(untracked.every((s: { tracked: boolean }) => s.tracked === false)).toBe(true);
  });

  it('answers precise errors: unknown variant 404, bad body or filter 400, storefront 403; another store sees none of it', async () => {
    const [v] = await createVariants(t, shop);
    expect((await admin()('GET', `${SETTINGS}/${MISSING}`)).json().error.code).toBe('VARIANT_NOT_FOUND');
    expect((await put(MISSING, { tracked: true })).statusCode).toBe(404);
    expect((await put(v, { tracked: 'yes' })).json().error.code).toBe('VALIDATION_ERROR');
    expect((await put(v, { backorders: true })).json().error.code).toBe('VALIDATION_ERROR');
    expect((await admin()('GET', `${SETTINGS}?filter[tracked]=maybe`)).statusCode).toBe(400);
    expect((await admin()('GET', `${SETTINGS}/not-a-uuid`)).statusCode).toBe(400);
    expect((await caller(t, shop, shop.storefrontToken)('GET', `${SETTINGS}/${v}`)).statusCode).toBe(403);
    await put(v, { tracked: true });
    expect((await put(v, { tracked: false }, other)).statusCode).toBe(404);
    expect((await admin(other)('GET', `${SETTINGS}/${v}`)).statusCode).toBe(404);
    expect((await admin(other)('GET', `${SETTINGS}?limit=100`)).json().data).toEqual([]);
    expect(await get(v)).toMatchObject({ tracked: true });
  });

  it('is documented in /openapi.json', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(doc.paths['/api/v1/inventory/variant-settings/{id}'])).toEqual(expect.arrayContaining(['get', 'put']));
    expect(doc.paths['/api/v1/inventory/variant-settings'].get).toBeDefined();
  });
});

describe('Reservations.hold', () => {
  it('sells untracked variants without a reservation, in one statement', async () => {
    const [v] = await createVariants(t, shop);
    const { result, count } = await t.countQueries(() => run((tx) => reservations.hold(tx, { orderId: crypto.randomUUID(), lines: [{ variantId: v, quantity: 4 }], shortfall: 'refuse' })));
    expect(result).toEqual([{ variantId: v, tracked: false, allowBackorder: false, requested: 4, reserved: 0, short: 0 }]);
    // BEGIN with the tenant, the statement, COMMIT.
    expect(count).toBe(3);
  });

  it('refuse: all or nothing, 409 INSUFFICIENT_STOCK naming each short variant', async () => {
    const [a, b] = await createVariants(t, shop, 2);
    await stock(t, shop, main.id, a, 5);
    await stock(t, shop, main.id, b, 1);
    const error = await failure(run((tx) => reservations.hold(tx, { orderId: crypto.randomUUID(), lines: [{ variantId: a, quantity: 2 }, { variantId: b, quantity: 2 }], shortfall: 'refuse' })));
    expect(error).toMatchObject({ status: 409, code: 'INSUFFICIENT_STOCK', details: [{ variant_id: b, warehouse_id: main.id, requested: 2, available: 1 }] });
    expect(await levelOf(t, shop, main.id, a)).toEqual({ on_hand: 5, reserved: 0, available: 5 });
  });

  it('backorder: a variant that allows it takes what there is and is short of the rest; others are refused', async () => {
    const [back, strict] = await createVariants(t, shop, 2);
    await stock(t, shop, main.id, back, 1);
    await stock(t, shop, main.id, strict, 1);
    await put(back, { allow_backorder: true });
    const held = await run((tx) => reservations.hold(tx, { orderId: crypto.randomUUID(), lines: [{ variantId: back, quantity: 3 }], shortfall: 'backorder' }));
    expect(held).toEqual([{ variantId: back, tracked: true, allowBackorder: true, requested: 3, reserved: 1, short: 2 }]);
    expect(await levelOf(t, shop, main.id, back)).toEqual({ on_hand: 1, reserved: 1, available: 0 });
    const error = await failure(run((tx) => reservations.hold(tx, { orderId: crypto.randomUUID(), lines: [{ variantId: strict, quantity: 2 }], shortfall: 'backorder' })));
    expect(error).toMatchObject({ code: 'INSUFFICIENT_STOCK', details: [{ variant_id: strict, requested: 2, available: 1 }] });
  });

  it('accept: staff sell short; a variant tracked by the store without any warehouse stock holds nothing', async () => {
    const [v, none] = await createVariants(t, shop, 2);
    await stock(t, shop, main.id, v, 2);
    await put(none, { tracked: true });
    const held = await run((tx) => reservations.hold(tx, { orderId: crypto.randomUUID(), lines: [{ variantId: v, quantity: 5 }, { variantId: none, quantity: 1 }], shortfall: 'accept' }));
    expect(held.map((l) => [l.variantId, l.reserved, l.short])).toEqual([[v, 2, 3], [none, 0, 1]]);
    expect(await levelOf(t, shop, main.id, v)).toEqual({ on_hand: 2, reserved: 2, available: 0 });
  });

  it('a store without a warehouse: a variant it says it tracks is refused with no warehouse named', async () => {
    const [v] = await createVariants(t, other);
    await put(v, { tracked: true }, other);
    const error = await failure(inTenant(t, other, (tx) => reservations.hold(tx, { orderId: crypto.randomUUID(), lines: [{ variantId: v, quantity: 1 }], shortfall: 'backorder' })));
    expect(error).toMatchObject({ code: 'INSUFFICIENT_STOCK', details: [{ variant_id: v, warehouse_id: null, requested: 1, available: 0 }] });
  });

  it('validates its input like a request body', async () => {
    const error = await failure(run((tx) => reservations.hold(tx, { orderId: 'nope', lines: [], shortfall: 'maybe' as 'refuse' })));
    expect(error).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
  });
});
