import type { InjectOptions } from 'fastify';
import { TenantContext } from '@qhatu/core';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import catalog from '@qhatu/plugin-catalog';
import customers from '@qhatu/plugin-customers';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import orders, { Orders } from '@qhatu/plugin-orders';
import reviews from '../src/index.js';

export const REVIEWS = '/api/v1/reviews';
export const MISSING = '00000000-0000-4000-8000-000000000001';

/** Reviews with everything it depends on, on the test file's own database. */
export function reviewsApp(options: { workers?: boolean } = {}): Promise<TestApp> {
  return createTestApp({ plugins: [media, catalog, customers, inventory, orders, reviews], workers: options.workers });
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A tenant request with its admin key (or `token`). */
export function caller(t: TestApp, tenant: TestTenant, token?: string) {
  return (method: Method, url: string, payload?: unknown) =>
    t.request({ method, url, headers: tenant.headers(token), payload: payload as InjectOptions['payload'] });
}

export interface ProductRef {
  id: string;
  variantId: string;
}

/** An active product with one variant. */
export async function createProduct(t: TestApp, tenant: TestTenant, over: Record<string, unknown> = {}): Promise<ProductRef> {
  const res = await caller(t, tenant)('POST', '/api/v1/catalog/products', {
    title: 'Alpaca poncho',
    status: 'active',
    variants: [{ title: 'One size', sku: `SKU-${crypto.randomUUID().slice(0, 8)}`, price: 12000 }],
    ...over,
  });
  if (res.statusCode !== 201) throw new Error(`product not created: ${res.body}`);
  const data = res.json().data;
  return { id: data.id, variantId: data.variants[0].id };
}

/** A shopper signed up through the storefront key: the session's token and customer id. */
export async function registerCustomer(t: TestApp, tenant: TestTenant, email = `${crypto.randomUUID().slice(0, 8)}@example.com`) {
  // A store that signs new shoppers in at once (the default finishes sign-up from an e-mailed link).
  await caller(t, tenant)('PUT', '/api/v1/customers/settings', { registration: 'instant' });
  const res = await caller(t, tenant, tenant.storefrontToken)('POST', '/api/v1/auth/customer/register', {
    email,
    password: 'correct horse battery',
    first_name: 'Ana',
    last_name: 'mamani',
  });
  if (res.statusCode !== 201) throw new Error(`not registered: ${res.body}`);
  const data = res.json().data as { token: string; customer: { id: string; email: string } };
  return { token: data.token, id: data.customer.id, email: data.customer.email };
}

/** A customer record made by the store (no account: quicker than signing up); its id. */
export async function createCustomer(t: TestApp, tenant: TestTenant): Promise<string> {
  const res = await caller(t, tenant)('POST', '/api/v1/customers', { email: `${crypto.randomUUID().slice(0, 8)}@example.com`, first_name: 'Rosa', last_name: 'Quispe' });
  if (res.statusCode !== 201) throw new Error(`customer not created: ${res.body}`);
  return res.json().data.id;
}

/** Each store's one warehouse (the default), made on first use. */
const warehouses = new Map<string, string>();

/**
 * An order of `email` holding one of each variant; paid for (the payments plugin's confirmation,
 * through the orders service) unless `paid` is false.
 */
export async function placeOrder(t: TestApp, tenant: TestTenant, email: string, variantIds: string[], { paid = true } = {}): Promise<{ id: string; status: string }> {
  const admin = caller(t, tenant);
  if (paid) {
    if (!warehouses.has(tenant.id)) warehouses.set(tenant.id, (await admin('POST', '/api/v1/inventory/warehouses', { name: 'Main', code: 'MAIN' })).json().data.id);
    for (const variantId of variantIds) {
      await admin('POST', `/api/v1/inventory/warehouses/${warehouses.get(tenant.id)}/stock/adjust`, { variant_id: variantId, delta: 5, reason: 'received' });
    }
  }
  const res = await admin('POST', '/api/v1/orders', {
    customer_email: email,
    line_items: variantIds.map((variant_id) => ({ variant_id, quantity: 1 })),
    shipping_address: { first_name: 'Ana', last_name: 'Mamani', address1: 'Av. Sol 123', city: 'Cusco', country_code: 'PE', zip: '08002' },
  });
  if (res.statusCode !== 201) throw new Error(`order not created: ${res.body}`);
  const order = res.json().data as { id: string; total: number; currency: string; status: string };
  if (!paid) return order;
  const moved = await TenantContext.run({ tenantId: tenant.id }, () =>
    t.app.container.resolve(Orders).paymentConfirmed({ payment_id: `pay_${order.id.slice(0, 8)}`, order_id: order.id, amount: order.total, currency: order.currency }),
  );
  if (moved?.status !== 'paid') throw new Error(`order not paid: ${moved?.status}`);
  return { id: order.id, status: moved.status };
}

/** Events of `type` about the review `id` in the outbox, oldest first. */
export async function outbox(t: TestApp, type: string, id: string) {
  return t.app.orm.em.getConnection().execute<Array<{ data: Record<string, unknown>; tenant_id: string; source: string }>>(
    `select data, tenant_id, source from core_outbox where type = ? and data->>'id' = ? order by occurred_at, id`,
    [type, id],
  );
}
