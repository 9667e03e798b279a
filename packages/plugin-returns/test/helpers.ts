import { randomUUID } from 'node:crypto';
import type { Clock, QhatuPlugin } from '@qhatu/core';
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
import returns from '../src/index.js';

export { caller, ok, type Caller };

export const MISSING = '00000000-0000-4000-8000-000000000001';
export const ADDRESS = { first_name: 'Rosa', last_name: 'Quispe', address1: 'Av. Sol 123', city: 'Cusco', province: 'Cusco', country_code: 'PE', zip: '08000', phone: '+51987654321' };

/** The plugins of a store that takes returns: orders placed as draft orders, taxes, shipping rates, payments by an offline method. */
export const STORE: QhatuPlugin[] = [media, catalog, customers, inventory, discounts, orders, taxes, shipping, payments, offline, draftOrders, returns];

export function returnsApp(options: { plugins?: QhatuPlugin[]; env?: Record<string, string>; clock?: Clock } = {}): Promise<TestApp> {
  return createTestApp({ plugins: options.plugins ?? STORE, workers: true, clock: options.clock, env: { QHATU_PAYMENTS_ASK_AGAIN_AFTER_SECONDS: '0', ...options.env } });
}

export interface Shop {
  tenant: TestTenant;
  admin: Caller;
  warehouse: string;
  method: string;
}

/** A PEN store taxed at 18 % (prices with or without it), Olva rates by weight, a default warehouse, Yape as an offline method, two return reasons. */
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
  for (const [code, label] of [['wrong_size', 'Wrong size'], ['changed_mind', 'Changed my mind']]) await ok(await admin('POST', '/api/v1/return-reasons', { code, label }), 201);
  return { tenant, admin, warehouse, method };
}

/** An active product (one variant at `price`) with `units` in the store's warehouse; its ids. */
export async function product(s: Shop, price: number, units = 20, variant: Record<string, unknown> = {}): Promise<{ productId: string; variantId: string }> {
  const made = await ok(await s.admin('POST', '/api/v1/catalog/products', { title: `Poncho ${randomUUID().slice(0, 4)}`, status: 'active', variants: [{ title: 'Default', sku: `SKU-${randomUUID().slice(0, 8)}`, price, weight_grams: 1000, ...variant }] }), 201);
  const variantId = made.variants[0].id as string;
  if (units > 0) await ok(await s.admin('POST', `/api/v1/inventory/warehouses/${s.warehouse}/stock/adjust`, { variant_id: variantId, delta: units, reason: 'received' }), 200);
  return { productId: made.id, variantId };
}

/** A shopper signed up through the storefront key: their token and customer id. */
export async function shopper(t: TestApp, s: Shop): Promise<{ token: string; id: string; email: string; api: Caller }> {
  await ok(await s.admin('PUT', '/api/v1/customers/settings', { registration: 'instant' }), 200);
  const email = `${randomUUID().slice(0, 8)}@example.com`;
  const res = await caller(t, s.tenant, s.tenant.storefrontToken)('POST', '/api/v1/auth/customer/register', { email, password: 'correct horse battery', first_name: 'Ana', last_name: 'Mamani' });
  expect(res.statusCode, res.body).toBe(201);
  const data = res.json().data as { token: string; customer: { id: string } };
  return { token: data.token, id: data.customer.id, email, api: caller(t, s.tenant, data.token) };
}

/** An order placed as a draft order is, paid in full by the offline method (split over `parts` payments) and fulfilled; the order. */
export async function fulfilledOrder(t: TestApp, s: Shop, draft: Record<string, unknown>, parts = 1): Promise<Order> {
  const d = await ok(await s.admin('POST', '/api/v1/draft-orders', { email: 'rosa@example.com', shipping_address: ADDRESS, ...draft }), 201);
  const done = await ok(await s.admin('POST', `/api/v1/draft-orders/${d.id}/complete`, {}), 200);
  const placed = await ok(await s.admin('GET', `/api/v1/orders/${done.order_id}`), 200);
  let left = placed.total as number;
  for (let n = parts; n >= 1; n--) {
    const amount = n === 1 ? left : Math.floor(placed.total / parts);
    await pay(s, placed.id, amount);
    left -= amount;
  }
  await t.settle();
  await ok(await s.admin('POST', `/api/v1/orders/${placed.id}/fulfillments`, {}), 201);
  const o = await ok(await s.admin('GET', `/api/v1/orders/${placed.id}`), 200);
  expect(o).toMatchObject({ status: 'fulfilled', amount_paid: placed.total, amount_due: 0 });
  return o;
}

/** Pays `amount` of the order by the offline method, received in full. */
export async function pay(s: Shop, orderId: string, amount: number): Promise<string> {
  const payment = await ok(await s.admin('POST', '/api/v1/payments', { order_id: orderId, gateway: 'offline', amount, currency: 'PEN', method_id: s.method }), 201);
  await ok(await s.admin('POST', '/api/v1/payments/offline/receipts', { payment_id: payment.id, amount }), 201);
  return payment.id;
}

/** Dollars at 0.27 a sol, rounded to the nearest cent; the address in Miami of the market `us`. */
export const USD = { code: 'USD', rate: '0.27', rounding_increment: 1, rounding: 'nearest' };
export const US_ADDRESS = { ...ADDRESS, city: 'Miami', province: 'FL', country_code: 'US', zip: '33101' };

/**
 * The store sells in US dollars too (`USD`), to its market `us` (tax added: Florida's 7 %), ships
 * there at 25.00 and takes Zelle in dollars; the Zelle method's id.
 */
