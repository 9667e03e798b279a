import { Database } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import inventory, { Reservations, Stock, StockAdjustment, StockLevel, StockReservation, Warehouse, Warehouses } from '../src/index.js';
import { caller, catalogQuantity, createVariants, createWarehouse, inTenant, inventoryApp, levelOf, stock, WAREHOUSES } from './helpers.js';

let t: TestApp;
let a: TestTenant;
let b: TestTenant;
let bWarehouse: { id: string };
let bVariant: string;
let bOrder: string;
beforeAll(async () => {
  t = await inventoryApp();
  a = await t.createTenant({ name: 'A' });
  b = await t.createTenant({ name: 'B' });
  await createWarehouse(t, a, { code: 'SAME' });
  bWarehouse = await createWarehouse(t, b, { code: 'SAME' }); // codes are unique per store, not across stores
  [bVariant] = await createVariants(t, b);
  await stock(t, b, bWarehouse.id, bVariant, 9);
  bOrder = crypto.randomUUID();
  await inTenant(t, b, (tx) => t.app.container.resolve(Reservations).reserve(tx, { orderId: bOrder, lines: [{ variantId: bVariant, quantity: 2 }] }));
});
afterAll(async () => t?.close());

const routes = () => [
  ['GET', WAREHOUSES, undefined],
  ['POST', WAREHOUSES, { name: 'x', code: 'NEW' }],
  ['GET', `${WAREHOUSES}/${bWarehouse.id}`, undefined],
  ['PUT', `${WAREHOUSES}/${bWarehouse.id}`, { name: 'x', code: 'SAME' }],
  ['DELETE', `${WAREHOUSES}/${bWarehouse.id}`, undefined],
  ['POST', `${WAREHOUSES}/${bWarehouse.id}/stock/adjust`, { variant_id: bVariant, delta: 1, reason: 'received' }],
  ['GET', `${WAREHOUSES}/${bWarehouse.id}/stock`, undefined],
  ['GET', `${WAREHOUSES}/${bWarehouse.id}/adjustments`, undefined],
  ['GET', '/api/v1/inventory/reservations', undefined],
] as const;

describe('who may call', () => {
  it('refuses storefront keys (403), missing tokens (401) and a token of another tenant (403) on every route', async () => {
    for (const [method, url, payload] of routes()) {
      const storefront = await caller(t, b, b.storefrontToken)(method, url, payload);
      expect(storefront.statusCode, `${method} ${url}`).toBe(403);
      expect(storefront.json().error.code).toBe('FORBIDDEN');
      const anonymous = await t.request({ method, url, headers: { 'x-tenant-id': b.id }, payload: payload as never });
      expect(anonymous.statusCode, `${method} ${url}`).toBe(401);
      const crossed = await t.request({ method, url, headers: { authorization: `Bearer ${a.adminToken}`, 'x-tenant-id': b.id }, payload: payload as never });
      expect(crossed.statusCode, `${method} ${url}`).toBe(403);
    }
    expect(await levelOf(t, b, bWarehouse.id, bVariant)).toEqual({ on_hand: 9, reserved: 2, available: 7 });
  });
});

