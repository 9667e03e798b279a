import { randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import type { QhatuPlugin } from '@qhatu/core';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import catalog from '@qhatu/plugin-catalog';
import customers from '@qhatu/plugin-customers';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import orders from '@qhatu/plugin-orders';
import payments from './index.js';

/** What every gateway package's tests share: the app around a gateway, callers, an order to pay. */

export const PAYMENTS = '/api/v1/payments';
export const GATEWAYS = '/api/v1/payments/gateways';
export const MISSING = '00000000-0000-4000-8000-000000000001';

/** The app with `gateway` pointed at its provider double through `baseUrlVariable` (operator configuration). */
export async function gatewayApp(
  gateway: QhatuPlugin,
  baseUrlVariable: string,
  baseUrl: string,
  options: { workers?: boolean; plugins?: QhatuPlugin[] } = {},
): Promise<TestApp> {
  return createTestApp({
    plugins: options.plugins ?? [media, catalog, customers, inventory, orders, payments, gateway],
    workers: options.workers,
    env: { [baseUrlVariable]: baseUrl },
  });
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export function caller(t: TestApp, tenant: TestTenant, token?: string) {
  return (method: Method, url: string, payload?: unknown) =>
    t.request({ method, url, headers: tenant.headers(token), payload: payload as InjectOptions['payload'] });
}
export type Caller = ReturnType<typeof caller>;

/** An order of `quantity` units of a fresh product priced `price`. */
export async function createOrder(admin: Caller, price = 2500, quantity = 2): Promise<{ id: string; total: number; currency: string }> {
  const product = await admin('POST', '/api/v1/catalog/products', { title: 'Alpaca poncho', variants: [{ title: 'One', sku: `SKU-${randomUUID().slice(0, 8)}`, price }] });
  if (product.statusCode !== 201) throw new Error(`product not created: ${product.body}`);
  const variant = product.json().data.variants[0];
  const res = await admin('POST', '/api/v1/orders', {
    customer_email: 'rosa@example.com',
    line_items: [{ variant_id: variant.id, quantity }],
    shipping_address: { first_name: 'Rosa', last_name: 'Quispe', address1: 'Av. Sol 123', city: 'Cusco', country_code: 'PE', zip: '08002' },
  });
  if (res.statusCode !== 201) throw new Error(`order not created: ${res.body}`);
  return res.json().data;
}

/** Outbox rows of `type` about a payment (by `id` or `payment_id`). */
export async function outbox(t: TestApp, type: string, id: string) {
  return t.app.orm.em.getConnection().execute<Array<{ data: Record<string, unknown>; tenant_id: string }>>(
    `select data, tenant_id from core_outbox where type = ? and (data->>'id' = ? or data->>'payment_id' = ?) order by occurred_at, id`,
    [type, id, id],
  );
}

export async function until(check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('timed out waiting');
}