export async function sellInDollars(s: Shop): Promise<string> {
  await ok(await s.admin('PUT', '/api/v1/currencies', { currencies: [USD] }), 200);
  const locales = await ok(await s.admin('GET', '/api/v1/locales'), 200);
  await ok(await s.admin('POST', '/api/v1/markets', { handle: 'us', name: 'United States', countries: ['US'], currency: 'USD', default_locale: locales.default_locale, prices_include_tax: false }), 201);
  await ok(await s.admin('POST', '/api/v1/taxes/regions', { country_code: 'US', province: 'FL', rates: { standard: 700 } }), 201);
  const rate = { carrier: 'olva', service_name: 'Olva Internacional', service_code: 'standard', currency: 'USD', estimated_days: 7, origin_country: 'PE', destination_country: 'US' };
  await ok(await s.admin('POST', '/shipping/rates', { ...rate, weight_g: 5000, amount: 2500 }), 201);
  return (await ok(await s.admin('POST', '/api/v1/payments/offline/methods', { name: 'Zelle', kind: 'bank_transfer', instructions: 'Zelle a pagos@example.com', currencies: ['USD'] }), 201)).id;
}

/** One unit of `variantId` checked out by `buyer` in the market `us`, shipped to Miami, paid in dollars by Zelle (`sellInDollars`) and fulfilled; the order. */
export async function dollarOrder(t: TestApp, s: Shop, buyer: Caller, zelle: string, email: string, variantId: string): Promise<Order> {
  const cart = await ok(await buyer('POST', '/api/v1/checkout/carts', { market: 'us' }), 201);
  await ok(await buyer('POST', `/api/v1/checkout/carts/${cart.id}/items`, { variant_id: variantId, quantity: 1 }), 201);
  const made = await ok(await buyer('POST', '/api/v1/checkout/checkouts', { cart_id: cart.id, email }), 201);
  const placed = await ok(await buyer('PUT', `/api/v1/checkout/checkouts/${made.id}/shipping`, { shipping_address: US_ADDRESS, shipping_rate: { carrier: 'olva', service: 'standard', price: 2500 } }), 200);
  const o = await ok(await s.admin('GET', `/api/v1/orders/${placed.order_id}`), 200);
  const payment = await ok(await s.admin('POST', '/api/v1/payments', { order_id: o.id, gateway: 'offline', amount: o.total, currency: 'USD', method_id: zelle }), 201);
  await ok(await s.admin('POST', '/api/v1/payments/offline/receipts', { payment_id: payment.id, amount: o.total }), 201);
  await t.settle();
  await ok(await s.admin('POST', `/api/v1/orders/${o.id}/fulfillments`, {}), 201);
  return ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200);
}

export async function levelOf(s: Shop, variantId: string, warehouse = s.warehouse) {
  const rows = (await ok(await s.admin('GET', `/api/v1/inventory/warehouses/${warehouse}/stock?filter[variant_id]=${variantId}`), 200)) as Array<{ on_hand: number; reserved: number; available: number }>;
  const [level] = rows;
  return level ? { on_hand: level.on_hand, reserved: level.reserved, available: level.available } : { on_hand: 0, reserved: 0, available: 0 };
}

/** The status codes of answers to requests made at once, sorted. */
export const statuses = (answers: Array<{ statusCode: number }>) => answers.map((a) => a.statusCode).sort();

/** The error of a non-2xx answer, checked to be `status` with `code`. */
export function expectError(res: { statusCode: number; body: string; json(): any }, status: number, code: string) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json().error.code, res.body).toBe(code);
  return res.json().error as { code: string; message: string; details: Array<Record<string, unknown>> };
}

/** Asks for a return through `api` (201); the return. */
export async function requestReturn(api: Caller, body: Record<string, unknown>): Promise<Ret> {
  return ok(await api('POST', '/api/v1/returns', { reason_code: 'wrong_size', ...body }), 201);
}

/** A return approved, every line received into the default warehouse, and refunded with `refund` (200); the return as it ends. */
export async function returnedAndRefunded(s: Shop, ret: Ret, refund: Record<string, unknown> = {}): Promise<Ret> {
  await ok(await s.admin('POST', `/api/v1/returns/${ret.id}/approve`), 200);
  const lines = ret.lines.filter((l) => l.kind === 'returned').map((l) => ({ line_id: l.id, quantity: l.quantity }));
  await ok(await s.admin('POST', `/api/v1/returns/${ret.id}/receive`, { lines }), 200);
  return ok(await s.admin('POST', `/api/v1/returns/${ret.id}/refund`, refund), 200);
}

/** Each new item of an exchange: its variant, unit price, tax and what the customer pays for it, in minor units. */
export const newLines = (ret: Ret) => ret.lines.filter((l) => l.kind === 'new').map((l) => [l.variant_id, l.unit_price, l.tax_amount, l.refund_amount]);

/** What the page behind a return's payment link answers (200), opened with the link's token alone. */
export async function linkedPage(t: TestApp, paymentUrl: string): Promise<Record<string, unknown>> {
  const token = new URL(paymentUrl).searchParams.get('token')!;
  return ok(await t.request({ method: 'GET', url: `/api/v1/returns/payment?token=${encodeURIComponent(token)}` }), 200);
}

export async function outbox(t: TestApp, type: string, id: string) {
  return t.app.orm.em.getConnection().execute<Array<{ data: Record<string, unknown> }>>(
    `select data from core_outbox where type = ? and (data->>'id' = ? or data->>'order_id' = ?) order by occurred_at, id`,
    [type, id, id],
  );
}

export type Order = Record<string, any> & { id: string; status: string; total: number; line_items: Array<Record<string, any>> };
export type Ret = Record<string, any> & { id: string; status: string; lines: Array<Record<string, any>>; refund_amount: number };
