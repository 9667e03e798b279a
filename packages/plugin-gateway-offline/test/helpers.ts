import { randomUUID } from 'node:crypto';
import { definePlugin, type QhatuPlugin } from '@qhatu/core';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import catalog from '@qhatu/plugin-catalog';
import checkout from '@qhatu/plugin-checkout';
import customers from '@qhatu/plugin-customers';
import discounts from '@qhatu/plugin-discounts';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import orders from '@qhatu/plugin-orders';
import payments, { PAYMENT_GATEWAY, type PaymentGateway } from '@qhatu/plugin-payments';
import { caller, configureGateway, ok, type Caller } from '@qhatu/plugin-payments/testing';
import { expect } from 'vitest';
import offline from '../src/index.js';

export const METHODS = '/api/v1/payments/offline/methods';
export const AVAILABLE = '/api/v1/payments/offline/available-methods';
export const RECEIPTS = '/api/v1/payments/offline/receipts';
export const OFFLINE_PAYMENTS = '/api/v1/payments/offline/payments';

/** Switches the offline gateway on for the store (it takes no credentials). */
export const switchOn = (admin: Caller) => configureGateway(admin, 'offline', {});

/** An offline method of the store, a bank transfer in soles unless told otherwise. */
export async function addMethod(admin: Caller, fields: Record<string, unknown> = {}) {
  return ok(
    await admin('POST', METHODS, {
      name: `Transferencia ${randomUUID().slice(0, 6)}`,
      kind: 'bank_transfer',
      instructions: 'BCP soles 191-2345678-0-12, CCI 002-191-002345678012-55, a nombre de Tienda Qhatu SAC',
      currencies: ['PEN'],
      ...fields,
    }),
    201,
  ) as Promise<{ id: string; name: string; kind: string; instructions: string; currencies: string[]; enabled: boolean; position: number }>;
}

/**
 * A gateway that pays at once, as any card gateway's happy path does: what a payment of another
 * gateway needs in these tests (an offline receipt is refused for it).
 */
const instantGateway: PaymentGateway = {
  id: 'instant',
  name: 'Instant Pay',
  currencies: ['PEN'],
  paymentFields: [],
  credentialFields: [],
  defaultBaseUrl: 'https://instant.invalid',
  idempotent: { charge: true, refund: true },
  charge: async (_ctx, req) => ({ status: 'paid', providerPaymentId: `inst_${req.paymentId}`, method: 'card' }),
  status: async (_ctx, id) => ({ status: 'paid', providerPaymentId: id, method: 'card' }),
  refund: async (_ctx, req) => ({ status: 'refunded', providerRefundId: `inst_refund_${req.refundId}` }),
  verifyNotification: () => false,
  parseNotification: () => null,
};
export const instant = definePlugin({ name: 'instant', dependsOn: ['payments'], register: (c) => void c.register(PAYMENT_GATEWAY, { useValue: instantGateway }) });

/** The store from catalog to checkout with payments, the offline gateway (and `extra` plugins); workers run the event jobs. */
export async function offlineStore(options: { workers?: boolean; extra?: QhatuPlugin[]; env?: Record<string, string> } = {}) {
  const t = await createTestApp({
    plugins: [media, catalog, customers, inventory, discounts, orders, checkout, payments, offline, ...(options.extra ?? [])],
    workers: options.workers ?? true,
    env: { QHATU_PAYMENTS_ASK_AGAIN_AFTER_SECONDS: '0', ...options.env },
  });
  const shop = await t.createTenant({ currency: 'PEN' });
  const other = await t.createTenant({ currency: 'PEN' });
  const admin = caller(t, shop);
  const store = caller(t, shop, shop.storefrontToken);
  const warehouse: string = (await ok(await admin('POST', '/api/v1/inventory/warehouses', { name: 'Cusco', code: 'WH-CUSCO' }), 201)).id;
  return { t, shop, other, admin, store, warehouse };
}

const ADDRESS = { first_name: 'Rosa', last_name: 'Quispe', address1: 'Av. Sol 123', city: 'Cusco', province: 'Cusco', country_code: 'PE', zip: '08000', phone: '+51987654321' };

/**
 * A checkout of the store awaiting payment, as a storefront makes it: 2 units of a product (40.00
 * each, 5 in stock) and shipping 15.00, so 95.00 due; the order placed holds the 2 units.
 */
export async function awaitingPayment(admin: Caller, store: Caller, warehouse: string) {
  const product = await ok(await admin('POST', '/api/v1/catalog/products', { title: 'Alpaca scarf', variants: [{ title: 'Grey', sku: `SKU-${randomUUID().slice(0, 8)}`, price: 4000 }] }), 201);
  const variant = product.variants[0].id as string;
  await ok(await admin('POST', `/api/v1/inventory/warehouses/${warehouse}/stock/adjust`, { variant_id: variant, delta: 5, reason: 'received' }), 200);
  const cart = await ok(await store('POST', '/api/v1/checkout/carts', {}), 201);
  await ok(await store('POST', `/api/v1/checkout/carts/${cart.id}/items`, { variant_id: variant, quantity: 2 }), 201);
  const made = await ok(await store('POST', '/api/v1/checkout/checkouts', { cart_id: cart.id, email: 'rosa@example.com' }), 201);
  const shipping = { shipping_address: ADDRESS, billing_address: ADDRESS, shipping_rate: { carrier: 'Olva', service: 'Express', price: 1500 } };
  const c = await ok(await store('PUT', `/api/v1/checkout/checkouts/${made.id}/shipping`, shipping), 200);
  expect(c).toMatchObject({ status: 'payment_pending', total: 9500, currency: 'PEN', order_id: expect.any(String) });
  return { checkout: c as { id: string; order_id: string; total: number; currency: string }, variant };
}

/** A token of a staff member of `tenant` whose role holds exactly `permissions`. */
export async function staffWith(t: TestApp, tenant: TestTenant, permissions: string[]): Promise<string> {
  const admin = caller(t, tenant);
  const role = await ok(await admin('POST', '/api/v1/roles', { name: `Role ${randomUUID().slice(0, 8)}`, permissions }), 201);
  const email = `staff-${randomUUID().slice(0, 8)}@example.com`;
  const password = 'correct horse battery staple';
  await ok(await admin('POST', '/api/v1/staff', { email, first_name: 'Ana', last_name: 'Quispe', role_id: role.id, password }), 201);
  const session = await t.request({ method: 'POST', url: '/api/v1/auth/staff/login', headers: { 'x-tenant-id': tenant.id }, payload: { email, password } });
  expect(session.statusCode, session.body).toBe(200);
  return session.json().data.token;
}

/** A GraphQL request of `tenant` with `token` (its admin key unless told). */
export function gql(t: TestApp, tenant: TestTenant, query: string, variables: Record<string, unknown> = {}, token?: string) {
  return t.request({ method: 'POST', url: '/graphql', headers: tenant.headers(token), payload: { query, variables } });
}

/** The first error of a non-2xx answer, checked to be `status` with `code`. */
export function expectError(res: { statusCode: number; body: string; json(): any }, status: number, code: string) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json().error.code, res.body).toBe(code);
  return res.json().error as { code: string; message: string; details: Array<Record<string, unknown>> };
}
