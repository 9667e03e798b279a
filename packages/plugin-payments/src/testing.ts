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

const ADDRESS = { first_name: 'Rosa', last_name: 'Quispe', address1: 'Av. Sol 123', city: 'Cusco', province: 'Cusco', country_code: 'PE', zip: '08000', phone: '+51987654321' };

/** A 2xx answer's `data`, or a failed expectation naming the body. */
export async function ok(res: { statusCode: number; body: string; json(): any }, status: number) {
  if (res.statusCode !== status) throw new Error(`expected ${status}, got ${res.statusCode}: ${res.body}`);
  return res.json().data;
}

/**
 * The whole store around a gateway (catalog to checkout, payments, workers on), one store in PEN
 * (or `options.currency`) with its gateway configured and a default warehouse: the setting of every
 * gateway's full-path test.
 */
export async function fullStore(
  gateway: QhatuPlugin,
  baseUrlVariable: string,
  baseUrl: string,
  configure: (admin: Caller) => Promise<void>,
  options: { currency?: string } = {},
) {
  const [checkout, discounts] = await Promise.all([import('@qhatu/plugin-checkout'), import('@qhatu/plugin-discounts')]);
  const t = await gatewayApp(gateway, baseUrlVariable, baseUrl, {
    workers: true,
    plugins: [media, catalog, customers, inventory, discounts.default, orders, checkout.default, payments, gateway],
  });
  const shop = await t.createTenant({ currency: options.currency ?? 'PEN' });
  const admin = caller(t, shop);
  const store = caller(t, shop, shop.storefrontToken);
  await configure(admin);
  // The store's first warehouse is its default: where the order's stock is reserved.
  const warehouse: string = (await ok(await admin('POST', '/api/v1/inventory/warehouses', { name: 'Cusco', code: 'WH-CUSCO' }), 201)).id;

  /** A checkout awaiting payment for 2 units of a product with 5 in stock; and its variant. */
  async function awaitingPayment() {
    const product = await ok(await admin('POST', '/api/v1/catalog/products', { title: 'Alpaca scarf', variants: [{ title: 'Grey', sku: `SKU-${randomUUID().slice(0, 8)}`, price: 4000 }] }), 201);
    const variant = product.variants[0].id as string;
    await ok(await admin('POST', `/api/v1/inventory/warehouses/${warehouse}/stock/adjust`, { variant_id: variant, delta: 5, reason: 'received' }), 200);
    const cart = await ok(await store('POST', '/api/v1/checkout/carts', {}), 201);
    await ok(await store('POST', `/api/v1/checkout/carts/${cart.id}/items`, { variant_id: variant, quantity: 2 }), 201);
    const made = await ok(await store('POST', '/api/v1/checkout/checkouts', { cart_id: cart.id, email: 'rosa@example.com' }), 201);
    const shipping = { shipping_address: ADDRESS, billing_address: ADDRESS, shipping_rate: { carrier: 'Olva', service: 'Express', price: 1500 } };
    const c = await ok(await store('PUT', `/api/v1/checkout/checkouts/${made.id}/shipping`, shipping), 200);
    return { checkout: c as { id: string; status: string; order_id: string; total: number; currency: string }, variant };
  }

  return {
    t,
    shop,
    admin,
    store,
    warehouse,
    awaitingPayment,
    orderStatus: async (id: string) => (await admin('GET', `/api/v1/orders/${id}`)).json().data.status as string,
    checkoutStatus: async (id: string) => (await store('GET', `/api/v1/checkout/checkouts/${id}`)).json().data.status as string,
    level: async (warehouseId: string, variant: string) =>
      (await admin('GET', `/api/v1/inventory/warehouses/${warehouseId}/stock?filter[variant_id]=${variant}`)).json(),
  };
}
export type FullStore = Awaited<ReturnType<typeof fullStore>>;
