import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Clock } from '@qhatu/core';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import b2b from '@qhatu/plugin-b2b';
import catalog from '@qhatu/plugin-catalog';
import customers from '@qhatu/plugin-customers';
import discounts from '@qhatu/plugin-discounts';
import offline from '@qhatu/plugin-gateway-offline';
import inventory from '@qhatu/plugin-inventory';
import marketplace from '@qhatu/plugin-marketplace';
import media from '@qhatu/plugin-media';
import orders from '@qhatu/plugin-orders';
import payments from '@qhatu/plugin-payments';
import { caller, configureGateway, ok, type Caller } from '@qhatu/plugin-payments/testing';
import shipping from '@qhatu/plugin-shipping';
import taxes from '@qhatu/plugin-taxes';
import { expect } from 'vitest';
import draftOrders from '../src/index.js';

export { caller, ok, type Caller };

export const DRAFTS = '/api/v1/draft-orders';
export const MISSING = '00000000-0000-4000-8000-000000000001';
export const ADDRESS = { first_name: 'Rosa', last_name: 'Quispe', address1: 'Av. Sol 123', city: 'Cusco', province: 'Cusco', country_code: 'PE', zip: '08000', phone: '+51987654321' };

/** The whole store a draft touches: catalog to taxes, shipping, B2B price lists, payments with the offline gateway, sellers' offers. */
export function draftApp(options: { workers?: boolean; env?: Record<string, string>; clock?: Clock } = {}): Promise<TestApp> {
  return createTestApp({
    plugins: [media, catalog, customers, inventory, discounts, orders, taxes, shipping, payments, offline, b2b, marketplace, draftOrders],
    workers: options.workers,
    clock: options.clock,
    env: { QHATU_PAYMENTS_ASK_AGAIN_AFTER_SECONDS: '0', ...options.env },
  });
}

/** A PEN store taxed at 18 % (10 % for the class `reduced`), prices with or without the tax, with shipping rates. */
export async function taxedStore(t: TestApp, options: { includeTax: boolean; rates?: boolean }) {
  const tenant = await t.createTenant({ currency: 'PEN' });
  const admin = caller(t, tenant);
  await ok(await admin('PATCH', '/api/v1/taxes/settings', { prices_include_tax: options.includeTax, origin_country: 'PE', tax_shipping: true }), 200);
  await ok(await admin('POST', '/api/v1/taxes/regions', { country_code: 'PE', rates: { standard: 1800, reduced: 1000 } }), 201);
  if (options.rates !== false) {
    const rate = { carrier: 'olva', service_name: 'Olva Estándar', service_code: 'standard', currency: 'PEN', estimated_days: 3, origin_country: 'PE', destination_country: 'PE' };
    for (const [weight, amount] of [[5000, 1500], [20_000, 3000]]) await ok(await admin('POST', '/shipping/rates', { ...rate, weight_g: weight, amount }), 201);
  }
  return { tenant, admin };
}

export interface VariantRef {
  productId: string;
  variantId: string;
}

/** An active product with one variant at `price` (minor units). */
export async function product(admin: Caller, price: number, variant: Record<string, unknown> = {}): Promise<VariantRef> {
  const made = await ok(
    await admin('POST', '/api/v1/catalog/products', { title: `Poncho ${randomUUID().slice(0, 4)}`, status: 'active', variants: [{ title: 'Default', sku: `SKU-${randomUUID().slice(0, 8)}`, price, ...variant }] }),
    201,
  );
  return { productId: made.id, variantId: made.variants[0].id };
}

let codes = 0;
/** `units` of each variant (tracked from then on) in `warehouse`, or in a new one (a store's first is its default, where orders hold stock). */
export async function stock(admin: Caller, variantIds: string[], units: number, existing?: string): Promise<string> {
  const warehouse = existing ?? ((await ok(await admin('POST', '/api/v1/inventory/warehouses', { name: 'Cusco', code: `WH-${++codes}-${randomUUID().slice(0, 4)}` }), 201)).id as string);
  for (const variant_id of variantIds) await ok(await admin('POST', `/api/v1/inventory/warehouses/${warehouse}/stock/adjust`, { variant_id, delta: units, reason: 'received' }), 200);
  return warehouse;
}

export async function levelOf(admin: Caller, warehouse: string, variantId: string) {
  const [level] = (await ok(await admin('GET', `/api/v1/inventory/warehouses/${warehouse}/stock?filter[variant_id]=${variantId}`), 200)) as Array<{ on_hand: number; reserved: number; available: number }>;
  return { on_hand: level.on_hand, reserved: level.reserved, available: level.available };
}

