import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Reservations } from '../src/index.js';
import { adjust, caller, catalogQuantity, createVariants, createWarehouse, inTenant, inventoryApp, levelOf, stock, WAREHOUSES } from './helpers.js';

// Every request runs in its own transaction on a pool of 4 connections: real concurrency on PostgreSQL.
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
const reserve = (orderId: string, lines: Array<{ variantId: string; quantity: number }>, warehouseId?: string) =>
  inTenant(t, shop, (tx) => reservations.reserve(tx, { orderId, lines, warehouseId }));
const statusOf = async (p: Promise<unknown>) => p.then(() => 'ok', (e: { code?: string }) => e.code ?? String(e));

describe('concurrent adjustments', () => {
  it('40 mixed adjustments end exactly at the arithmetic result, with 40 audit rows', async () => {
    const [v] = await createVariants(t, shop);
    await stock(t, shop, main.id, v, 100);
    const deltas = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? 3 : -2));
    const answers = await Promise.all(deltas.map((d) => adjust(t, shop, main.id, v, d)));
    expect(answers.map((a) => a.statusCode)).toEqual(deltas.map(() => 200));

    expect(await levelOf(t, shop, main.id, v)).toEqual({ on_hand: 120, reserved: 0, available: 120 });
    expect(await catalogQuantity(t, shop, v)).toBe(120);
    const trail = (await caller(t, shop)('GET', `${WAREHOUSES}/${main.id}/adjustments?limit=100&filter[variant_id]=${v}`)).json().data as Array<{ delta: number; previous_quantity: number; quantity: number }>;
    expect(trail).toHaveLength(41);
    for (const row of trail) expect(row.quantity).toBe(row.previous_quantity + row.delta);
    // Serialized: each adjustment started where exactly one other ended (the first one at 0), none where the last ended.
    const starts = trail.map((r) => r.previous_quantity).sort((a, b) => a - b);
    const ends = [0, ...trail.map((r) => r.quantity)];
    ends.splice(ends.indexOf(120), 1);
    expect(starts).toEqual(ends.sort((a, b) => a - b));
  });

  it('concurrent removals never take stock below zero: the refused ones get 409 with what is available', async () => {
    const [v] = await createVariants(t, shop);
    await stock(t, shop, main.id, v, 10);
    const answers = await Promise.all(Array.from({ length: 25 }, () => adjust(t, shop, main.id, v, -1, 'damaged')));
    const codes = answers.map((a) => a.statusCode);
    expect(codes.filter((c) => c === 200)).toHaveLength(10);
    expect(codes.filter((c) => c === 409)).toHaveLength(15);
    for (const refused of answers.filter((a) => a.statusCode === 409)) {
      expect(refused.json().error).toMatchObject({ code: 'INSUFFICIENT_STOCK', details: [{ variant_id: v, available: 0, requested: 1, path: 'body.delta' }] });
    }
    expect(await levelOf(t, shop, main.id, v)).toEqual({ on_hand: 0, reserved: 0, available: 0 });
    expect(await catalogQuantity(t, shop, v)).toBe(0);
    const trail = (await caller(t, shop)('GET', `${WAREHOUSES}/${main.id}/adjustments?limit=100&filter[variant_id]=${v}`)).json().data;
    expect(trail).toHaveLength(11);
  });

  it('removals of 3 from 10 let exactly 3 through and leave 1', async () => {
    const [v] = await createVariants(t, shop);
    await stock(t, shop, main.id, v, 10);
    const answers = await Promise.all(Array.from({ length: 12 }, () => adjust(t, shop, main.id, v, -3, 'sold')));
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(3);
    for (const refused of answers.filter((a) => a.statusCode !== 200)) {
      expect(refused.statusCode).toBe(409);
      expect(refused.json().error.details[0].available).toBe(1);
    }
    expect(await levelOf(t, shop, main.id, v)).toEqual({ on_hand: 1, reserved: 0, available: 1 });
  });

  it('adjustments of one variant in two warehouses at once keep the catalog total exact', async () => {
    const second = await createWarehouse(t, shop, { code: 'SECOND' });
    const [v] = await createVariants(t, shop);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => adjust(t, shop, i % 2 ? main.id : second.id, v, i % 3 === 0 ? 5 : 1)),
    );
    expect(answers.every((a) => a.statusCode === 200)).toBe(true);
    const expected = Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? 5 : 1)).reduce((a, b) => a + b, 0);
    const [a, b] = [await levelOf(t, shop, main.id, v), await levelOf(t, shop, second.id, v)];
    expect(a.on_hand + b.on_hand).toBe(expected);
    expect(await catalogQuantity(t, shop, v)).toBe(expected);
  });
});

