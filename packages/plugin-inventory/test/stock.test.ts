import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Reservations } from '../src/index.js';
import { adjust, caller, catalogQuantity, createVariants, createWarehouse, events, inTenant, inventoryApp, levelOf, MISSING, stock, WAREHOUSES } from './helpers.js';

let t: TestApp;
let shop: TestTenant;
let api: ReturnType<typeof caller>;
let main: { id: string };
let url: string;
beforeAll(async () => {
  t = await inventoryApp();
  shop = await t.createTenant();
  api = caller(t, shop);
  main = await createWarehouse(t, shop, { code: 'MAIN' });
  url = `${WAREHOUSES}/${main.id}/stock/adjust`;
});
afterAll(async () => t?.close());

describe('POST /inventory/warehouses/:id/stock/adjust', () => {
  it('adds and removes units, answering the audited adjustment, and keeps the catalog quantity', async () => {
    const [v] = await createVariants(t, shop);
    const added = await api('POST', url, { variant_id: v, delta: 12, reason: 'received', note: 'PO-1001' });
    expect(added.statusCode).toBe(200);
    expect(added.json().data).toEqual({
      id: expect.any(String),
      warehouse_id: main.id,
      variant_id: v,
      delta: 12,
      reason: 'received',
      note: 'PO-1001',
      previous_quantity: 0,
      quantity: 12,
      available: 12,
      order_id: null,
      actor: { kind: 'admin', token_id: expect.stringMatching(/^[0-9a-f-]{36}$/) },
      created_at: expect.any(String),
    });
    expect(await catalogQuantity(t, shop, v)).toBe(12);
    const removed = (await api('POST', url, { variant_id: v, delta: -5, reason: 'damaged', note: '' })).json().data;
    expect(removed).toMatchObject({ delta: -5, previous_quantity: 12, quantity: 7, available: 7, note: null });
    expect(await catalogQuantity(t, shop, v)).toBe(7);
    expect(await levelOf(t, shop, main.id, v)).toEqual({ on_hand: 7, reserved: 0, available: 7 });
  });

  it('refuses to go below what is available, reservations included (409 INSUFFICIENT_STOCK)', async () => {
    const [v] = await createVariants(t, shop);
    await stock(t, shop, main.id, v, 5);
    await inTenant(t, shop, (tx) => t.app.container.resolve(Reservations).reserve(tx, { orderId: crypto.randomUUID(), lines: [{ variantId: v, quantity: 3 }] }));
    const res = await adjust(t, shop, main.id, v, -3, 'lost');
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toEqual({
      code: 'INSUFFICIENT_STOCK',
      message: expect.stringContaining(v),
      details: [{ path: 'body.delta', message: '3 requested, 2 available', variant_id: v, warehouse_id: main.id, requested: 3, available: 2 }],
    });
    expect((await adjust(t, shop, main.id, v, -2, 'lost')).json().data).toMatchObject({ quantity: 3, available: 0 });
    expect(await levelOf(t, shop, main.id, v)).toEqual({ on_hand: 3, reserved: 3, available: 0 });
    expect(await catalogQuantity(t, shop, v)).toBe(0);
    // A variant the warehouse never had: nothing to remove.
    const [fresh] = await createVariants(t, shop);
    expect((await adjust(t, shop, main.id, fresh, -1)).json().error.details[0].available).toBe(0);
  });

  it('refuses a variant that is not one of the store (422 VARIANT_NOT_FOUND) and an unknown warehouse (404)', async () => {
    const other = await t.createTenant();
    const [theirs] = await createVariants(t, other);
    for (const variant_id of [theirs, MISSING]) {
      const res = await api('POST', url, { variant_id, delta: 1, reason: 'received' });
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toMatchObject({ code: 'VARIANT_NOT_FOUND', details: [{ path: 'body.variant_id', variant_id }] });
    }
    const [v] = await createVariants(t, shop);
    const res = await api('POST', `${WAREHOUSES}/${MISSING}/stock/adjust`, { variant_id: v, delta: 1, reason: 'received' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('WAREHOUSE_NOT_FOUND');
    expect((await api('POST', `${WAREHOUSES}/nope/stock/adjust`, { variant_id: v, delta: 1, reason: 'received' })).statusCode).toBe(400);
    expect(await levelOf(t, shop, main.id, v)).toEqual({ on_hand: 0, reserved: 0, available: 0 });
  });

  it.each([
    [{ delta: 1, reason: 'received' }, 'body.variant_id'],
    [{ variant_id: 'abc', delta: 1, reason: 'received' }, 'body.variant_id'],
    [{ variant_id: '$V', reason: 'received' }, 'body.delta'],
    [{ variant_id: '$V', delta: 0, reason: 'correction' }, 'body.delta'],
    [{ variant_id: '$V', delta: 1.5, reason: 'received' }, 'body.delta'],
    [{ variant_id: '$V', delta: '5', reason: 'received' }, 'body.delta'],
    [{ variant_id: '$V', delta: 1_000_000_001, reason: 'received' }, 'body.delta'],
    [{ variant_id: '$V', delta: 1 }, 'body.reason'],
    [{ variant_id: '$V', delta: 1, reason: 'found' }, 'body.reason'],
    [{ variant_id: '$V', delta: -1, reason: 'received' }, 'body.delta'],
    [{ variant_id: '$V', delta: -1, reason: 'returned' }, 'body.delta'],
    [{ variant_id: '$V', delta: 1, reason: 'damaged' }, 'body.delta'],
    [{ variant_id: '$V', delta: 1, reason: 'sold' }, 'body.delta'],
    [{ variant_id: '$V', delta: 1, reason: 'lost' }, 'body.delta'],
    [{ variant_id: '$V', delta: 1, reason: 'received', note: 7 }, 'body.note'],
    [{ variant_id: '$V', delta: 1, reason: 'received', note: 'x'.repeat(1001) }, 'body.note'],
    [{ variant_id: '$V', delta: 1, reason: 'received', warehouse_id: MISSING }, 'body'],
  ])('refuses %j (%s)', async (payload, path) => {
    const [v] = await createVariants(t, shop);
    const body = { ...payload, ...('variant_id' in payload && payload.variant_id === '$V' ? { variant_id: v } : {}) };
    const res = await api('POST', url, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
    expect(res.json().error.details.map((d: { path: string }) => d.path).join(' ')).toContain(path);
    expect(await levelOf(t, shop, main.id, v)).toEqual({ on_hand: 0, reserved: 0, available: 0 });
  });

  it('accepts correction, transfer and other either way', async () => {
    const [v] = await createVariants(t, shop);
    for (const [delta, reason] of [[5, 'correction'], [-1, 'correction'], [3, 'transfer'], [-2, 'transfer'], [1, 'other'], [-1, 'other'], [2, 'returned'], [-1, 'sold']] as const) {
      expect((await adjust(t, shop, main.id, v, delta, reason)).statusCode, `${reason} ${delta}`).toBe(200);
    }
    expect(await levelOf(t, shop, main.id, v)).toMatchObject({ on_hand: 6 });
  });

  it('refuses more than 1,000,000,000 units in one warehouse (422 QUANTITY_TOO_LARGE)', async () => {
    const [v] = await createVariants(t, shop);
    await stock(t, shop, main.id, v, 1_000_000_000);
    const res = await adjust(t, shop, main.id, v, 1);
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('QUANTITY_TOO_LARGE');
    expect(await catalogQuantity(t, shop, v)).toBe(1_000_000_000);
  });

  it('does the work once for a repeated Idempotency-Key', async () => {
    const [v] = await createVariants(t, shop);
    const body = { variant_id: v, delta: 4, reason: 'received' };
    const first = await api('POST', url, body, { 'idempotency-key': `adj-${v}` });
    const again = await api('POST', url, body, { 'idempotency-key': `adj-${v}` });
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(await levelOf(t, shop, main.id, v)).toMatchObject({ on_hand: 4 });
    const reused = await api('POST', url, { ...body, delta: 5 }, { 'idempotency-key': `adj-${v}` });
    expect(reused.statusCode).toBe(409);
    expect(reused.json().error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('publishes inventory.stock.adjusted, and inventory.stock.depleted when available reaches 0', async () => {
    const [v] = await createVariants(t, shop);
    const a = (await stock(t, shop, main.id, v, 2)).id;
    await adjust(t, shop, main.id, v, -2, 'sold');
    await adjust(t, shop, main.id, v, 1);
    const adjusted = await events(t, 'inventory.stock.adjusted', v);
    expect(adjusted.map((e) => e.data.delta)).toEqual([2, -2, 1]);
    expect(adjusted[0].data).toEqual({ adjustment_id: a, warehouse_id: main.id, variant_id: v, delta: 2, quantity: 2, available: 2, reason: 'received', order_id: null });
    const depleted = await events(t, 'inventory.stock.depleted', v);
    expect(depleted.map((e) => e.data)).toEqual([{ warehouse_id: main.id, variant_id: v, on_hand: 0, reserved: 0, available: 0, inventory_quantity: 0 }]);
    // Only a record that had units runs out: a refused removal or an empty record publishes nothing.
    await adjust(t, shop, main.id, v, -5, 'lost');
    expect(await events(t, 'inventory.stock.depleted', v)).toHaveLength(1);
  });

  it('writes its statements in a small fixed budget', async () => {
    const [v] = await createVariants(t, shop);
    await stock(t, shop, main.id, v, 3);
    const { result, count, statements } = await t.countQueries(() => adjust(t, shop, main.id, v, 1));
    expect(result.statusCode).toBe(200);
    // BEGIN with the tenant context, warehouse, variant, stock, inactive warehouses, the product and its variants
    // (for products.product.updated), update stock, insert adjustment, update variant, insert
    // events, COMMIT.
    expect(count, statements.join('\n')).toBeLessThanOrEqual(12);
    expect(statements.some((s) => /for share/i.test(s))).toBe(true);
    expect(statements.filter((s) => /for update/i.test(s))).toHaveLength(2);
  });
});

describe('products.product.updated on stock changes', () => {
  it('tells receivers the new stock of the product (the specification event carries `stock`)', async () => {
    const [a, b] = await createVariants(t, shop, 2);
    const productId = (await api('GET', `/api/v1/catalog/products?limit=1`)).json().data[0].id as string;
    await adjust(t, shop, main.id, a, 7);
    await adjust(t, shop, main.id, b, 3);
    const updates = await t.app.orm.em.getConnection().execute<{ data: { id: string; stock: number; name: string } }[]>(
      `select data from core_outbox where type = 'products.product.updated' and data->>'id' = ? order by occurred_at, id`, [productId]);
    expect(updates.map((u) => u.data.stock)).toEqual([7, 10]);
    expect(updates[1].data).toMatchObject({ id: productId, name: 'Poncho', sku: null, price: 1000 });
  });
});

describe('a catalog change and the stock', () => {
  it('the catalog refuses inventory_quantity: the warehouses keep the stock', async () => {
    const [v] = await createVariants(t, shop);
    await stock(t, shop, main.id, v, 3);
    const productId = (await t.app.orm.em.getConnection().execute<{ product_id: string }[]>('select product_id from catalog_variant where id = ?', [v]))[0].product_id;
    const patch = await api('PATCH', `/api/v1/catalog/products/${productId}/variants/${v}`, { inventory_quantity: 99 });
    expect(patch.statusCode).toBe(400);
    expect(patch.json().error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'body.inventory_quantity' }] });
    expect(patch.json().error.message).toContain('/api/v1/inventory/warehouses/:id/stock/adjust');
    const created = await api('POST', '/api/v1/catalog/products', { title: 'Chullo', variants: [{ title: 'A', price: 100 }, { title: 'B', price: 100, inventory_quantity: 5 }] });
    expect(created.statusCode).toBe(400);
    expect(created.json().error.details.map((d: { path: string }) => d.path)).toEqual(['body.variants.1.inventory_quantity']);
    const added = await api('POST', `/api/v1/catalog/products/${productId}/variants`, { title: 'XL', price: 100, inventory_quantity: 1 });
    expect(added.statusCode).toBe(400);
    // Other edits of the variant go through, and the stock stays the warehouses' sum.
    expect((await api('PATCH', `/api/v1/catalog/products/${productId}/variants/${v}`, { price: 4200 })).statusCode).toBe(200);
    expect(await catalogQuantity(t, shop, v)).toBe(3);
  });

  it('a variant deleted from the catalog takes its stock records, not the adjustment trail', async () => {
    const [keep, drop] = await createVariants(t, shop, 2);
    await stock(t, shop, main.id, keep, 1);
    await stock(t, shop, main.id, drop, 2);
    const productId = (await t.app.orm.em.getConnection().execute<{ product_id: string }[]>('select product_id from catalog_variant where id = ?', [drop]))[0].product_id;
    expect((await api('DELETE', `/api/v1/catalog/products/${productId}/variants/${drop}`)).statusCode).toBe(204);
    expect((await api('GET', `${WAREHOUSES}/${main.id}/stock?filter[variant_id]=${drop}`)).json().data).toEqual([]);
    expect((await api('GET', `${WAREHOUSES}/${main.id}/adjustments?filter[variant_id]=${drop}`)).json().data).toHaveLength(1);
  });
});

describe('GET /inventory/warehouses/:id/adjustments and /stock', () => {
  it('list the trail newest first and the stock records, with filters and cursors', async () => {
    const w = await createWarehouse(t, shop, { code: 'LISTS' });
    const [a, b] = await createVariants(t, shop, 2);
    await stock(t, shop, w.id, a, 10);
    await stock(t, shop, w.id, b, 1);
    await adjust(t, shop, w.id, a, -4, 'damaged');
    await adjust(t, shop, w.id, a, 2, 'returned');
    const trail = (await api('GET', `${WAREHOUSES}/${w.id}/adjustments`)).json();
    expect(trail.data.map((x: { delta: number }) => x.delta)).toEqual([2, -4, 1, 10]);
    expect(trail.meta.pagination).toEqual({ cursor: null, has_next: false, limit: 25 });
    const deltas = async (qs: string) => (await api('GET', `${WAREHOUSES}/${w.id}/adjustments?${qs}`)).json().data.map((x: { delta: number }) => x.delta);
    expect(await deltas(`filter[variant_id]=${a}`)).toEqual([2, -4, 10]);
    expect(await deltas('filter[reason]=damaged')).toEqual([-4]);
    expect(await deltas('sort=created_at')).toEqual([10, 1, -4, 2]);
    expect(await deltas(`filter[order_id]=${MISSING}`)).toEqual([]);
    const page1 = (await api('GET', `${WAREHOUSES}/${w.id}/adjustments?limit=3`)).json();
    expect(page1.meta.pagination.has_next).toBe(true);
    const page2 = (await api('GET', `${WAREHOUSES}/${w.id}/adjustments?limit=3&cursor=${encodeURIComponent(page1.meta.pagination.cursor)}`)).json();
    expect(page2.data.map((x: { delta: number }) => x.delta)).toEqual([10]);
    expect((await api('GET', `${WAREHOUSES}/${w.id}/adjustments?limit=500`)).json().meta.pagination.limit).toBe(100);

    const levels = (await api('GET', `${WAREHOUSES}/${w.id}/stock?sort=-on_hand`)).json();
    expect(levels.data.map((l: { variant_id: string; on_hand: number }) => [l.variant_id, l.on_hand])).toEqual([[a, 8], [b, 1]]);
    expect((await api('GET', `${WAREHOUSES}/${w.id}/stock?limit=1`)).json().meta.pagination.has_next).toBe(true);

    for (const qs of ['filter[variant_id]=x', 'filter[reason]=found', 'filter[warehouse_id]=' + MISSING, 'sort=delta', 'limit=-1', 'cursor=%%%']) {
      expect((await api('GET', `${WAREHOUSES}/${w.id}/adjustments?${qs}`)).statusCode, qs).toBe(400);
    }
    for (const qs of ['filter[variant_id]=x', 'filter[sku]=x', 'sort=sku', 'limit=abc']) {
      expect((await api('GET', `${WAREHOUSES}/${w.id}/stock?${qs}`)).statusCode, qs).toBe(400);
    }
    expect((await api('GET', `${WAREHOUSES}/${MISSING}/stock`)).json().error.code).toBe('WAREHOUSE_NOT_FOUND');
    expect((await api('GET', `${WAREHOUSES}/x/stock`)).statusCode).toBe(400);
  });
});