export async function customer(admin: Caller, email = `${randomUUID().slice(0, 8)}@example.com`): Promise<{ id: string; email: string }> {
  const made = await ok(await admin('POST', '/api/v1/customers', { email, first_name: 'Rosa', last_name: 'Quispe' }), 201);
  return { id: made.id, email };
}

export async function coupon(admin: Caller, over: Record<string, unknown> = {}): Promise<{ id: string; code: string }> {
  const res = await admin('POST', '/api/v1/discounts/coupons', { code: `D${randomUUID().slice(0, 6)}`.toUpperCase(), type: 'percentage', value: 1000, ...over });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

export async function volumeTier(admin: Caller, productId: string, minQuantity: number, value: number): Promise<void> {
  await ok(await admin('POST', '/api/v1/discounts/volume', { product_id: productId, min_quantity: minQuantity, value }), 201);
}

/** An active vendor selling `productId` on an offer at `price` with `stock` units, at `commissionPct`; the offer's and the vendor's ids. */
export async function sellerOffer(admin: Caller, productId: string, over: { price: number; stock: number; commissionPct: number }): Promise<{ offerId: string; vendorId: string }> {
  const made = await ok(await admin('POST', '/api/v1/marketplace/vendors', { name: 'Tejidos Awana', email: `taller-${randomUUID().slice(0, 8)}@vendedores.pe`, country_code: 'PE', default_commission_pct: over.commissionPct }), 201);
  await ok(await admin('PATCH', `/api/v1/marketplace/vendors/${made.id}/status`, { status: 'active' }), 200);
  const offer = await ok(await admin('POST', '/api/v1/marketplace/vendor-products', { vendor_id: made.id, catalog_product_id: productId, price_override: over.price, stock: over.stock }), 201);
  return { offerId: offer.id, vendorId: made.id };
}

/** Switches the offline gateway on and adds a bank transfer in soles; its id. */
export async function offlineMethod(admin: Caller): Promise<string> {
  await configureGateway(admin, 'offline', {});
  const method = await ok(await admin('POST', '/api/v1/payments/offline/methods', { name: 'Yape', kind: 'wallet', instructions: 'Yape al 987 654 321', currencies: ['PEN'] }), 201);
  return method.id;
}

/** A token of a staff member of `tenant` whose role holds exactly `permissions`; and the member's id. */
export async function staffWith(t: TestApp, tenant: TestTenant, permissions: string[]): Promise<{ token: string; id: string }> {
  const admin = caller(t, tenant);
  const role = await ok(await admin('POST', '/api/v1/roles', { name: `Role ${randomUUID().slice(0, 8)}`, permissions }), 201);
  const email = `staff-${randomUUID().slice(0, 8)}@example.com`;
  const password = 'correct horse battery staple';
  const member = await ok(await admin('POST', '/api/v1/staff', { email, first_name: 'Ana', last_name: 'Quispe', role_id: role.id, password }), 201);
  const session = await t.request({ method: 'POST', url: '/api/v1/auth/staff/login', headers: { 'x-tenant-id': tenant.id }, payload: { email, password } });
  expect(session.statusCode, session.body).toBe(200);
  return { token: session.json().data.token, id: member.id };
}

/** The error of a non-2xx answer, checked to be `status` with `code`. */
export function expectError(res: { statusCode: number; body: string; json(): any }, status: number, code: string) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json().error.code, res.body).toBe(code);
  return res.json().error as { code: string; message: string; details: Array<Record<string, unknown>> };
}

/** The e-mails written for `tenant` (the file transport), newest last. */
export async function mailsOf(t: TestApp, tenant: TestTenant): Promise<string[]> {
  const folder = path.join(t.app.config.dataDir, 'mail', tenant.id);
  const files = (await readdir(folder).catch(() => [] as string[])).sort();
  return Promise.all(files.map((f) => readFile(path.join(folder, f), 'utf8')));
}

/** Events of `type` about `id` in the outbox, oldest first. */
export async function outbox(t: TestApp, type: string, id: string) {
  return t.app.orm.em.getConnection().execute<Array<{ data: Record<string, unknown>; tenant_id: string }>>(
    `select data, tenant_id from core_outbox where type = ? and (data->>'id' = ? or data->>'order_id' = ?) order by occurred_at, id`,
    [type, id, id],
  );
}

/** The query string's token of an invoice link. */
export const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;

export type Draft = Record<string, any> & { id: string; status: string; total: number; line_items: Array<Record<string, any>> };
