import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { InjectOptions } from 'fastify';
import { Database, definePlugin, TenantContext, type QhatuPlugin, type Tx } from '@qhatu/core';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import catalog from '@qhatu/plugin-catalog';
import customers from '@qhatu/plugin-customers';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import orders, { Orders } from '../src/index.js';

/** Stands in for the payments plugin: it announces the event the orders plugin listens to. */
export const paymentsAnnouncer = definePlugin({ name: 'payments-announcer', events: ['payments.payment.confirmed'] });

/** Orders with everything it depends on, each test file on its own database. */
export async function ordersApp(options: { workers?: boolean; plugins?: QhatuPlugin[]; env?: Record<string, string> } = {}): Promise<TestApp> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'qhatu-orders-'));
  const t = await createTestApp({
    plugins: [media, catalog, customers, inventory, orders, paymentsAnnouncer, ...(options.plugins ?? [])],
    workers: options.workers,
    env: { QHATU_DATA_DIR: dataDir, ...options.env },
  });
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

export const ORDERS = '/api/v1/orders';
export const MISSING = '00000000-0000-4000-8000-000000000001';

export const ADDRESS = { first_name: 'Rosa', last_name: 'Quispe', address1: 'Av. Sol 123', city: 'Cusco', country_code: 'PE', zip: '08002' };

export interface VariantRef {
  id: string;
  product_id: string;
  price: number;
}

/** A product with variants priced `prices`; its variants. */
export async function createVariants(t: TestApp, tenant: TestTenant, prices: number[], over: Record<string, unknown> = {}, variantOver: Record<string, unknown> = {}): Promise<VariantRef[]> {
  const variants = prices.map((price, i) => ({ title: `Size ${i + 1}`, sku: `SKU-${crypto.randomUUID().slice(0, 8)}`, price, ...variantOver }));
  const res = await caller(t, tenant)('POST', '/api/v1/catalog/products', { title: 'Alpaca poncho', variants, ...over });
  if (res.statusCode !== 201) throw new Error(`product not created: ${res.body}`);
  return res.json().data.variants;
}

let codes = 0;
/** A warehouse (the store's default when it is the first) with `units` of each variant. */
export async function stockUp(t: TestApp, tenant: TestTenant, variantIds: string[], units: number, warehouseId?: string): Promise<string> {
  let id = warehouseId;
  if (!id) {
    const res = await caller(t, tenant)('POST', '/api/v1/inventory/warehouses', { name: 'Main', code: `WH-${++codes}` });
    if (res.statusCode !== 201) throw new Error(`warehouse not created: ${res.body}`);
    id = res.json().data.id as string;
  }
  for (const variantId of variantIds) {
    const res = await caller(t, tenant)('POST', `/api/v1/inventory/warehouses/${id}/stock/adjust`, { variant_id: variantId, delta: units, reason: 'received' });
    if (res.statusCode !== 200) throw new Error(`stock not added: ${res.body}`);
  }
  return id;
}

export interface Level {
  on_hand: number;
  reserved: number;
  available: number;
}

export async function levelOf(t: TestApp, tenant: TestTenant, warehouseId: string, variantId: string): Promise<Level> {
  const res = await caller(t, tenant)('GET', `/api/v1/inventory/warehouses/${warehouseId}/stock?filter[variant_id]=${variantId}`);
  const [level] = res.json().data as Level[];
  return level ? { on_hand: level.on_hand, reserved: level.reserved, available: level.available } : { on_hand: 0, reserved: 0, available: 0 };
}

export interface OrderJson {
  id: string;
  number: number;
  status: string;
  customer_id: string | null;
  customer_email: string;
  currency: string;
  subtotal: number;
  total: number;
  line_items: Array<{ id: string; variant_id: string; product_id: string; title: string; variant_title: string; sku: string | null; quantity: number; fulfilled_quantity: number; backordered_quantity: number; unit_price_amount: number; total_amount: number; requires_shipping: boolean }>;
  fulfillments: Array<{ id: string; status: string; carrier: string | null; tracking_number: string | null; line_items: Array<{ variant_id: string; quantity: number }> }>;
  history: Array<{ action: string; from: string; to: string; note: string | null }>;
  [key: string]: unknown;
}

