import type { TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDayHours } from '../src/schemas/warehouse.js';
import { caller, catalogQuantity, createVariants, createWarehouse, inventoryApp, MISSING, stock, WAREHOUSES } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await inventoryApp();
});
afterAll(async () => t?.close());

const full = {
  name: 'Lima central',
  code: 'lim-01',
  location_type: 'store',
  address: { line1: 'Av. Larco 123', city: 'Lima', state: 'Lima', postal_code: '15074', country: 'PE' },
  phone: '+51 1 555 0101',
  email: 'lima@shop.example',
  latitude: -12.1211,
  longitude: -77.0297,
  operating_hours: { mon: '09:00-18:00', sat: '10:00-14:00', sun: 'closed' },
  fulfills_online_orders: false,
  allows_pickup: true,
};

describe('POST /inventory/warehouses', () => {
  it('creates a warehouse with every field, its code in upper case; the first one is the default', async () => {
    const shop = await t.createTenant();
    const res = await caller(t, shop)('POST', WAREHOUSES, { ...full, is_default: false });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toEqual({
      ...full,
      id: expect.any(String),
      code: 'LIM-01',
      is_active: true,
      is_default: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const second = await createWarehouse(t, shop, { name: 'Cusco', code: 'cus' });
    expect(second).toMatchObject({
      code: 'CUS', location_type: 'warehouse', address: null, phone: null, email: null, latitude: null, longitude: null,
      operating_hours: {}, fulfills_online_orders: true, allows_pickup: false, is_active: true, is_default: false,
    });
  });

  it('makes a new warehouse the default and unsets the old one in the same transaction', async () => {
    const shop = await t.createTenant();
    const api = caller(t, shop);
    const first = await createWarehouse(t, shop);
    const second = await createWarehouse(t, shop, { is_default: true });
    expect(second.is_default).toBe(true);
    const list = (await api('GET', WAREHOUSES)).json().data as Array<{ id: string; is_default: boolean }>;
    expect(list.map((w) => [w.id, w.is_default])).toEqual([[first.id, false], [second.id, true]]);
    expect((await api('GET', `${WAREHOUSES}?filter[is_default]=true`)).json().data.map((w: { id: string }) => w.id)).toEqual([second.id]);
  });

  it('refuses a taken code in any case (409 WAREHOUSE_CODE_TAKEN)', async () => {
    const shop = await t.createTenant();
    await createWarehouse(t, shop, { code: 'BOD-1' });
    const res = await caller(t, shop)('POST', WAREHOUSES, { name: 'Other', code: 'bod-1' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({ code: 'WAREHOUSE_CODE_TAKEN', details: [{ path: 'body.code' }] });
    // Codes are per store.
    expect((await createWarehouse(t, await t.createTenant(), { code: 'BOD-1' })).code).toBe('BOD-1');
  });

  it('gives one of two racing requests for the same code a 409 WAREHOUSE_CODE_TAKEN', async () => {
    const shop = await t.createTenant();
    const api = caller(t, shop);
    const answers = await Promise.all(Array.from({ length: 4 }, (_, i) => api('POST', WAREHOUSES, { name: `Race ${i}`, code: 'RACE' })));
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 409, 409, 409]);
    for (const a of answers.filter((x) => x.statusCode === 409)) expect(a.json().error.code).toBe('WAREHOUSE_CODE_TAKEN');
  });

  it('keeps exactly one default when the first warehouses are created at once', async () => {
    const shop = await t.createTenant();
    const api = caller(t, shop);
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => api('POST', WAREHOUSES, { name: `W${i}`, code: `FIRST-${i}` })));
    expect(answers.every((a) => a.statusCode === 201)).toBe(true);
    const list = (await api('GET', WAREHOUSES)).json().data as Array<{ is_default: boolean; created_at: string }>;
    expect(list.filter((w) => w.is_default)).toHaveLength(1);
  });

  it('refuses an inactive default (409 DEFAULT_WAREHOUSE_INACTIVE)', async () => {
    const shop = await t.createTenant();
    const first = await caller(t, shop)('POST', WAREHOUSES, { name: 'Off', code: 'OFF', is_active: false });
    expect(first.statusCode).toBe(409);
    expect(first.json().error.code).toBe('DEFAULT_WAREHOUSE_INACTIVE');
    await createWarehouse(t, shop);
    expect((await caller(t, shop)('POST', WAREHOUSES, { name: 'Off', code: 'OFF', is_active: false, is_default: true })).json().error.code).toBe('DEFAULT_WAREHOUSE_INACTIVE');
    expect((await createWarehouse(t, shop, { code: 'OFF', is_active: false })).is_active).toBe(false);
  });

  it.each([
    [{}, 'body.name'],
    [{ name: 'x' }, 'body.code'],
    [{ name: '', code: 'A' }, 'body.name'],
    [{ name: 42, code: 'A' }, 'body.name'],
    [{ name: 'x', code: '' }, 'body.code'],
    [{ name: 'x', code: 'has space' }, 'body.code'],
    [{ name: 'x', code: '-LEADING' }, 'body.code'],
    [{ name: 'x', code: 'Ñ1' }, 'body.code'],
    [{ name: 'x', code: 'A'.repeat(33) }, 'body.code'],
    [{ name: 'x', code: 'A', location_type: 'garage' }, 'body.location_type'],
    [{ name: 'x', code: 'A', address: { line1: 'x', zip: '1' } }, 'body.address'],
    [{ name: 'x', code: 'A', address: { country: 'Peru' } }, 'body.address.country'],
    [{ name: 'x', code: 'A', address: 'Lima' }, 'body.address'],
    [{ name: 'x', code: 'A', phone: 'call me' }, 'body.phone'],
    [{ name: 'x', code: 'A', email: 'lima-at-shop' }, 'body.email'],
    [{ name: 'x', code: 'A', latitude: 91, longitude: 0 }, 'body.latitude'],
    [{ name: 'x', code: 'A', latitude: 0, longitude: -181 }, 'body.longitude'],
    [{ name: 'x', code: 'A', latitude: '12.1', longitude: 0 }, 'body.latitude'],
    [{ name: 'x', code: 'A', latitude: 12.1 }, 'body.longitude'],
    [{ name: 'x', code: 'A', operating_hours: { mon: '9:00-18:00' } }, 'body.operating_hours.mon'],
    [{ name: 'x', code: 'A', operating_hours: { mon: '18:00-09:00' } }, 'body.operating_hours.mon'],
    [{ name: 'x', code: 'A', operating_hours: { mon: '09:00-09:00' } }, 'body.operating_hours.mon'],
    [{ name: 'x', code: 'A', operating_hours: { tue: '25:00-26:00' } }, 'body.operating_hours.tue'],
    [{ name: 'x', code: 'A', operating_hours: { wed: '09:60-10:00' } }, 'body.operating_hours.wed'],
    [{ name: 'x', code: 'A', operating_hours: { thu: 'Closed' } }, 'body.operating_hours.thu'],
    [{ name: 'x', code: 'A', operating_hours: { fri: null } }, 'body.operating_hours.fri'],
    [{ name: 'x', code: 'A', operating_hours: { monday: '09:00-18:00' } }, 'body.operating_hours'],
    [{ name: 'x', code: 'A', operating_hours: ['09:00-18:00'] }, 'body.operating_hours'],
    [{ name: 'x', code: 'A', allows_pickup: 'yes' }, 'body.allows_pickup'],
    [{ name: 'x', code: 'A', is_default: 1 }, 'body.is_default'],
    [{ name: 'x', code: 'A', stock: [] }, 'body'],
  ])('refuses %j (%s)', async (payload, path) => {
    const shop = await t.createTenant();
    const res = await caller(t, shop)('POST', WAREHOUSES, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
    expect(res.json().error.details.map((d: { path: string }) => d.path).join(' ')).toContain(path);
  });

  it('reads operating hours as real times, opening before closing, 24:00 allowed as closing', () => {
    expect(['00:00-24:00', '09:00-18:00', '23:00-23:59', 'closed'].every(isDayHours)).toBe(true);
    expect(['24:00-24:00', '00:00-00:00', '12:00-11:59', '24:01-24:02', '09:00-18:00 ', '9:00-18:00', '', 'CLOSED'].some(isDayHours)).toBe(false);
  });
});

describe('one warehouse', () => {
  it('reads with its stock per variant, replaces with PUT and deletes when empty', async () => {
    const shop = await t.createTenant();
    const api = caller(t, shop);
    await createWarehouse(t, shop, { code: 'DEF' });
    const w = await createWarehouse(t, shop, { ...full, code: 'lim-2' });
    const url = `${WAREHOUSES}/${w.id}`;
    const [a, b] = await createVariants(t, shop, 2, { variants: [{ title: 'S', sku: 'PON-S', price: 10 }, { title: 'M', sku: 'PON-M', price: 10 }] });
    await stock(t, shop, w.id, a, 7);
    await stock(t, shop, w.id, b, 2);

    const read = await api('GET', url);
    expect(read.statusCode).toBe(200);
    expect(read.json().data).toMatchObject({ code: 'LIM-2', name: full.name, is_default: false });
    expect(read.json().data.stock).toEqual([
      { warehouse_id: w.id, variant_id: a, product_id: expect.any(String), sku: 'PON-S', on_hand: 7, reserved: 0, available: 7, updated_at: expect.any(String) },
      { warehouse_id: w.id, variant_id: b, product_id: expect.any(String), sku: 'PON-M', on_hand: 2, reserved: 0, available: 2, updated_at: expect.any(String) },
    ]);

    const put = await api('PUT', url, { name: 'Lima 2', code: 'lima-2', operating_hours: { mon: '08:00-24:00' } });
    expect(put.statusCode).toBe(200);
    expect(put.json().data).toMatchObject({
      name: 'Lima 2', code: 'LIMA-2', location_type: 'warehouse', address: null, phone: null, email: null, latitude: null,
      operating_hours: { mon: '08:00-24:00' }, allows_pickup: false, fulfills_online_orders: true, is_active: true, is_default: false,
    });
    expect(put.json().data.stock).toHaveLength(2);
    expect((await api('PUT', url, { name: 'No code' })).statusCode).toBe(400);
    expect((await api('PUT', url, { name: 'x', code: 'DEF' })).json().error.code).toBe('WAREHOUSE_CODE_TAKEN');
    expect((await api('PUT', url, { name: 'Same code', code: 'LIMA-2' })).statusCode).toBe(200);

    const busy = await api('DELETE', url);
    expect(busy.statusCode).toBe(409);
    expect(busy.json().error).toMatchObject({ code: 'WAREHOUSE_HAS_STOCK', details: [{ variants: 2 }] });
    await api('POST', `${url}/stock/adjust`, { variant_id: a, delta: -7, reason: 'transfer' });
    expect((await api('DELETE', url)).json().error.details[0].variants).toBe(1);
    await api('POST', `${url}/stock/adjust`, { variant_id: b, delta: -2, reason: 'lost' });
    expect((await api('DELETE', url)).statusCode).toBe(204);
    const gone = await api('GET', url);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().error.code).toBe('WAREHOUSE_NOT_FOUND');
    expect((await api('PUT', url, { name: 'x', code: 'X' })).statusCode).toBe(404);
    expect((await api('DELETE', url)).statusCode).toBe(404);
    expect((await api('GET', `${url}/adjustments`)).statusCode).toBe(404);
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const res = await api(method, `${WAREHOUSES}/not-a-uuid`, method === 'PUT' ? { name: 'x', code: 'X' } : undefined);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('switches the default with PUT and never leaves the store without one', async () => {
    const shop = await t.createTenant();
    const api = caller(t, shop);
    const first = await createWarehouse(t, shop, { code: 'ONE' });
    const second = await createWarehouse(t, shop, { code: 'TWO' });

    // Absent is_default keeps it: a PUT of the default without the field leaves it the default.
    expect((await api('PUT', `${WAREHOUSES}/${first.id}`, { name: 'One', code: 'ONE' })).json().data.is_default).toBe(true);
    const unset = await api('PUT', `${WAREHOUSES}/${first.id}`, { name: 'One', code: 'ONE', is_default: false });
    expect(unset.statusCode).toBe(409);
    expect(unset.json().error).toMatchObject({ code: 'DEFAULT_WAREHOUSE_REQUIRED', details: [{ path: 'body.is_default' }] });
    const off = await api('PUT', `${WAREHOUSES}/${first.id}`, { name: 'One', code: 'ONE', is_active: false });
    expect(off.json().error.code).toBe('DEFAULT_WAREHOUSE_INACTIVE');

    const moved = await api('PUT', `${WAREHOUSES}/${second.id}`, { name: 'Two', code: 'TWO', is_default: true });
    expect(moved.json().data.is_default).toBe(true);
    expect((await api('GET', `${WAREHOUSES}/${first.id}`)).json().data.is_default).toBe(false);

    // Switching back and forth at once ends with exactly one default.
    await Promise.all(Array.from({ length: 6 }, (_, i) => {
      const w = i % 2 ? first : second;
      return api('PUT', `${WAREHOUSES}/${w.id}`, { name: 'W', code: w.code, is_default: true });
    }));
    expect((await api('GET', `${WAREHOUSES}?filter[is_default]=true`)).json().data).toHaveLength(1);
  });

  it('deletes the default only when it is the last warehouse (409 WAREHOUSE_IS_DEFAULT)', async () => {
    const shop = await t.createTenant();
    const api = caller(t, shop);
    const first = await createWarehouse(t, shop);
    const second = await createWarehouse(t, shop);
    const refused = await api('DELETE', `${WAREHOUSES}/${first.id}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.code).toBe('WAREHOUSE_IS_DEFAULT');
    expect((await api('DELETE', `${WAREHOUSES}/${second.id}`)).statusCode).toBe(204);
    expect((await api('DELETE', `${WAREHOUSES}/${first.id}`)).statusCode).toBe(204);
    // With none left, the next one created is the default again.
    expect((await createWarehouse(t, shop)).is_default).toBe(true);
  });

  it("takes an inactive warehouse's stock out of the catalog's inventory_quantity and back", async () => {
    const shop = await t.createTenant();
    const api = caller(t, shop);
    const main = await createWarehouse(t, shop);
    const popup = await createWarehouse(t, shop, { code: 'POP', location_type: 'popup' });
    const [v] = await createVariants(t, shop);
    await stock(t, shop, main.id, v, 4);
    await stock(t, shop, popup.id, v, 6);
    expect(await catalogQuantity(t, shop, v)).toBe(10);
    expect((await api('PUT', `${WAREHOUSES}/${popup.id}`, { name: 'Pop', code: 'POP', is_active: false })).json().data).toMatchObject({ is_active: false, stock: [{ on_hand: 6 }] });
    expect(await catalogQuantity(t, shop, v)).toBe(4);
    await stock(t, shop, popup.id, v, 1); // counting stock in an inactive warehouse is allowed
    expect(await catalogQuantity(t, shop, v)).toBe(4);
    expect((await api('GET', `${WAREHOUSES}?filter[is_active]=false`)).json().data.map((w: { id: string }) => w.id)).toEqual([popup.id]);
    await api('PUT', `${WAREHOUSES}/${popup.id}`, { name: 'Pop', code: 'POP' });
    expect(await catalogQuantity(t, shop, v)).toBe(11);
  });
});

describe('GET /inventory/warehouses', () => {
  it('lists by creation, filters, searches names and codes, pages by cursor', async () => {
    const shop = await t.createTenant();
    const api = caller(t, shop);
    const made = [];
    for (const [name, code, extra] of [
      ['Lima', 'LIM', { allows_pickup: true, location_type: 'store' }],
      ['Arequipa', 'AQP', {}],
      ['Cusco', 'CUS', { allows_pickup: true, location_type: 'pickup_point' }],
      ['Trujillo', 'TRU', { fulfills_online_orders: false }],
    ] as const) made.push(await createWarehouse(t, shop, { name, code, ...extra }));

    const all = (await api('GET', WAREHOUSES)).json();
    expect(all.data.map((w: { code: string }) => w.code)).toEqual(['LIM', 'AQP', 'CUS', 'TRU']);
    expect(all.meta.pagination).toEqual({ cursor: null, has_next: false, limit: 25 });
    const codes = async (qs: string) => (await api('GET', `${WAREHOUSES}?${qs}`)).json().data.map((w: { code: string }) => w.code);
    expect(await codes('sort=name')).toEqual(['AQP', 'CUS', 'LIM', 'TRU']);
    expect(await codes('sort=-code')).toEqual(['TRU', 'LIM', 'CUS', 'AQP']);
    expect(await codes('filter[allows_pickup]=true')).toEqual(['LIM', 'CUS']);
    expect(await codes('filter[location_type]=pickup_point')).toEqual(['CUS']);
    expect(await codes('filter[fulfills_online_orders]=false')).toEqual(['TRU']);
    expect(await codes('q=aqp')).toEqual(['AQP']);
    expect(await codes('q=USC')).toEqual(['CUS']);
    expect(await codes('q=%25')).toEqual([]);

    const first = (await api('GET', `${WAREHOUSES}?limit=3`)).json();
    expect(first.meta.pagination).toMatchObject({ has_next: true, limit: 3 });
    const second = (await api('GET', `${WAREHOUSES}?limit=3&cursor=${encodeURIComponent(first.meta.pagination.cursor)}`)).json();
    expect(second.data.map((w: { code: string }) => w.code)).toEqual(['TRU']);
    expect((await api('GET', `${WAREHOUSES}?limit=1000`)).json().meta.pagination.limit).toBe(100);
    for (const qs of ['limit=0', 'limit=x', 'filter[city]=Lima', 'filter[is_active]=yes', 'filter[location_type]=garage', 'sort=phone', 'q=', 'cursor=x', 'page=2']) {
      const res = await api('GET', `${WAREHOUSES}?${qs}`);
      expect(res.statusCode, qs).toBe(400);
      expect(res.json().error.code, qs).toBe('VALIDATION_ERROR');
    }
  });
});

describe('warehouse events', () => {
  it('publish created, updated (the old default too) and deleted', async () => {
    const shop = await t.createTenant();
    const api = caller(t, shop);
    const first = await createWarehouse(t, shop, { code: 'EV-1' });
    const second = await createWarehouse(t, shop, { code: 'EV-2', is_default: true });
    await api('DELETE', `${WAREHOUSES}/${first.id}`);
    const rows = await t.app.orm.em.getConnection().execute<{ type: string; data: Record<string, unknown> }[]>(
      `select type, data from core_outbox where tenant_id = ? and type like 'inventory.warehouse.%' order by occurred_at, type`, [shop.id]);
    expect(rows.map((r) => `${r.type} ${r.data.id}`).sort()).toEqual([
      `inventory.warehouse.created ${first.id}`,
      `inventory.warehouse.created ${second.id}`,
      `inventory.warehouse.deleted ${first.id}`,
      `inventory.warehouse.updated ${first.id}`,
    ].sort());
    expect(rows.find((r) => r.type === 'inventory.warehouse.updated')!.data).toMatchObject({ code: 'EV-1', is_default: false });
    expect(rows.find((r) => r.type === 'inventory.warehouse.deleted')!.data).toEqual({ id: first.id, code: 'EV-1', deleted_at: expect.any(String) });
  });
});

it('answers 404 for an unknown warehouse id', async () => {
  const shop = await t.createTenant();
  expect((await caller(t, shop)('GET', `${WAREHOUSES}/${MISSING}`)).json().error.code).toBe('WAREHOUSE_NOT_FOUND');
});
