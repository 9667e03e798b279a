import { randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { AccessTokens, Database, definePlugin, type QhatuPlugin } from '@qhatu/core';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import catalog from '@qhatu/plugin-catalog';
import customers from '@qhatu/plugin-customers';
import discounts from '@qhatu/plugin-discounts';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import orders from '@qhatu/plugin-orders';
import checkout from '../src/index.js';

/** A stopped clock the test moves by hand. */
export class TestClock {
  private at = Date.now();
  now = () => new Date(this.at);
  advance(ms: number) {
    this.at += ms;
  }
}

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/** Stands in for the payments plugin (not built): it declares the event it will publish. */
export const paymentsAnnouncer = definePlugin({ name: 'payments-announcer', events: ['payments.payment.confirmed'] });

/**
 * Checkout with the plugins it needs, and `plugins` it works with (createTestApp gives media's
 * local storage a folder of its own).
 */
export function checkoutApp(options: { clock?: TestClock; env?: Record<string, string>; workers?: boolean; plugins?: QhatuPlugin[] } = {}): Promise<TestApp> {
  return createTestApp({
    plugins: [media, catalog, customers, inventory, discounts, orders, checkout, paymentsAnnouncer, ...(options.plugins ?? [])],
    clock: options.clock,
    workers: options.workers,
    env: options.env,
  });
}

/** Polls `check` until it holds (jobs run in the background), or fails the test after `ms`. */
export async function until(check: () => Promise<boolean>, ms = 15_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('timed out waiting');
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A tenant request with its admin key (or `token`). */
export function caller(t: TestApp, tenant: TestTenant, token?: string) {
  return (method: Method, url: string, payload?: unknown) =>
    t.request({ method, url, headers: tenant.headers(token), payload: payload as InjectOptions['payload'] });
}
export type Caller = ReturnType<typeof caller>;

export const CARTS = '/api/v1/checkout/carts';
export const CHECKOUTS = '/api/v1/checkout/checkouts';
export const MISSING = '00000000-0000-4000-8000-000000000001';

export interface ProductOut {
  id: string;
  variants: Array<{ id: string; price: number; title: string }>;
}

export async function createProduct(admin: Caller, over: Record<string, unknown> = {}): Promise<ProductOut> {
  const res = await admin('POST', '/api/v1/catalog/products', { title: 'Alpaca scarf', variants: [{ title: 'Grey', sku: `SKU-${randomUUID().slice(0, 8)}`, price: 1000 }], ...over });
  if (res.statusCode !== 201) throw new Error(`product not created: ${res.body}`);
  return res.json().data;
}

let serial = 0;
export async function createCoupon(admin: Caller, over: Record<string, unknown> = {}): Promise<{ id: string; code: string }> {
  const res = await admin('POST', '/api/v1/discounts/coupons', { code: `C${++serial}${Math.random().toString(36).slice(2, 6)}`.toUpperCase(), type: 'percentage', value: 1000, ...over });
  if (res.statusCode !== 201) throw new Error(`coupon not created: ${res.body}`);
  return res.json();
}

export async function createVolumeTier(admin: Caller, productId: string, minQuantity: number, value: number): Promise<void> {
  const res = await admin('POST', '/api/v1/discounts/volume', { product_id: productId, min_quantity: minQuantity, value });
  if (res.statusCode !== 201) throw new Error(`tier not created: ${res.body}`);
}

/** A customer token for a new customer id (the customers plugin is not needed to hold one). */
export async function customerToken(t: TestApp, tenant: TestTenant, customerId = randomUUID()): Promise<{ token: string; customerId: string }> {
  const db = t.app.container.resolve(Database);
  const tokens = t.app.container.resolve(AccessTokens);
  const { token } = await db.tenant((tx) => tokens.issue(tx, { tenantId: tenant.id, kind: 'customer', subjectId: customerId }), tenant.id);
  return { token, customerId };
}

export async function createCart(api: Caller, body: Record<string, unknown> = {}): Promise<Cart> {
  const res = await api('POST', CARTS, body);
  if (res.statusCode !== 201) throw new Error(`cart not created: ${res.body}`);
  return res.json().data;
}

export async function addItem(api: Caller, cartId: string, variantId: string, quantity = 1): Promise<Cart> {
  const res = await api('POST', `${CARTS}/${cartId}/items`, { variant_id: variantId, quantity });
  if (res.statusCode !== 201) throw new Error(`item not added: ${res.body}`);
  return res.json().data;
}

/** A cart with one line of a fresh product, and its checkout. */
export async function createCheckout(api: Caller, admin: Caller, price = 1000): Promise<Checkout> {
  const product = await createProduct(admin, { variants: [{ title: 'One', price }] });
  const cart = await createCart(api);
  await addItem(api, cart.id, product.variants[0].id, 2);
  const res = await api('POST', CHECKOUTS, { cart_id: cart.id, email: 'rosa@example.com' });
  if (res.statusCode !== 201) throw new Error(`checkout not created: ${res.body}`);
  return res.json().data;
}

export const ADDRESS = {
  first_name: 'Rosa',
  last_name: 'Quispe',
  address1: 'Av. Sol 123',
  city: 'Cusco',
  province: 'Cusco',
  country_code: 'PE',
  zip: '08000',
  phone: '+51987654321',
};
export const RATE = { carrier: 'Olva', service: 'Express', price: 1500 };

export interface Cart {
  id: string;
  customer_id: string | null;
  currency: string;
  line_items: Array<{ id: string; variant_id: string; product_id: string; title: string; quantity: number; unit_price: number; volume_discount: number; total: number }>;
  item_count: number;
  subtotal: number;
  discount_total: number;
  total: number;
  coupon: { code: string; applies: boolean; reason: string | null; discount_amount: number } | null;
  checkout_id: string | null;
  expires_at: string;
  updated_at: string;
}

export interface Checkout {
  id: string;
  cart_id: string;
  status: string;
  subtotal: number;
  shipping_total: number;
  discount_total: number;
  tax_total: number;
  total: number;
  [key: string]: unknown;
}
