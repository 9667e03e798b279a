import type { Tx } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Reservations, Stock } from '../src/index.js';
import { caller, catalogQuantity, createVariants, createWarehouse, events, inTenant, inventoryApp, levelOf, MISSING, stock, WAREHOUSES } from './helpers.js';

// The reservation service is this plugin's API for the checkout and order plugins: called here as they would.
let t: TestApp;
let shop: TestTenant;
let main: { id: string };
let reservations: Reservations;
beforeAll(async () => {
  t = await inventoryApp();
  shop = await t.createTenant();
  main = await createWarehouse(t, shop, { code: 'MAIN' });
  reservations = t.app.container.resolve(Reservations);
});
afterAll(async () => t?.close());

const order = (): string => crypto.randomUUID();
const run = <T>(work: (tx: Tx) => Promise<T>, tenant = shop) => inTenant(t, tenant, work);
const failure = (p: Promise<unknown>) => p.then(() => { throw new Error('expected a failure'); }, (e) => e as { status: number; code: string; message: string; details: Array<Record<string, unknown>> });

describe('reserve', () => {
  it('holds units in the default warehouse: available and the catalog quantity go down, on hand stays', async () => {
    const [a, b] = await createVariants(t, shop, 2);
    await stock(t, shop, main.id, a, 5);
    await stock(t, shop, main.id, b, 2);
    const id = order();
    const rows = await run((tx) => reservations.reserve(tx, { orderId: id, lines: [{ variantId: a, quantity: 2 }, { variantId: b, quantity: 2 }, { variantId: a, quantity: 1 }] }));
    expect(rows.map((r) => [r.variantId, r.warehouseId, r.quantity]).sort()).toEqual([[a, main.id, 3], [b, main.id, 2]].sort());
    expect(await levelOf(t, shop, main.id, a)).toEqual({ on_hand: 5, reserved: 3, available: 2 });
    expect(await levelOf(t, shop, main.id, b)).toEqual({ on_hand: 2, reserved: 2, available: 0 });
    expect(await catalogQuantity(t, shop, a)).toBe(2);
    expect(await catalogQuantity(t, shop, b)).toBe(0);
    // b ran out through the reservation.
    expect((await events(t, 'inventory.stock.depleted', b)).map((e) => e.data)).toEqual([
      { warehouse_id: main.id, variant_id: b, on_hand: 2, reserved: 2, available: 0, inventory_quantity: 0 },
    ]);
    const listed = (await caller(t, shop)('GET', `/api/v1/inventory/reservations?filter[order_id]=${id}`)).json().data;
    expect(listed.map((r: { variant_id: string; quantity: number; consumed_quantity: number; released_quantity: number }) => [r.variant_id, r.quantity, r.consumed_quantity, r.released_quantity]).sort())
      .toEqual([[a, 3, 0, 0], [b, 2, 0, 0]].sort());
  });

  it('is all or nothing: 409 INSUFFICIENT_STOCK names every short variant with what is available', async () => {
    const [a, b, c] = await createVariants(t, shop, 3);
    await stock(t, shop, main.id, a, 5);
    await stock(t, shop, main.id, b, 1);
    const error = await failure(run((tx) => reservations.reserve(tx, { orderId: order(), lines: [{ variantId: a, quantity: 5 }, { variantId: b, quantity: 2 }, { variantId: c, quantity: 1 }] })));
    expect(error).toMatchObject({ status: 409, code: 'INSUFFICIENT_STOCK' });
    expect(error.details.map((d) => [d.variant_id, d.requested, d.available])).toEqual([[b, 2, 1], [c, 1, 0]]);
    expect(await levelOf(t, shop, main.id, a)).toEqual({ on_hand: 5, reserved: 0, available: 5 });
    expect(await catalogQuantity(t, shop, a)).toBe(5);
  });

  it('rolls back with the caller: an order that fails after reserving holds nothing', async () => {
    const [v] = await createVariants(t, shop);
    await stock(t, shop, main.id, v, 3);
    const id = order();
    await expect(run(async (tx) => {
      await reservations.reserve(tx, { orderId: id, lines: [{ variantId: v, quantity: 2 }] });
      throw new Error('payment declined');
    })).rejects.toThrow('payment declined');
    expect(await levelOf(t, shop, main.id, v)).toEqual({ on_hand: 3, reserved: 0, available: 3 });
    expect(await run((tx) => reservations.ofOrder(tx, id))).toEqual([]);
  });

  it('adds to what the order already holds when called again', async () => {
    const [v] = await createVariants(t, shop);
    await stock(t, shop, main.id, v, 10);
    const id = order();
    await run((tx) => reservations.reserve(tx, { orderId: id, lines: [{ variantId: v, quantity: 2 }] }));
    const [row] = await run((tx) => reservations.reserve(tx, { orderId: id, lines: [{ variantId: v, quantity: 3 }] }));
    expect(row.quantity).toBe(5);
    expect(await run((tx) => reservations.ofOrder(tx, id))).toHaveLength(1);
    expect(await levelOf(t, shop, main.id, v)).toMatchObject({ reserved: 5, available: 5 });
  });

  it('uses the warehouse given, which must exist (422) and be active (409 WAREHOUSE_INACTIVE)', async () => {
    const second = await createWarehouse(t, shop, { code: 'SECOND' });
    const [v] = await createVariants(t, shop);
    await stock(t, shop, second.id, v, 4);
    expect((await failure(run((tx) => reservations.reserve(tx, { orderId: order(), lines: [{ variantId: v, quantity: 1 }] })))).details[0])
      .toMatchObject({ warehouse_id: main.id, available: 0 });
    const [row] = await run((tx) => reservations.reserve(tx, { orderId: order(), warehouseId: second.id, lines: [{ variantId: v, quantity: 3 }] }));
    expect(row.warehouseId).toBe(second.id);
    expect(await catalogQuantity(t, shop, v)).toBe(1);

    expect(await failure(run((tx) => reservations.reserve(tx, { orderId: order(), warehouseId: MISSING, lines: [{ variantId: v, quantity: 1 }] }))))
      .toMatchObject({ status: 422, code: 'WAREHOUSE_NOT_FOUND' });
    await caller(t, shop)('PUT', `${WAREHOUSES}/${second.id}`, { name: 'Second', code: 'SECOND', is_active: false });
    expect(await failure(run((tx) => reservations.reserve(tx, { orderId: order(), warehouseId: second.id, lines: [{ variantId: v, quantity: 1 }] }))))
      .toMatchObject({ status: 409, code: 'WAREHOUSE_INACTIVE' });
    // An inactive warehouse with reservations cannot be deleted either.
    expect((await caller(t, shop)('DELETE', `${WAREHOUSES}/${second.id}`)).json().error.code).toBe('WAREHOUSE_HAS_RESERVATIONS');
  });

  it('refuses variants of another store (422 VARIANT_NOT_FOUND) and a store without warehouses (409 NO_DEFAULT_WAREHOUSE)', async () => {
    const other = await t.createTenant();
    const [theirs] = await createVariants(t, other);
    const error = await failure(run((tx) => reservations.reserve(tx, { orderId: order(), lines: [{ variantId: theirs, quantity: 1 }] })));
    expect(error).toMatchObject({ status: 422, code: 'VARIANT_NOT_FOUND', details: [{ path: 'lines.variantId', variant_id: theirs }] });
    expect(await failure(run((tx) => reservations.reserve(tx, { orderId: order(), lines: [{ variantId: theirs, quantity: 1 }] }), other)))
      .toMatchObject({ status: 409, code: 'NO_DEFAULT_WAREHOUSE' });
  });

  it.each([
    [{ orderId: 'x', lines: [{ variantId: MISSING, quantity: 1 }] }, 'orderId'],
    [{ orderId: MISSING, lines: [] }, 'lines'],
    [{ orderId: MISSING, lines: [{ variantId: MISSING, quantity: 0 }] }, 'lines.0.quantity'],
    [{ orderId: MISSING, lines: [{ variantId: MISSING, quantity: 1.5 }] }, 'lines.0.quantity'],
    [{ orderId: MISSING, lines: [{ variantId: 'v', quantity: 1 }] }, 'lines.0.variantId'],
    [{ orderId: MISSING, lines: [{ variantId: MISSING, quantity: 1 }], warehouseId: 'main' }, 'warehouseId'],
  ])('refuses %j with 400 VALIDATION_ERROR (%s)', async (input, path) => {
    const error = await failure(run((tx) => reservations.reserve(tx, input as never)));
    expect(error).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    expect(error.details.map((d) => d.path)).toContain(path);
  });
});

