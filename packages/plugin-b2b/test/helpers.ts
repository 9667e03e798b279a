import { randomInt, randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import type { QhatuPlugin } from '@qhatu/core';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import catalog from '@qhatu/plugin-catalog';
import customers from '@qhatu/plugin-customers';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import orders from '@qhatu/plugin-orders';
import b2b, { rucCheckDigit } from '../src/index.js';

export const B2B = '/api/v1/b2b';
export const MISSING = '00000000-0000-4000-8000-000000000001';
export const ADDRESS = { first_name: 'Rosa', last_name: 'Quispe', address1: 'Av. Arequipa 1234', city: 'Lima', country_code: 'PE', zip: '15046' };

/** The B2B plugin with everything it depends on, on the test file's own database. */
export function b2bApp(options: { env?: Record<string, string>; extra?: QhatuPlugin[]; clock?: Parameters<typeof createTestApp>[0]['clock']; workers?: boolean } = {}): Promise<TestApp> {
  return createTestApp({ plugins: [media, catalog, customers, inventory, orders, b2b, ...(options.extra ?? [])], env: options.env, clock: options.clock, workers: options.workers });
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A tenant request with its admin key (or `token`). */
export function caller(t: TestApp, tenant: TestTenant, token?: string) {
  return (method: Method, url: string, payload?: unknown) => t.request({ method, url, headers: tenant.headers(token), payload: payload as InjectOptions['payload'] });
}

/** A valid RUC with `prefix` (20: a company), random digits and the right check digit. */
export function ruc(prefix = '20'): string {
  const ten = prefix + String(randomInt(0, 100_000_000)).padStart(8, '0');
  return ten + rucCheckDigit(ten);
}

/** The same RUC with a wrong check digit. */
export function wrongDigit(valid: string): string {
  return valid.slice(0, 10) + String((Number(valid[10]) + 1) % 10);
}

export interface Store {
  tenant: TestTenant;
  admin: ReturnType<typeof caller>;
}

export async function store(t: TestApp, currency = 'PEN'): Promise<Store> {
  const tenant = await t.createTenant({ currency });
  return { tenant, admin: caller(t, tenant) };
}

async function created(res: { statusCode: number; body: string; json(): any }, what: string) {
  if (res.statusCode !== 201) throw new Error(`${what} not created: ${res.statusCode} ${res.body}`);
  return res.json().data;
}

/** An active product with one variant at `price`; its ids. */
export async function product(s: Store, price: number, over: Record<string, unknown> = {}): Promise<{ id: string; variantId: string }> {
  const data = await created(
    await s.admin('POST', '/api/v1/catalog/products', {
      title: `Saco de quinua ${randomUUID().slice(0, 4)}`,
      status: 'active',
      variants: [{ title: 'Default', sku: `SKU-${randomUUID().slice(0, 8)}`, price, currency: 'PEN', ...(over.variant as object) }],
      ...Object.fromEntries(Object.entries(over).filter(([k]) => k !== 'variant')),
    }),
    'product',
  );
  return { id: data.id, variantId: data.variants[0].id };
}

/** A collection holding `productIds`. */
export async function collection(s: Store, productIds: string[]): Promise<string> {
  const c = await created(await s.admin('POST', '/api/v1/catalog/collections', { title: `Granos ${randomUUID().slice(0, 4)}` }), 'collection');
  for (const product_id of productIds) await created(await s.admin('POST', `/api/v1/catalog/collections/${c.id}/products`, { product_id }), 'collection entry');
  return c.id;
}

export async function priceList(s: Store, rules: Array<Record<string, unknown>> = [], currency = 'PEN'): Promise<string> {
  const list = await created(await s.admin('POST', `${B2B}/price-lists`, { name: 'Mayoristas', currency }), 'price list');
  for (const rule of rules) await created(await s.admin('POST', `${B2B}/price-lists/${list.id}/rules`, rule), 'rule');
  return list.id;
}

export async function company(s: Store, over: Record<string, unknown> = {}): Promise<any> {
  return created(
    await s.admin('POST', `${B2B}/customers`, { company_name: 'Andes Distribuciones S.A.C.', ruc: ruc(), email: `compras-${randomUUID().slice(0, 6)}@andes.pe`, phone: '+51 1 555 0101', ...over }),
    'B2B customer',
  );
}

/** A shopper signed up through the storefront key: the token and customer id. */
export async function signUp(t: TestApp, s: Store): Promise<{ token: string; id: string; email: string }> {
  const email = `${randomUUID().slice(0, 8)}@example.com`;
  // A store that signs new shoppers in at once (the default finishes sign-up from an e-mailed link).
  await s.admin('PUT', '/api/v1/customers/settings', { registration: 'instant' });
  const res = await caller(t, s.tenant, s.tenant.storefrontToken)('POST', '/api/v1/auth/customer/register', { email, password: 'correct horse battery', first_name: 'Luis', last_name: 'Huamán' });
  const data = await created(res, 'customer');
  return { token: data.token, id: data.customer.id, email };
}

export async function quote(s: Store, b2bCustomerId: string, items: Array<{ variant_id: string; quantity: number }>, over: Record<string, unknown> = {}): Promise<any> {
  return created(await s.admin('POST', `${B2B}/quotes`, { b2b_customer_id: b2bCustomerId, items, ...over }), 'quote');
}

/** Events of `type` about `id` in the outbox. */
export async function outbox(t: TestApp, type: string, id: string) {
  return t.app.orm.em.getConnection().execute<Array<{ data: Record<string, unknown>; tenant_id: string; source: string }>>(
    `select data, tenant_id, source from core_outbox where type = ? and data->>'id' = ? order by occurred_at, id`,
    [type, id],
  );
}
