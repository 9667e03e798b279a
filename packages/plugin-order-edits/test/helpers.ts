import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { QhatuPlugin } from '@qhatu/core';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import catalog from '@qhatu/plugin-catalog';
import customers from '@qhatu/plugin-customers';
import discounts from '@qhatu/plugin-discounts';
import draftOrders from '@qhatu/plugin-draft-orders';
import offline from '@qhatu/plugin-gateway-offline';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import orders from '@qhatu/plugin-orders';
import payments from '@qhatu/plugin-payments';
import { caller, configureGateway, ok, type Caller } from '@qhatu/plugin-payments/testing';
import shipping from '@qhatu/plugin-shipping';
import taxes from '@qhatu/plugin-taxes';
import { expect } from 'vitest';
import orderEdits from '../src/index.js';

export { caller, ok, type Caller };

export const MISSING = '00000000-0000-4000-8000-000000000001';
export const ADDRESS = { first_name: 'Rosa', last_name: 'Quispe', address1: 'Av. Sol 123', city: 'Cusco', province: 'Cusco', country_code: 'PE', zip: '08000', phone: '+51987654321' };

/** The store an edit touches: orders (placed as draft orders, with coupons, shipping and custom lines), taxes, shipping, payments with the offline gateway (and `extra`). */
export function editApp(options: { workers?: boolean; extra?: QhatuPlugin[] } = {}): Promise<TestApp> {
  return createTestApp({
    plugins: [media, catalog, customers, inventory, discounts, orders, taxes, shipping, payments, offline, draftOrders, orderEdits, ...(options.extra ?? [])],
    workers: options.workers,
    env: { QHATU_PAYMENTS_ASK_AGAIN_AFTER_SECONDS: '0' },
  });
}

export interface Shop {
  tenant: TestTenant;
  admin: Caller;
  warehouse: string;
  method: string;
}

/** A PEN store taxed at 18 % (prices with or without it), Olva rates by weight, a warehouse, Yape as an offline method. */
export async function shop(t: TestApp, includeTax: boolean): Promise<Shop> {
  const tenant = await t.createTenant({ currency: 'PEN' });
  const admin = caller(t, tenant);
  await ok(await admin('PATCH', '/api/v1/taxes/settings', { prices_include_tax: includeTax, origin_country: 'PE', tax_shipping: true }), 200);
  await ok(await admin('POST', '/api/v1/taxes/regions', { country_code: 'PE', rates: { standard: 1800, reduced: 1000 } }), 201);
  const rate = { carrier: 'olva', service_name: 'Olva Estándar', service_code: 'standard', currency: 'PEN', estimated_days: 3, origin_country: 'PE', destination_country: 'PE' };
  for (const [weight, amount] of [[5000, 1500], [20_000, 3000]]) await ok(await admin('POST', '/shipping/rates', { ...rate, weight_g: weight, amount }), 201);
  const warehouse = (await ok(await admin('POST', '/api/v1/inventory/warehouses', { name: 'Cusco', code: 'WH-CUSCO' }), 201)).id;
  await configureGateway(admin, 'offline', {});
  const method = (await ok(await admin('POST', '/api/v1/payments/offline/methods', { name: 'Yape', kind: 'wallet', instructions: 'Yape al 987 654 321', currencies: ['PEN'] }), 201)).id;
  return { tenant, admin, warehouse, method };
}

/** An active product (one variant at `price`) with `units` in the store's warehouse; its ids. */
export async function product(s: Shop, price: number, units = 20, variant: Record<string, unknown> = {}): Promise<{ productId: string; variantId: string }> {
  const made = await ok(await s.admin('POST', '/api/v1/catalog/products', { title: `Poncho ${randomUUID().slice(0, 4)}`, status: 'active', variants: [{ title: 'Default', sku: `SKU-${randomUUID().slice(0, 8)}`, price, weight_grams: 1000, ...variant }] }), 201);
  const variantId = made.variants[0].id as string;
  await ok(await s.admin('POST', `/api/v1/inventory/warehouses/${s.warehouse}/stock/adjust`, { variant_id: variantId, delta: units, reason: 'received' }), 200);
  return { productId: made.id, variantId };
}

/** An order placed as a draft order is (completed without payment: it awaits payment); the order. */
export async function order(s: Shop, draft: Record<string, unknown>): Promise<Order> {
  const d = await ok(await s.admin('POST', '/api/v1/draft-orders', { email: 'rosa@example.com', shipping_address: ADDRESS, ...draft }), 201);
  const done = await ok(await s.admin('POST', `/api/v1/draft-orders/${d.id}/complete`, {}), 200);
  return ok(await s.admin('GET', `/api/v1/orders/${done.order_id}`), 200);
}

/** Pays `amount` of the order by the offline method, received in full (the order moves once the workers run). */
export async function pay(s: Shop, orderId: string, amount: number): Promise<string> {
  const payment = await ok(await s.admin('POST', '/api/v1/payments', { order_id: orderId, gateway: 'offline', amount, currency: 'PEN', method_id: s.method }), 201);
  await ok(await s.admin('POST', '/api/v1/payments/offline/receipts', { payment_id: payment.id, amount }), 201);
  return payment.id;
}

export async function levelOf(s: Shop, variantId: string) {
  const [level] = (await ok(await s.admin('GET', `/api/v1/inventory/warehouses/${s.warehouse}/stock?filter[variant_id]=${variantId}`), 200)) as Array<{ on_hand: number; reserved: number; available: number }>;
  return { on_hand: level.on_hand, reserved: level.reserved, available: level.available };
}

/** Previews an edit of the order (201); the edit. */
export async function preview(s: Shop, orderId: string, body: Record<string, unknown>): Promise<Edit> {
  return ok(await s.admin('POST', `/api/v1/orders/${orderId}/edits`, body), 201);
}

/** The error of a non-2xx answer, checked to be `status` with `code`. */
export function expectError(res: { statusCode: number; body: string; json(): any }, status: number, code: string) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json().error.code, res.body).toBe(code);
  return res.json().error as { code: string; message: string; details: Array<Record<string, unknown>> };
}

export async function mailsOf(t: TestApp, tenant: TestTenant): Promise<string[]> {
  const folder = path.join(t.app.config.dataDir, 'mail', tenant.id);
  const files = (await readdir(folder).catch(() => [] as string[])).sort();
  return Promise.all(files.map((f) => readFile(path.join(folder, f), 'utf8')));
}

export async function outbox(t: TestApp, type: string, id: string) {
  return t.app.orm.em.getConnection().execute<Array<{ data: Record<string, unknown> }>>(
    `select data from core_outbox where type = ? and (data->>'id' = ? or data->>'order_id' = ?) order by occurred_at, id`,
    [type, id, id],
  );
}

export type Order = Record<string, any> & { id: string; status: string; total: number; line_items: Array<Record<string, any>> };
export type Edit = Record<string, any> & { id: string; status: string; after: Record<string, any>; before: Record<string, any> };
