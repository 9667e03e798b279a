import { randomBytes, randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import type { QhatuPlugin } from '@qhatu/core';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import catalog from '@qhatu/plugin-catalog';
import customers from '@qhatu/plugin-customers';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import orders from '@qhatu/plugin-orders';
import payments from '@qhatu/plugin-payments';
import mercadopago from '../src/index.js';

export const PAYMENTS = '/api/v1/payments';
export const GATEWAYS = '/api/v1/payments/gateways';
export const MISSING = '00000000-0000-4000-8000-000000000001';

/** The app with Mercado Pago pointed at the double (operator configuration, as in production). */
export async function mpApp(baseUrl: string, options: { workers?: boolean; plugins?: QhatuPlugin[] } = {}): Promise<TestApp> {
  return createTestApp({
    plugins: options.plugins ?? [media, catalog, customers, inventory, orders, payments, mercadopago],
    workers: options.workers,
    env: { QHATU_GATEWAY_MERCADOPAGO_BASE_URL: baseUrl },
  });
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export function caller(t: TestApp, tenant: TestTenant, token?: string) {
  return (method: Method, url: string, payload?: unknown) =>
    t.request({ method, url, headers: tenant.headers(token), payload: payload as InjectOptions['payload'] });
}
export type Caller = ReturnType<typeof caller>;

export interface MpAccount {
  access_token: string;
  webhook_secret: string;
  public_key: string;
}

export function newAccount(): MpAccount {
  const k = randomBytes(8).toString('hex');
  return { access_token: `TEST-${k}-access`, webhook_secret: randomBytes(24).toString('hex'), public_key: `TEST-${k}-public` };
}

export async function configure(admin: Caller, account: MpAccount): Promise<void> {
  const res = await admin('PUT', `${GATEWAYS}/mercadopago`, { enabled: true, credentials: account });
  if (res.statusCode !== 200) throw new Error(`mercadopago not configured: ${res.body}`);
}

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

export async function pay(api: Caller, order: { id: string; total: number; currency: string }, token = 'tok_approved', extra: Record<string, unknown> = {}) {
  return api('POST', PAYMENTS, { order_id: order.id, gateway: 'mercadopago', amount: order.total, currency: order.currency, token, installments: 1, payment_method_id: 'visa', email: 'rosa@example.com', ...extra });
}

/** Posts a notification as Mercado Pago does: `?data.id=…&type=payment`, x-signature and x-request-id. */
export function notify(t: TestApp, tenantId: string, n: { body: string; requestId?: string; signature?: string }, dataId?: string) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (n.signature !== undefined) headers['x-signature'] = n.signature;
  if (n.requestId !== undefined) headers['x-request-id'] = n.requestId;
  const query = dataId ? `?data.id=${encodeURIComponent(dataId)}&type=payment` : '';
  return t.request({ method: 'POST', url: `/webhooks/mercadopago/${tenantId}${query}`, headers, payload: n.body });
}

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
