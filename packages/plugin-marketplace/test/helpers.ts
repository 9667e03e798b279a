import { randomBytes, randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import type { QhatuPlugin } from '@qhatu/core';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import catalog from '@qhatu/plugin-catalog';
import customers from '@qhatu/plugin-customers';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import orders from '@qhatu/plugin-orders';
import marketplace from '../src/index.js';

export const MARKET = '/api/v1/marketplace';
export const PORTAL = '/api/v1/vendor';
export const CARTS = '/api/v1/checkout/carts';
export const CHECKOUTS = '/api/v1/checkout/checkouts';
export const MISSING = '00000000-0000-4000-8000-000000000001';
export const ADDRESS = { first_name: 'Rosa', last_name: 'Quispe', address1: 'Av. Sol 123', city: 'Cusco', province: 'Cusco', country_code: 'PE', zip: '08000', phone: '+51987654321' };
export const PASSWORD = 'tejidos de Cusco 2026';

/** The marketplace with what it depends on (and `extra`), on the test file's own database. */
export function marketApp(options: { extra?: QhatuPlugin[]; workers?: boolean; env?: Record<string, string> } = {}): Promise<TestApp> {
  return createTestApp({ plugins: [media, catalog, customers, inventory, orders, ...(options.extra ?? []), marketplace], workers: options.workers, env: options.env });
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type Caller = (method: Method, url: string, payload?: unknown) => ReturnType<TestApp['request']>;

/** A tenant request with its admin key (or `token`). */
export function caller(t: TestApp, tenant: TestTenant, token?: string): Caller {
  return (method, url, payload) => t.request({ method, url, headers: tenant.headers(token), payload: payload as InjectOptions['payload'] });
}

/** The body's `data` of an answer with `status`, or a thrown error naming the body. */
export async function ok(res: { statusCode: number; body: string; json(): any }, status = 200): Promise<any> {
  if (res.statusCode !== status) throw new Error(`expected ${status}, got ${res.statusCode}: ${res.body}`);
  return status === 204 ? null : res.json().data;
}

/** The error code of an answer, checked to have `status`. */
export async function refused(res: { statusCode: number; body: string; json(): any }, status: number): Promise<string> {
  if (res.statusCode !== status) throw new Error(`expected ${status}, got ${res.statusCode}: ${res.body}`);
  return res.json().error.code;
}

export interface Store {
  tenant: TestTenant;
  admin: Caller;
  storefront: Caller;
}

export async function store(t: TestApp, currency = 'PEN'): Promise<Store> {
  const tenant = await t.createTenant({ currency });
  return { tenant, admin: caller(t, tenant), storefront: caller(t, tenant, tenant.storefrontToken) };
}

export const email = (name = 'taller') => `${name}-${randomUUID().slice(0, 8)}@vendedores.pe`;

/** A vendor (active unless `status` says otherwise), with a portal password. */
export async function vendor(s: Store, over: Record<string, unknown> = {}, status: 'pending' | 'active' | 'suspended' = 'active'): Promise<any> {
  const made = await ok(await s.admin('POST', `${MARKET}/vendors`, { name: 'Tejidos Awana', email: email(), country_code: 'PE', default_commission_pct: 10, password: PASSWORD, ...over }), 201);
  if (status === 'pending') return made;
  return ok(await s.admin('PATCH', `${MARKET}/vendors/${made.id}/status`, { status }));
}

/** An active product with one variant per price; its id and variant ids. */
export async function product(s: Store, prices: number[] = [5000], over: Record<string, unknown> = {}): Promise<{ id: string; variants: string[] }> {
  const made = await ok(
    await s.admin('POST', '/api/v1/catalog/products', {
      title: `Chompa de alpaca ${randomUUID().slice(0, 4)}`,
      status: 'active',
      variants: prices.map((price, n) => ({ title: `Talla ${n + 1}`, sku: `SKU-${randomUUID().slice(0, 8)}`, price, currency: 'PEN' })),
      ...over,
    }),
    201,
  );
  return { id: made.id, variants: made.variants.map((v: { id: string }) => v.id) };
}

export async function offer(s: Store, vendorId: string, productId: string, over: Record<string, unknown> = {}): Promise<any> {
  return ok(await s.admin('POST', `${MARKET}/vendor-products`, { vendor_id: vendorId, catalog_product_id: productId, price_override: 4500, stock: 10, ...over }), 201);
}

/** A vendor's portal token. */
export async function signIn(s: Store, vendorEmail: string, password = PASSWORD): Promise<string> {
  return (await ok(await s.storefront('POST', `${PORTAL}/login`, { email: vendorEmail, password }))).token;
}

/** Events of `type` in the outbox whose data has `key` = `value`. */
export async function outbox(t: TestApp, type: string, key: string, value: string) {
  return t.app.orm.em.getConnection().execute<Array<{ data: Record<string, unknown>; tenant_id: string; source: string }>>(
    `select data, tenant_id, source from core_outbox where type = ? and data->>? = ? order by occurred_at, id`,
    [type, key, value],
  );
}

export const stripeAccount = () => ({ secret_key: `sk_test_${randomBytes(8).toString('hex')}`, webhook_secret: `whsec_${randomBytes(18).toString('base64')}`, publishable_key: 'pk_test_x' });
