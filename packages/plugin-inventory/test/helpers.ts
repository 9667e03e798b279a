import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { InjectOptions } from 'fastify';
import { Database, type Tx } from '@qhatu/core';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import catalog from '@qhatu/plugin-catalog';
import media from '@qhatu/plugin-media';
import inventory from '../src/index.js';

/** Inventory with the catalog and the media plugin the catalog depends on. */
export async function inventoryApp(): Promise<TestApp> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'qhatu-inventory-'));
  const t = await createTestApp({ plugins: [media, catalog, inventory], env: { QHATU_DATA_DIR: dataDir } });
  const close = t.close;
  return Object.assign(t, {
    close: async () => {
      await close();
      await rm(dataDir, { recursive: true, force: true });
    },
  });
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A tenant request with its admin key (or `token`). */
export function caller(t: TestApp, tenant: TestTenant, token?: string) {
  return (method: Method, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    t.request({ method, url, headers: { ...tenant.headers(token), ...headers }, payload: payload as InjectOptions['payload'] });
}

export const WAREHOUSES = '/api/v1/inventory/warehouses';
export const MISSING = '00000000-0000-4000-8000-000000000001';

export interface WarehouseBody {
  id: string;
  code: string;
  is_default: boolean;
  is_active: boolean;
  [key: string]: unknown;
}

let codes = 0;
export async function createWarehouse(t: TestApp, tenant: TestTenant, over: Record<string, unknown> = {}): Promise<WarehouseBody> {
  const res = await caller(t, tenant)('POST', WAREHOUSES, { name: 'Main', code: `WH-${++codes}`, ...over });
  if (res.statusCode !== 201) throw new Error(`warehouse not created: ${res.body}`);
  return res.json().data;
}

/** A product with `n` variants (inventory_quantity 0); their ids in order. */
export async function createVariants(t: TestApp, tenant: TestTenant, n = 1, over: Record<string, unknown> = {}): Promise<string[]> {
  const variants = Array.from({ length: n }, (_, i) => ({ title: `V${i + 1}`, price: 1000 + i }));
  const res = await caller(t, tenant)('POST', '/api/v1/catalog/products', { title: 'Poncho', variants, ...over });
  if (res.statusCode !== 201) throw new Error(`product not created: ${res.body}`);
  return res.json().data.variants.map((v: { id: string }) => v.id);
}

export async function adjust(t: TestApp, tenant: TestTenant, warehouseId: string, variantId: string, delta: number, reason = delta > 0 ? 'received' : 'correction') {
  return caller(t, tenant)('POST', `${WAREHOUSES}/${warehouseId}/stock/adjust`, { variant_id: variantId, delta, reason });
}

/** Adds stock and fails the test if it cannot. */
export async function stock(t: TestApp, tenant: TestTenant, warehouseId: string, variantId: string, units: number) {
  const res = await adjust(t, tenant, warehouseId, variantId, units);
  if (res.statusCode !== 200) throw new Error(`stock not added: ${res.body}`);
  return res.json().data;
}

/** Runs `work` in a transaction of `tenant`, as another plugin's service would. */
export function inTenant<T>(t: TestApp, tenant: TestTenant, work: (tx: Tx) => Promise<T>): Promise<T> {
  return t.app.container.resolve(Database).tenant(work, tenant.id);
}

export interface Level {
  on_hand: number;
  reserved: number;
  available: number;
}

/** On hand, reserved and available of a variant in a warehouse (zeros without a record). */
export async function levelOf(t: TestApp, tenant: TestTenant, warehouseId: string, variantId: string): Promise<Level> {
  const res = await caller(t, tenant)('GET', `${WAREHOUSES}/${warehouseId}/stock?filter[variant_id]=${variantId}`);
  if (res.statusCode !== 200) throw new Error(`stock not read: ${res.body}`);
  const [level] = res.json().data as Level[];
  return level ? { on_hand: level.on_hand, reserved: level.reserved, available: level.available } : { on_hand: 0, reserved: 0, available: 0 };
}

/** The catalog's inventory_quantity of a variant, read through the catalog's API. */
export async function catalogQuantity(t: TestApp, tenant: TestTenant, variantId: string): Promise<number> {
  const rows = await t.app.orm.em.getConnection().execute<{ product_id: string }[]>(
    'select product_id from catalog_variant where id = ?', [variantId]);
  const res = await caller(t, tenant)('GET', `/api/v1/catalog/products/${rows[0].product_id}`);
  const variant = res.json().data.variants.find((v: { id: string }) => v.id === variantId);
  return variant.inventory_quantity;
}

/** Events of `type` in the outbox for `variantId`, oldest first. */
export async function events(t: TestApp, type: string, variantId: string) {
  return t.app.orm.em.getConnection().execute<{ data: Record<string, unknown> }[]>(
    `select data from core_outbox where type = ? and data->>'variant_id' = ? order by occurred_at, id`, [type, variantId]);
}
