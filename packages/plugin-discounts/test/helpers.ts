import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { InjectOptions } from 'fastify';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import catalog from '@qhatu/plugin-catalog';
import media from '@qhatu/plugin-media';
import discounts from '../src/index.js';

/** Discounts with the catalog and the media plugin it needs; media's local storage in a temp folder. */
export async function discountsApp(env: Record<string, string> = {}): Promise<TestApp> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'qhatu-discounts-'));
  const t = await createTestApp({ plugins: [media, catalog, discounts], env: { QHATU_DATA_DIR: dataDir, ...env } });
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
  return (method: Method, url: string, payload?: unknown) =>
    t.request({ method, url, headers: tenant.headers(token), payload: payload as InjectOptions['payload'] });
}

export type Caller = ReturnType<typeof caller>;

export async function createProduct(api: Caller, title = 'Thing', price = 1000): Promise<{ id: string }> {
  const res = await api('POST', '/api/v1/catalog/products', { title, variants: [{ title: 'One', price }] });
  if (res.statusCode !== 201) throw new Error(`product not created: ${res.body}`);
  return res.json().data;
}

export async function createCollection(api: Caller, title: string, productIds: string[] = []): Promise<{ id: string }> {
  const res = await api('POST', '/api/v1/catalog/collections', { title });
  if (res.statusCode !== 201) throw new Error(`collection not created: ${res.body}`);
  const collection = res.json().data;
  for (const productId of productIds) {
    const added = await api('POST', `/api/v1/catalog/collections/${collection.id}/products`, { product_id: productId });
    if (added.statusCode !== 201) throw new Error(`product not added: ${added.body}`);
  }
  return collection;
}

export const COUPONS = '/api/v1/discounts/coupons';
export const VOLUME = '/api/v1/discounts/volume';

let serial = 0;
/** A fresh code per call, so tests in one file never collide. */
export const code = (prefix = 'CODE') => `${prefix}${++serial}${Math.random().toString(36).slice(2, 6)}`.toUpperCase();

export async function createCoupon(api: Caller, over: Record<string, unknown> = {}) {
  const res = await api('POST', COUPONS, { code: code(), type: 'percentage', value: 1000, ...over });
  if (res.statusCode !== 201) throw new Error(`coupon not created: ${res.body}`);
  return res.json() as Coupon;
}

export interface Coupon {
  id: string;
  code: string;
  type: string;
  value: number;
  currency: string;
  uses_count: number;
  status: string;
  is_active: boolean;
  [key: string]: unknown;
}

export const MISSING = '00000000-0000-4000-8000-000000000001';
export const hours = (n: number) => new Date(Date.now() + n * 3_600_000).toISOString();