export async function createOrder(t: TestApp, tenant: TestTenant, lines: Array<{ variant_id: string; quantity: number; price?: number }>, over: Record<string, unknown> = {}): Promise<OrderJson> {
  const res = await caller(t, tenant)('POST', ORDERS, { customer_email: 'rosa@example.com', line_items: lines, shipping_address: ADDRESS, ...over });
  if (res.statusCode !== 201) throw new Error(`order not created: ${res.body}`);
  return res.json().data;
}

export async function getOrder(t: TestApp, tenant: TestTenant, id: string): Promise<OrderJson> {
  const res = await caller(t, tenant)('GET', `${ORDERS}/${id}`);
  if (res.statusCode !== 200) throw new Error(`order not read: ${res.body}`);
  return res.json().data;
}

/** What the job does when the payments plugin confirms a payment (the event path is tested in payments.test.ts). */
export async function confirmPayment(t: TestApp, tenant: TestTenant, order: { id: string; total: number; currency: string }, over: Record<string, unknown> = {}) {
  const payments = t.app.container.resolve(Orders);
  return TenantContext.run({ tenantId: tenant.id }, () =>
    payments.paymentConfirmed({ payment_id: `pay_${order.id.slice(0, 8)}`, order_id: order.id, amount: order.total, currency: order.currency, ...over }),
  );
}

/** Runs `work` in a transaction of `tenant`, as another plugin's service would. */
export function inTenant<T>(t: TestApp, tenant: TestTenant, work: (tx: Tx) => Promise<T>): Promise<T> {
  return t.app.container.resolve(Database).tenant(work, tenant.id);
}

/** Events of `type` about `id` in the outbox, oldest first. */
export async function outbox(t: TestApp, type: string, id: string) {
  return t.app.orm.em.getConnection().execute<Array<{ data: Record<string, unknown>; tenant_id: string }>>(
    `select data, tenant_id from core_outbox where type = ? and (data->>'id' = ? or data->>'order_id' = ?) order by occurred_at, id`,
    [type, id, id],
  );
}

/** Registers a shopper through the storefront key; the session's token and customer id. */
export async function registerCustomer(t: TestApp, tenant: TestTenant, email: string) {
  // A store that signs new shoppers in at once (the default finishes sign-up from an e-mailed link).
  await caller(t, tenant)('PUT', '/api/v1/customers/settings', { registration: 'instant' });
  const res = await caller(t, tenant, tenant.storefrontToken)('POST', '/api/v1/auth/customer/register', { email, password: 'correct horse battery', first_name: 'Ana', last_name: 'Mamani' });
  if (res.statusCode !== 201) throw new Error(`not registered: ${res.body}`);
  const data = res.json().data as { token: string; customer: { id: string } };
  return { token: data.token, id: data.customer.id };
}

/** Makes the store keep the variant's stock before it has any (and `over`: e.g. allow_backorder). */
export async function track(t: TestApp, tenant: TestTenant, variantId: string, over: Record<string, unknown> = {}) {
  const res = await caller(t, tenant)('PUT', `/api/v1/inventory/variant-settings/${variantId}`, { tracked: true, ...over });
  if (res.statusCode !== 200) throw new Error(`variant not tracked: ${res.body}`);
  return res.json().data;
}

/** The store's policy for paid orders that cannot get their stock. */
export async function stockPolicy(t: TestApp, tenant: TestTenant, policy: 'refund' | 'wait') {
  const res = await caller(t, tenant)('PUT', '/api/v1/orders/settings', { stock_policy: policy });
  if (res.statusCode !== 200) throw new Error(`policy not set: ${res.body}`);
}
