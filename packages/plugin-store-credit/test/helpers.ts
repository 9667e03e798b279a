import { randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { AccessTokens, Database, type QhatuPlugin } from '@qhatu/core';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import catalog from '@qhatu/plugin-catalog';
import checkout from '@qhatu/plugin-checkout';
import customers from '@qhatu/plugin-customers';
import discounts from '@qhatu/plugin-discounts';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import orders from '@qhatu/plugin-orders';
import payments from '@qhatu/plugin-payments';
import storeCredit from '../src/index.js';

export const CREDIT = '/api/v1/store-credit';
export const PAYMENTS = '/api/v1/payments';
export const MISSING = '00000000-0000-4000-8000-000000000001';

/** The store with checkout, payments and store credit (plus `plugins`, a card gateway say). */
export function creditApp(options: { plugins?: QhatuPlugin[]; env?: Record<string, string>; workers?: boolean } = {}): Promise<TestApp> {
  return createTestApp({
    plugins: [media, catalog, customers, inventory, discounts, orders, checkout, payments, storeCredit, ...(options.plugins ?? [])],
    workers: options.workers,
    env: { QHATU_PAYMENTS_ASK_AGAIN_AFTER_SECONDS: '0', ...options.env },
  });
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type Caller = (method: Method, url: string, payload?: unknown) => ReturnType<TestApp['request']>;

/** Requests as `tenant`'s admin, or with `token`. */
export function caller(t: TestApp, tenant: TestTenant, token?: string): Caller {
  return (method, url, payload) => t.request({ method, url, headers: tenant.headers(token), payload: payload as InjectOptions['payload'] });
}

/** A customer of the store and a customer token for them (as a sign-in would issue it). */
export async function createCustomer(t: TestApp, tenant: TestTenant, email = `c-${randomUUID().slice(0, 8)}@example.com`) {
  const res = await caller(t, tenant)('POST', '/api/v1/customers', { email, first_name: 'Rosa', last_name: 'Quispe' });
  if (res.statusCode !== 201) throw new Error(`customer not created: ${res.body}`);
  const id: string = res.json().data.id;
  const { token } = await t.app.container.resolve(Database).tenant(
    (tx) => t.app.container.resolve(AccessTokens).issue(tx, { tenantId: tenant.id, kind: 'customer', subjectId: id }),
    tenant.id,
  );
  return { id, email, token, api: caller(t, tenant, token) };
}

/** A product of one variant at `price`. */
export async function createProduct(admin: Caller, price = 1000): Promise<string> {
  const res = await admin('POST', '/api/v1/catalog/products', { title: 'Alpaca scarf', variants: [{ title: 'Grey', sku: `SKU-${randomUUID().slice(0, 8)}`, price }] });
  if (res.statusCode !== 201) throw new Error(`product not created: ${res.body}`);
  return res.json().data.variants[0].id;
}

export const ADDRESS = { first_name: 'Rosa', last_name: 'Quispe', address1: 'Av. Sol 123', city: 'Cusco', province: 'Cusco', country_code: 'PE', zip: '08000', phone: '+51987654321' };

export interface Placed {
  checkoutId: string;
  order: { id: string; total: number; currency: string };
}

/**
 * The shopper's way to an order: a cart of `quantity` units of `variantId`, a checkout, the
 * shipping step (which places the order), all with `shopper`'s token. Shipping is `shipping`.
 */
export async function placeOrder(shopper: Caller, variantId: string, quantity = 1, shipping = 500): Promise<Placed> {
  const cart = await shopper('POST', '/api/v1/checkout/carts', {});
  if (cart.statusCode !== 201) throw new Error(`cart not created: ${cart.body}`);
  const added = await shopper('POST', `/api/v1/checkout/carts/${cart.json().data.id}/items`, { variant_id: variantId, quantity });
  if (added.statusCode !== 201) throw new Error(`item not added: ${added.body}`);
  const made = await shopper('POST', '/api/v1/checkout/checkouts', { cart_id: cart.json().data.id, email: 'rosa@example.com' });
  if (made.statusCode !== 201) throw new Error(`checkout not created: ${made.body}`);
  const stepped = await shopper('PUT', `/api/v1/checkout/checkouts/${made.json().data.id}/shipping`, {
    shipping_address: ADDRESS,
    shipping_rate: { carrier: 'Olva', service: 'Express', price: shipping },
  });
  if (stepped.statusCode !== 200) throw new Error(`order not placed: ${stepped.body}`);
  const checkoutView = stepped.json().data;
  return { checkoutId: checkoutView.id, order: { id: checkoutView.order_id, total: checkoutView.total, currency: checkoutView.currency } };
}

/** Switches the store_credit gateway on for the store. */
export async function enableStoreCredit(admin: Caller): Promise<void> {
  const res = await admin('PUT', '/api/v1/payments/gateways/store-credit', { enabled: true });
  if (res.statusCode !== 200) throw new Error(`store credit not enabled: ${res.body}`);
}

export async function grant(admin: Caller, customerId: string, amount: number, currency = 'USD', reason = 'Goodwill') {
  const res = await admin('POST', `${CREDIT}/customers/${customerId}/entries`, { kind: 'grant', currency, amount, reason });
  if (res.statusCode !== 201) throw new Error(`credit not granted: ${res.body}`);
  return res.json().data;
}

/** Pays `amount` of the order with store credit as `api`. */
export function payWithCredit(api: Caller, order: Placed['order'], amount = order.total) {
  return api('POST', PAYMENTS, { order_id: order.id, gateway: 'store-credit', amount, currency: order.currency });
}

/** The store's ledger as the database holds it: each balance against the sum of its entries. */
export async function ledgerOf(t: TestApp, tenantId: string, customerId: string) {
  const sql = t.app.orm.em.getConnection();
  const [balance] = await sql.execute<Array<{ balance: string }>>(`select balance from store_credit_balance where tenant_id = ? and customer_id = ?`, [tenantId, customerId]);
  const entries = await sql.execute<Array<{ kind: string; amount: string; balance_after: string; payment_id: string | null }>>(
    `select kind, amount, balance_after, payment_id from store_credit_entry where tenant_id = ? and customer_id = ? order by created_at, balance_after desc`,
    [tenantId, customerId],
  );
  return {
    balance: balance ? Number(balance.balance) : 0,
    entries: entries.map((e) => ({ kind: e.kind, amount: Number(e.amount), balanceAfter: Number(e.balance_after), paymentId: e.payment_id })),
    sum: entries.reduce((s, e) => s + Number(e.amount), 0),
  };
}

export async function until(check: () => Promise<boolean>, ms = 15_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('timed out waiting');
}