describe('concurrent reservations', () => {
  it('for more than is available reserve exactly what is available and no more', async () => {
    const [v] = await createVariants(t, shop);
    await stock(t, shop, main.id, v, 10);
    const results = await Promise.all(Array.from({ length: 15 }, () => statusOf(reserve(order(), [{ variantId: v, quantity: 1 }]))));
    expect(results.filter((r) => r === 'ok')).toHaveLength(10);
    expect(results.filter((r) => r === 'INSUFFICIENT_STOCK')).toHaveLength(5);
    expect(await levelOf(t, shop, main.id, v)).toEqual({ on_hand: 10, reserved: 10, available: 0 });
    expect(await catalogQuantity(t, shop, v)).toBe(0);
    const held = (await caller(t, shop)('GET', `/api/v1/inventory/reservations?limit=100&filter[variant_id]=${v}`)).json().data;
    expect(held).toHaveLength(10);
    expect(held.every((r: { quantity: number }) => r.quantity === 1)).toBe(true);
  });

  it('of 3 units each from 10 grant 3 orders and refuse the rest', async () => {
    const [v] = await createVariants(t, shop);
    await stock(t, shop, main.id, v, 10);
    const results = await Promise.all(Array.from({ length: 7 }, () => statusOf(reserve(order(), [{ variantId: v, quantity: 3 }]))));
    expect(results.filter((r) => r === 'ok')).toHaveLength(3);
    expect(await levelOf(t, shop, main.id, v)).toEqual({ on_hand: 10, reserved: 9, available: 1 });
  });

  it('of several lines listed in opposite orders neither deadlock nor reserve part of an order', async () => {
    const [a, b] = await createVariants(t, shop, 2);
    await stock(t, shop, main.id, a, 5);
    await stock(t, shop, main.id, b, 5);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => {
        const lines = [{ variantId: a, quantity: 1 }, { variantId: b, quantity: 1 }];
        return statusOf(reserve(order(), i % 2 ? lines : lines.reverse()));
      }),
    );
    expect(results.filter((r) => r === 'ok')).toHaveLength(5);
    expect(results.filter((r) => r === 'INSUFFICIENT_STOCK')).toHaveLength(3);
    expect(await levelOf(t, shop, main.id, a)).toEqual({ on_hand: 5, reserved: 5, available: 0 });
    expect(await levelOf(t, shop, main.id, b)).toEqual({ on_hand: 5, reserved: 5, available: 0 });
  });
});

describe('adjustments, reservations, releases and fulfilments interleaved', () => {
  it('end where the arithmetic says, in both warehouses and in the catalog', async () => {
    const second = await createWarehouse(t, shop, { code: 'THIRD' });
    const [v] = await createVariants(t, shop);
    await stock(t, shop, main.id, v, 100);
    await stock(t, shop, second.id, v, 20);
    const fulfilled = Array.from({ length: 5 }, order);
    const cancelled = Array.from({ length: 5 }, order);
    for (const id of [...fulfilled, ...cancelled]) await reserve(id, [{ variantId: v, quantity: 2 }]);
    expect(await levelOf(t, shop, main.id, v)).toEqual({ on_hand: 100, reserved: 20, available: 80 });

    const work: Array<Promise<unknown>> = [
      ...fulfilled.map((id) => inTenant(t, shop, (tx) => reservations.consume(tx, id))),
      ...cancelled.map((id) => inTenant(t, shop, (tx) => reservations.release(tx, id))),
      ...Array.from({ length: 15 }, () => reserve(order(), [{ variantId: v, quantity: 2 }])),
      ...Array.from({ length: 20 }, () => adjust(t, shop, main.id, v, 2)),
      ...Array.from({ length: 10 }, () => adjust(t, shop, main.id, v, -1, 'lost')),
      ...Array.from({ length: 10 }, () => adjust(t, shop, second.id, v, 1)),
    ];
    // Shuffled so that the kinds of work really interleave.
    const settled = await Promise.allSettled(work.sort(() => Math.random() - 0.5));
    expect(settled.filter((s) => s.status === 'rejected')).toEqual([]);
    for (const s of settled) {
      const value = (s as PromiseFulfilledResult<{ statusCode?: number }>).value;
      if (value && typeof value === 'object' && 'statusCode' in value) expect(value.statusCode).toBe(200);
    }

    // on hand: 100 − 10 fulfilled + 40 − 10; reserved: 20 − 10 fulfilled − 10 released + 30 new.
    expect(await levelOf(t, shop, main.id, v)).toEqual({ on_hand: 120, reserved: 30, available: 90 });
    expect(await levelOf(t, shop, second.id, v)).toEqual({ on_hand: 30, reserved: 0, available: 30 });
    expect(await catalogQuantity(t, shop, v)).toBe(120);
    const held = (await caller(t, shop)('GET', `/api/v1/inventory/reservations?limit=100&filter[variant_id]=${v}&filter[active]=true`)).json().data;
    expect(held.reduce((s: number, r: { quantity: number }) => s + r.quantity, 0)).toBe(30);
    const sold = (await caller(t, shop)('GET', `${WAREHOUSES}/${main.id}/adjustments?limit=100&filter[variant_id]=${v}&filter[reason]=sold`)).json().data;
    expect(sold).toHaveLength(5);
    expect(sold.every((a: { delta: number; order_id: string }) => a.delta === -2 && fulfilled.includes(a.order_id))).toBe(true);
  });
});
