import { randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import catalog from '@qhatu/plugin-catalog';
import checkout from '@qhatu/plugin-checkout';
import customers from '@qhatu/plugin-customers';
import discounts from '@qhatu/plugin-discounts';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import orders from '@qhatu/plugin-orders';
import abandonedCarts from '../src/index.js';

/** A stopped clock the test moves by hand. */
export class TestClock {
  private at = Date.now();
  now = () => new Date(this.at);
  advance(ms: number) {
    this.at += ms;
  }
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
export const LIST = '/admin/abandoned-carts';
export const MISSING = '00000000-0000-4000-8000-000000000001';

export async function abandonedApp(options: { clock?: TestClock; env?: Record<string, string>; workers?: boolean } = {}): Promise<TestApp> {
  return createTestApp({
    // checkout (being extended) now depends on orders, which depends on customers and inventory.
    plugins: [media, catalog, customers, inventory, discounts, orders, checkout, abandonedCarts],
    clock: options.clock,
    workers: options.workers,
    env: { QHATU_ABANDONED_AFTER_MINUTES: '60', ...options.env },
  });
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A tenant request with its admin key (or `token`). */
export function caller(t: TestApp, tenant: TestTenant, token?: string) {
  return (method: Method, url: string, payload?: unknown) =>
    t.request({ method, url, headers: tenant.headers(token), payload: payload as InjectOptions['payload'] });
}
export type Caller = ReturnType<typeof caller>;

export interface Shop {
  tenant: TestTenant;
  admin: Caller;
  variantId: string;
}

/** A tenant with one active product at `price`. */
export async function shop(t: TestApp, price = 1000): Promise<Shop> {
  const tenant = await t.createTenant();
  const admin = caller(t, tenant);
  const res = await admin('POST', '/api/v1/catalog/products', { title: 'Alpaca scarf', variants: [{ title: 'Grey', sku: `SKU-${randomUUID().slice(0, 8)}`, price }] });
  if (res.statusCode !== 201) throw new Error(`product not created: ${res.body}`);
  return { tenant, admin, variantId: res.json().data.variants[0].id };
}

/** A cart with `quantity` of the shop's product; with `email`, also its checkout. */
export async function cartOf(s: Shop, quantity = 1, email?: string): Promise<{ cartId: string; checkoutId: string | null; total: number }> {
  const cart = await s.admin('POST', '/api/v1/checkout/carts', {});
  if (cart.statusCode !== 201) throw new Error(`cart not created: ${cart.body}`);
  const id = cart.json().data.id;
  const added = await s.admin('POST', `/api/v1/checkout/carts/${id}/items`, { variant_id: s.variantId, quantity });
  if (added.statusCode !== 201) throw new Error(`item not added: ${added.body}`);
  if (!email) return { cartId: id, checkoutId: null, total: added.json().data.total };
  const made = await s.admin('POST', '/api/v1/checkout/checkouts', { cart_id: id, email });
  if (made.statusCode !== 201) throw new Error(`checkout not made: ${made.body}`);
  return { cartId: id, checkoutId: made.json().data.id, total: made.json().data.total };
}

export interface AbandonedOut {
  id: string;
  cart_id: string;
  checkout_id: string | null;
  email: string | null;
  status: string;
  value_cents: number;
  reminder_count: number;
  recovered_by: string | null;
  recovered_value_cents: number | null;
  [key: string]: unknown;
}

export async function listAll(s: Shop, query = ''): Promise<{ data: AbandonedOut[]; metrics: Record<string, number>; meta: { pagination: Record<string, number | boolean> } }> {
  const res = await s.admin('GET', `${LIST}${query}`);
  if (res.statusCode !== 200) throw new Error(`list failed: ${res.body}`);
  return res.json();
}

export async function eventually<T>(probe: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}