describe('release', () => {
  it('gives back all an order holds, or some lines of it; releasing again changes nothing', async () => {
    const [a, b] = await createVariants(t, shop, 2);
    await stock(t, shop, main.id, a, 5);
    await stock(t, shop, main.id, b, 5);
    const id = order();
    await run((tx) => reservations.reserve(tx, { orderId: id, lines: [{ variantId: a, quantity: 3 }, { variantId: b, quantity: 2 }] }));

    expect(await run((tx) => reservations.release(tx, id, [{ variantId: a, quantity: 1 }]))).toEqual([{ variantId: a, warehouseId: main.id, quantity: 1 }]);
    expect(await levelOf(t, shop, main.id, a)).toEqual({ on_hand: 5, reserved: 2, available: 3 });
    const released = await run((tx) => reservations.release(tx, id));
    expect(released.map((r) => [r.variantId, r.quantity]).sort()).toEqual([[a, 2], [b, 2]].sort());
    expect(await levelOf(t, shop, main.id, a)).toEqual({ on_hand: 5, reserved: 0, available: 5 });
    expect(await catalogQuantity(t, shop, b)).toBe(5);
    expect(await run((tx) => reservations.release(tx, id))).toEqual([]);
    expect(await run((tx) => reservations.release(tx, order()))).toEqual([]);
    const rows = await run((tx) => reservations.ofOrder(tx, id));
    expect(rows.map((r) => [r.variantId, r.quantity, r.releasedQuantity]).sort()).toEqual([[a, 0, 3], [b, 0, 2]].sort());
  });

  it('refuses to give back more than the order holds (409 NOT_RESERVED), all or nothing', async () => {
    const [a, b] = await createVariants(t, shop, 2);
    await stock(t, shop, main.id, a, 5);
    const id = order();
    await run((tx) => reservations.reserve(tx, { orderId: id, lines: [{ variantId: a, quantity: 2 }] }));
    const error = await failure(run((tx) => reservations.release(tx, id, [{ variantId: a, quantity: 1 }, { variantId: b, quantity: 1 }])));
    expect(error).toMatchObject({ status: 409, code: 'NOT_RESERVED', details: [{ variant_id: b, requested: 1, reserved: 0 }] });
    expect((await failure(run((tx) => reservations.release(tx, id, [{ variantId: a, quantity: 3 }])))).details).toEqual([
      { path: 'lines', message: '3 requested, 2 reserved', variant_id: a, requested: 3, reserved: 2 },
    ]);
    expect(await levelOf(t, shop, main.id, a)).toMatchObject({ reserved: 2 });
    expect(await failure(run((tx) => reservations.release(tx, 'order-1')))).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
  });
});