describe("with tenant A's admin key, nothing of tenant B", () => {
  const asA = () => caller(t, a);

  it('can be listed', async () => {
    expect((await asA()('GET', WAREHOUSES)).json().data.map((w: { id: string }) => w.id)).not.toContain(bWarehouse.id);
    expect((await asA()('GET', `${WAREHOUSES}?q=SAME`)).json().data).toHaveLength(1);
    expect((await asA()('GET', `/api/v1/inventory/reservations?filter[order_id]=${bOrder}`)).json().data).toEqual([]);
    expect((await asA()('GET', `/api/v1/inventory/reservations?filter[variant_id]=${bVariant}`)).json().data).toEqual([]);
  });

  it('can be read, changed, deleted or adjusted', async () => {
    const url = `${WAREHOUSES}/${bWarehouse.id}`;
    for (const [method, path, payload] of [
      ['GET', url, undefined],
      ['PUT', url, { name: 'hacked', code: 'HACK' }],
      ['DELETE', url, undefined],
      ['POST', `${url}/stock/adjust`, { variant_id: bVariant, delta: -9, reason: 'lost' }],
      ['GET', `${url}/stock`, undefined],
      ['GET', `${url}/adjustments`, undefined],
    ] as const) {
      const res = await asA()(method, path, payload);
      expect(res.statusCode, `${method} ${path}`).toBe(404);
      expect(res.json().error.code).toBe('WAREHOUSE_NOT_FOUND');
    }
    const still = (await caller(t, b)('GET', url)).json().data;
    expect(still).toMatchObject({ code: 'SAME', stock: [{ variant_id: bVariant, on_hand: 9, reserved: 2 }] });
  });

  it("cannot put B's variant in A's warehouse (422 VARIANT_NOT_FOUND), nor reserve, release or consume it", async () => {
    const mine = (await asA()('GET', WAREHOUSES)).json().data[0];
    const res = await asA()('POST', `${WAREHOUSES}/${mine.id}/stock/adjust`, { variant_id: bVariant, delta: 5, reason: 'received' });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('VARIANT_NOT_FOUND');
    const reservations = t.app.container.resolve(Reservations);
    await expect(inTenant(t, a, (tx) => reservations.reserve(tx, { orderId: bOrder, warehouseId: bWarehouse.id, lines: [{ variantId: bVariant, quantity: 1 }] })))
      .rejects.toMatchObject({ code: 'WAREHOUSE_NOT_FOUND' });
    expect(await inTenant(t, a, (tx) => reservations.release(tx, bOrder))).toEqual([]);
    expect(await inTenant(t, a, (tx) => reservations.consume(tx, bOrder))).toEqual([]);
    await expect(inTenant(t, a, (tx) => reservations.consume(tx, bOrder, [{ variantId: bVariant, quantity: 1 }]))).rejects.toMatchObject({ code: 'VARIANT_NOT_FOUND' });
    expect(await inTenant(t, a, (tx) => reservations.ofOrder(tx, bOrder))).toEqual([]);
    expect(await inTenant(t, a, (tx) => t.app.container.resolve(Stock).available(tx, [bVariant], bWarehouse.id))).toEqual(new Map([[bVariant, 0]]));
    expect(await levelOf(t, b, bWarehouse.id, bVariant)).toEqual({ on_hand: 9, reserved: 2, available: 7 });
    expect(await catalogQuantity(t, b, bVariant)).toBe(7);
  });

  it('is visible even with the ORM tenant filter switched off: row-level security holds', async () => {
    const db = t.app.container.resolve(Database);
    const seen = await db.tenant(async ({ em }) => ({
      warehouses: await em.find(Warehouse, {}, { filters: false }),
      levels: await em.find(StockLevel, {}, { filters: false }),
      adjustments: await em.find(StockAdjustment, {}, { filters: false }),
      reservations: await em.find(StockReservation, {}, { filters: false }),
      updated: await em.nativeUpdate(StockLevel, { variantId: bVariant }, { onHand: 0, reserved: 0 }, { filters: false }),
      deleted: await em.nativeDelete(Warehouse, { id: bWarehouse.id }, { filters: false }),
    }), a.id);
    expect(seen.warehouses.every((w) => w.tenantId === a.id)).toBe(true);
    expect(seen.levels).toEqual([]);
    expect(seen.adjustments).toEqual([]);
    expect(seen.reservations).toEqual([]);
    expect(seen.updated).toBe(0);
    expect(seen.deleted).toBe(0);
    // Nor can a row be written into B from A's transaction.
    await expect(db.tenant(({ em }) => em.execute(
      `insert into inventory_stock (tenant_id, id, warehouse_id, variant_id, on_hand, reserved, created_at, updated_at) values (?, ?, ?, ?, 1, 0, now(), now())`,
      [b.id, crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()]), a.id)).rejects.toMatchObject({ code: '42501' });
    expect(await levelOf(t, b, bWarehouse.id, bVariant)).toEqual({ on_hand: 9, reserved: 2, available: 7 });
  });
});

describe('the plugin', () => {
  it('resolves every service it registers and declares its events', () => {
    expect(t.app.container.resolve(Warehouses)).toBeInstanceOf(Warehouses);
    expect(t.app.container.resolve(Stock)).toBeInstanceOf(Stock);
    expect(t.app.container.resolve(Reservations)).toBeInstanceOf(Reservations);
    expect(inventory.events).toEqual(expect.arrayContaining(['inventory.stock.adjusted', 'inventory.stock.depleted', 'inventory.warehouse.created']));
  });

  it('documents its routes in /openapi.json', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining([
      '/api/v1/inventory/warehouses', '/api/v1/inventory/warehouses/{id}', '/api/v1/inventory/warehouses/{id}/stock/adjust',
      '/api/v1/inventory/warehouses/{id}/adjustments', '/api/v1/inventory/warehouses/{id}/stock', '/api/v1/inventory/reservations',
    ]));
    expect(doc.components.schemas).toHaveProperty('WarehouseCreate');
    expect(doc.components.schemas).toHaveProperty('StockAdjustment');
  });
});
