import type { InjectOptions } from 'fastify';
import { AppError, Database, TenantContext, type QhatuPlugin, type Tx } from '@qhatu/core';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import catalog from '@qhatu/plugin-catalog';
import customers from '@qhatu/plugin-customers';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import orders, { Orders } from '@qhatu/plugin-orders';
import shipping, { ShippingPrices, type ShippingPriceRequest } from '../src/index.js';

/** Shipping with everything it depends on, each test file on its own database. */
export async function shippingApp(options: { plugins?: QhatuPlugin[]; env?: Record<string, string> } = {}): Promise<TestApp> {
  return createTestApp({ plugins: [media, catalog, customers, inventory, orders, shipping, ...(options.plugins ?? [])], env: options.env });
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A tenant request with its admin key (or `token`). */
export function caller(t: TestApp, tenant: TestTenant, token?: string) {
  return (method: Method, url: string, payload?: unknown) =>
    t.request({ method, url, headers: tenant.headers(token), payload: payload as InjectOptions['payload'] });
}

export const RATES = '/shipping/rates';
export const SHIPMENTS = '/shipping/shipments';
export const MISSING = '00000000-0000-4000-8000-000000000001';

export const LIMA = { name: 'Almacén Qhatu', line1: 'Av. Argentina 1234', city: 'Lima', postal_code: '15001', country: 'PE', phone: '+51 1 555 0101' };
export const CUSCO = { name: 'Rosa Quispe', line1: 'Av. El Sol 123', line2: 'Dpto. 4', city: 'Cusco', state: 'Cusco', postal_code: '08002', country: 'PE' };
export const SANTIAGO = { name: 'Ana Rojas', line1: 'Av. Providencia 1000', city: 'Santiago', postal_code: '7500000', country: 'CL' };

export function rate(over: Record<string, unknown> = {}) {
  return {
    carrier: 'olva',
    service_name: 'Olva Estándar',
    service_code: 'standard',
    currency: 'PEN',
    amount: 1500,
    estimated_days: 3,
    weight_g: 5000,
    origin_country: 'PE',
    destination_country: 'PE',
    ...over,
  };
}

/** A parcel for calculate, from Lima to Cusco by default. */
export function parcel(over: Record<string, unknown> = {}) {
  return { weight_g: 1000, length_cm: 10, width_cm: 10, height_cm: 10, origin_address: LIMA, destination_address: CUSCO, ...over };
}

export async function addRate(t: TestApp, tenant: TestTenant, over: Record<string, unknown> = {}): Promise<{ id: string } & Record<string, unknown>> {
  const res = await caller(t, tenant)('POST', RATES, rate(over));
  if (res.statusCode !== 201) throw new Error(`rate not created: ${res.body}`);
  return res.json().data;
}

/** A product of one variant priced `price` with `units` in the store's warehouse; the variant id. */
export async function stockedVariant(t: TestApp, tenant: TestTenant, units = 10, price = 4500): Promise<string> {
  const admin = caller(t, tenant);
  const product = await admin('POST', '/api/v1/catalog/products', { title: 'Alpaca poncho', variants: [{ title: 'M', sku: `P-${crypto.randomUUID().slice(0, 8)}`, price }] });
  if (product.statusCode !== 201) throw new Error(`product not created: ${product.body}`);
  const variant = product.json().data.variants[0].id as string;
  // The store's first warehouse is its default, the one orders reserve from.
  let warehouseId = (await admin('GET', '/api/v1/inventory/warehouses')).json().data[0]?.id as string | undefined;
  if (!warehouseId) {
    const warehouse = await admin('POST', '/api/v1/inventory/warehouses', { name: 'Lima', code: 'LIM-01' });
    if (warehouse.statusCode !== 201) throw new Error(`warehouse not created: ${warehouse.body}`);
    warehouseId = warehouse.json().data.id as string;
  }
  const adjusted = await admin('POST', `/api/v1/inventory/warehouses/${warehouseId}/stock/adjust`, { variant_id: variant, delta: units, reason: 'received' });
  if (adjusted.statusCode !== 200) throw new Error(`stock not added: ${adjusted.body}`);
  return variant;
}

export interface OrderJson {
  id: string;
  status: string;
  total: number;
  currency: string;
  fulfillments: Array<{ id: string; status: string; tracking_number: string | null }>;
}

export async function createOrder(t: TestApp, tenant: TestTenant, variantId: string, quantity = 2): Promise<OrderJson> {
  const res = await caller(t, tenant)('POST', '/api/v1/orders', {
    customer_email: 'rosa@example.com',
    line_items: [{ variant_id: variantId, quantity }],
    shipping_address: { first_name: 'Rosa', last_name: 'Quispe', address1: 'Av. El Sol 123', city: 'Cusco', country_code: 'PE', zip: '08002' },
  });
  if (res.statusCode !== 201) throw new Error(`order not created: ${res.body}`);
  return res.json().data;
}

export async function getOrder(t: TestApp, tenant: TestTenant, id: string): Promise<OrderJson> {
  const res = await caller(t, tenant)('GET', `/api/v1/orders/${id}`);
  if (res.statusCode !== 200) throw new Error(`order not read: ${res.body}`);
  return res.json().data;
}

/** What the orders plugin does when the payments plugin confirms the order's payment. */
export async function pay(t: TestApp, tenant: TestTenant, order: OrderJson): Promise<void> {
  await TenantContext.run({ tenantId: tenant.id }, () =>
    t.app.container.resolve(Orders).paymentConfirmed({ payment_id: `pay_${order.id.slice(0, 8)}`, order_id: order.id, amount: order.total, currency: order.currency }),
  );
}

/** An order of this store, paid (stock reserved). */
export async function paidOrder(t: TestApp, tenant: TestTenant, quantity = 2): Promise<OrderJson> {
  const order = await createOrder(t, tenant, await stockedVariant(t, tenant), quantity);
  await pay(t, tenant, order);
  const paid = await getOrder(t, tenant, order.id);
  if (paid.status !== 'paid') throw new Error(`order not paid: ${paid.status}`);
  return paid;
}

export function shipment(orderId: string, over: Record<string, unknown> = {}) {
  return {
    order_id: orderId,
    carrier: 'olva',
    service_code: 'standard',
    weight_g: 1200,
    length_cm: 30,
    width_cm: 20,
    height_cm: 10,
    origin_address: LIMA,
    destination_address: CUSCO,
    ...over,
  };
}

export async function createShipment(t: TestApp, tenant: TestTenant, orderId: string, over: Record<string, unknown> = {}) {
  const res = await caller(t, tenant)('POST', SHIPMENTS, shipment(orderId, over));
  if (res.statusCode !== 201) throw new Error(`shipment not created: ${res.body}`);
  return res.json().data as { id: string; status: string } & Record<string, unknown>;
}

/** Events of `type` about `id` in the outbox, oldest first. */
export async function outbox(t: TestApp, type: string, id: string) {
  return t.app.orm.em.getConnection().execute<Array<{ data: Record<string, unknown>; tenant_id: string }>>(
    `select data, tenant_id from core_outbox where type = ? and data->>'id' = ? order by occurred_at, id`,
    [type, id],
  );
}

/** Addresses as a checkout keeps them. */
export const CHECKOUT_CUSCO = { first_name: 'Rosa', last_name: 'Quispe', address1: 'Av. El Sol 123', city: 'Cusco', province: 'Cusco', country_code: 'pe', zip: '08002', phone: '+51 984 000 111' };
export const CHECKOUT_LIMA = { ...CHECKOUT_CUSCO, city: 'Lima', province: 'Lima', zip: '15001', country_code: 'PE' };

/** What the checkout asks `ShippingPrices` for: Olva's standard service, 1.2 kg from Lima to Cusco in PEN by default. */
export function priceRequest(over: Partial<ShippingPriceRequest> = {}): ShippingPriceRequest {
  return { carrier: 'olva', service: 'standard', origin: CHECKOUT_LIMA, destination: CHECKOUT_CUSCO, weightGrams: 1200, currency: 'PEN', ...over };
}

/** Runs `work` in a transaction of the tenant, as the checkout's shipping step does. */
export function inTenant<T>(t: TestApp, tenant: TestTenant, work: (tx: Tx) => Promise<T>): Promise<T> {
  return TenantContext.run({ tenantId: tenant.id }, () => t.app.container.resolve(Database).tenant(work));
}

/** `ShippingPrices.priceFor` in a transaction of the tenant. */
export function priceIn(t: TestApp, tenant: TestTenant, request: ShippingPriceRequest) {
  return inTenant(t, tenant, (tx) => t.app.container.resolve(ShippingPrices).priceFor(tx, request));
}

/** The AppError `priceFor` refuses the request with (fails when it prices it). */
export async function priceRefusal(t: TestApp, tenant: TestTenant, request: ShippingPriceRequest): Promise<AppError> {
  const error = await priceIn(t, tenant, request).then(
    (price) => {
      throw new Error(`priced: ${JSON.stringify(price)}`);
    },
    (e: unknown) => e,
  );
  if (!(error instanceof AppError)) throw error;
  return error;
}