describe('consume', () => {
  it('fulfils in parts: on hand and reserved go down together, available stays, each part is audited as sold', async () => {
    const [a, b] = await createVariants(t, shop, 2);
    await stock(t, shop, main.id, a, 6);
    await stock(t, shop, main.id, b, 1);
    const id = order();
    await run((tx) => reservations.reserve(tx, { orderId: id, lines: [{ variantId: a, quantity: 4 }, { variantId: b, quantity: 1 }] }));
    expect(await catalogQuantity(t, shop, a)).toBe(2);

    expect(await run((tx) => reservations.consume(tx, id, [{ variantId: a, quantity: 1 }]))).toEqual([{ variantId: a, warehouseId: main.id, quantity: 1 }]);
    expect(await levelOf(t, shop, main.id, a)).toEqual({ on_hand: 5, reserved: 3, available: 2 });
    expect(await catalogQuantity(t, shop, a)).toBe(2);
    const rest = await run((tx) => reservations.consume(tx, id));
    expect(rest.map((r) => [r.variantId, r.quantity]).sort()).toEqual([[a, 3], [b, 1]].sort());
    expect(await levelOf(t, shop, main.id, a)).toEqual({ on_hand: 2, reserved: 0, available: 2 });
    expect(await levelOf(t, shop, main.id, b)).toEqual({ on_hand: 0, reserved: 0, available: 0 });
    expect(await catalogQuantity(t, shop, a)).toBe(2);

    const sold = (await caller(t, shop)('GET', `${WAREHOUSES}/${main.id}/adjustments?filter[order_id]=${id}`)).json().data;
    expect(sold.map((s: { variant_id: string; delta: number; reason: string; actor: { kind: string } }) => [s.variant_id, s.delta, s.reason, s.actor.kind]).sort())
      .toEqual([[a, -1, 'sold', 'system'], [a, -3, 'sold', 'system'], [b, -1, 'sold', 'system']].sort());
    const rows = await run((tx) => reservations.ofOrder(tx, id));
    expect(rows.map((r) => [r.variantId, r.quantity, r.consumedQuantity]).sort()).toEqual([[a, 0, 4], [b, 0, 1]].sort());
    expect(await failure(run((tx) => reservations.consume(tx, id, [{ variantId: a, quantity: 1 }])))).toMatchObject({ code: 'NOT_RESERVED' });
    expect(await run((tx) => reservations.consume(tx, id))).toEqual([]);
    // A fulfilment that takes the last units publishes no depletion: they were not available already.
    expect(await events(t, 'inventory.stock.depleted', b)).toHaveLength(1);
  });

  it('takes from every warehouse the order holds units in', async () => {
    const north = await createWarehouse(t, shop, { code: 'NORTH' });
    const [v] = await createVariants(t, shop);
    await stock(t, shop, main.id, v, 2);
    await stock(t, shop, north.id, v, 2);
    const id = order();
    await run((tx) => reservations.reserve(tx, { orderId: id, lines: [{ variantId: v, quantity: 2 }] }));
    await run((tx) => reservations.reserve(tx, { orderId: id, warehouseId: north.id, lines: [{ variantId: v, quantity: 1 }] }));
    expect(await catalogQuantity(t, shop, v)).toBe(1);
    const taken = await run((tx) => reservations.consume(tx, id, [{ variantId: v, quantity: 3 }]));
    expect(taken.map((x) => [x.warehouseId, x.quantity]).sort()).toEqual([[main.id, 2], [north.id, 1]].sort());
    expect(await levelOf(t, shop, main.id, v)).toEqual({ on_hand: 0, reserved: 0, available: 0 });
    expect(await levelOf(t, shop, north.id, v)).toEqual({ on_hand: 1, reserved: 0, available: 1 });
  });
});

describe('Stock.available', () => {
  it('tells other plugins what is available per variant, in one warehouse or over the active ones', async () => {
    const closed = await createWarehouse(t, shop, { code: 'CLOSED' });
    const [a, b] = await createVariants(t, shop, 2);
    await stock(t, shop, main.id, a, 3);
    await stock(t, shop, closed.id, a, 4);
    await caller(t, shop)('PUT', `${WAREHOUSES}/${closed.id}`, { name: 'Closed', code: 'CLOSED', is_active: false });
    await run((tx) => reservations.reserve(tx, { orderId: order(), lines: [{ variantId: a, quantity: 1 }] }));
    const s = t.app.container.resolve(Stock);
    expect(await run((tx) => s.available(tx, [a, b]))).toEqual(new Map([[a, 2], [b, 0]]));
    expect(await run((tx) => s.available(tx, [a], closed.id))).toEqual(new Map([[a, 4]]));
  });
});

describe('GET /inventory/reservations', () => {
  it('lists newest first with filters; bad queries are 400', async () => {
    const api = caller(t, shop);
    const [v] = await createVariants(t, shop);
    await stock(t, shop, main.id, v, 5);
    const [o1, o2] = [order(), order()];
    await run((tx) => reservations.reserve(tx, { orderId: o1, lines: [{ variantId: v, quantity: 1 }] }));
    await run((tx) => reservations.reserve(tx, { orderId: o2, lines: [{ variantId: v, quantity: 2 }] }));
    await run((tx) => reservations.release(tx, o1));
    const orders = async (qs: string) => (await api('GET', `/api/v1/inventory/reservations?filter[variant_id]=${v}&${qs}`)).json().data.map((r: { order_id: string }) => r.order_id);
    expect(await orders('')).toEqual([o2, o1]);
    expect(await orders('filter[active]=true')).toEqual([o2]);
    expect(await orders('filter[active]=false')).toEqual([o1]);
    expect(await orders(`filter[warehouse_id]=${main.id}&sort=created_at`)).toEqual([o1, o2]);
    expect(await orders(`filter[warehouse_id]=${MISSING}`)).toEqual([]);
    for (const qs of ['filter[order_id]=x', 'filter[active]=1', 'filter[status]=held', 'sort=quantity', 'limit=0']) {
      expect((await api('GET', `/api/v1/inventory/reservations?${qs}`)).statusCode, qs).toBe(400);
    }
  });
});
