import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessTokens, Database } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import catalog from '@qhatu/plugin-catalog';
import checkout from '@qhatu/plugin-checkout';
import customers from '@qhatu/plugin-customers';
import discounts from '@qhatu/plugin-discounts';
import stripe from '@qhatu/plugin-gateway-stripe';
import { StripeDouble } from '@qhatu/plugin-gateway-stripe/testing';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import orders from '@qhatu/plugin-orders';
import payments from '@qhatu/plugin-payments';
import { configureGateway, until } from '@qhatu/plugin-payments/testing';
import taxes from '../src/index.js';
import { address, caller, CARTS, CHECKOUTS, ok, ORDERS, product, TAXES, taxesApp, type Caller } from './helpers.js';

// The whole store with IGV: paid with a card (Stripe's double on 127.0.0.1), refunded in two parts.
const account = { secret_key: `sk_test_${randomBytes(8).toString('hex')}`, webhook_secret: `whsec_${randomBytes(18).toString('base64')}`, publishable_key: 'pk_test_x' };
let double: StripeDouble;
let t: TestApp;
let shop: TestTenant;
let admin: Caller;

beforeAll(async () => {
  double = await new StripeDouble(new Set([account.secret_key])).start();
  t = await taxesApp({
    plugins: [media, catalog, customers, inventory, discounts, orders, checkout, payments, stripe, taxes],
    workers: true,
    env: { QHATU_GATEWAY_STRIPE_BASE_URL: double.url },
  });
  shop = await t.createTenant({ currency: 'PEN' });
  admin = caller(t, shop);
  await configureGateway(admin, 'stripe', account);
  await ok(await admin('PATCH', `${TAXES}/settings`, { origin_country: 'PE' }));
  await ok(await admin('POST', `${TAXES}/regions`, { country_code: 'PE', rates: { standard: 1800 } }), 201);
});
afterAll(async () => {
  await t.close();
  await double.close();
});

const gql = (token: string, query: string, variables: Record<string, unknown> = {}) =>
  t.request({ method: 'POST', url: '/graphql', headers: shop.headers(token), payload: { query, variables } });

describe('an order with IGV, paid and refunded', () => {
  it('is due its total, shows its tax in GraphQL, counts revenue net of tax, and each refund gives back its share of the tax', async () => {
    const customerId = randomUUID();
    const db = t.app.container.resolve(Database);
    const { token } = await db.tenant((tx) => t.app.container.resolve(AccessTokens).issue(tx, { tenantId: shop.id, kind: 'customer', subjectId: customerId }), shop.id);
    const shopper = caller(t, shop, token);

    const poncho = await product(admin, [11800]);
    const warehouse = await ok(await admin('POST', '/api/v1/inventory/warehouses', { name: 'Cusco', code: 'WH-CUSCO' }), 201);
    await ok(await admin('POST', `/api/v1/inventory/warehouses/${warehouse.id}/stock/adjust`, { variant_id: poncho.variants[0], delta: 5, reason: 'received' }));
    const cart = await ok(await shopper('POST', CARTS, {}), 201);
    await ok(await shopper('POST', `${CARTS}/${cart.id}/items`, { variant_id: poncho.variants[0], quantity: 1 }), 201);
    const made = await ok(await shopper('POST', CHECKOUTS, { cart_id: cart.id, email: 'rosa@example.com' }), 201);
    const to = address('PE', 'Cusco');
    const placed = await ok(await shopper('PUT', `${CHECKOUTS}/${made.id}/shipping`, { shipping_address: to, shipping_rate: { carrier: 'Olva', service: 'Express', price: 0 } }));
    expect(placed).toMatchObject({ tax_total: 1800, total: 11800 });

    // A payment short of the total (the tax inside it) is a part payment; more than the total is refused.
    const over = await admin('POST', '/api/v1/payments', { order_id: placed.order_id, gateway: 'stripe', amount: 11801, currency: 'PEN', payment_method_id: 'pm_card_visa' });
    expect(over.statusCode).toBe(422);
    const payment = await ok(await admin('POST', '/api/v1/payments', { order_id: placed.order_id, gateway: 'stripe', amount: 11800, currency: 'PEN', payment_method_id: 'pm_card_visa' }), 201);
    expect(payment.status).toBe('paid');
    await until(async () => (await ok(await admin('GET', `${ORDERS}/${placed.order_id}`))).status === 'paid');

    const listed = (await gql(token, `{ orders(limit: 5) { edges { node { id subtotal taxTotal pricesIncludeTax total lineItems { price taxRate taxAmount } } } } }`)).json();
    expect(listed.data.orders.edges[0].node).toEqual({ id: placed.order_id, subtotal: 11800, taxTotal: 1800, pricesIncludeTax: true, total: 11800, lineItems: [{ price: 11800, taxRate: 1800, taxAmount: 1800 }] });

    const day = new Date().toISOString().slice(0, 10);
    const revenue = async () => (await gql(shop.adminToken, `query($r: AnalyticsRange!) { analytics(range: $r) { totalRevenue totalOrders } }`, { r: { start: day, end: day } })).json().data.analytics;
    expect(await revenue()).toEqual({ totalRevenue: 10000, totalOrders: 1 });

    const half = await ok(await admin('POST', `/api/v1/payments/${payment.id}/refund`, { amount: 5900, reason: 'requested_by_customer' }), 201);
    expect(half).toMatchObject({ amount: 5900, tax_amount: 900, status: 'refunded' });
    expect(await revenue()).toEqual({ totalRevenue: 5000, totalOrders: 1 });
    const rest = await ok(await admin('POST', `/api/v1/payments/${payment.id}/refund`, { amount: 0 }), 201);
    expect(rest).toMatchObject({ amount: 5900, tax_amount: 900 });
    const read = await ok(await admin('GET', `/api/v1/payments/${payment.id}`));
    expect(read.refunds.reduce((s: number, r: { tax_amount: number }) => s + r.tax_amount, 0)).toBe(1800);
  });

  it('rounds refunds so that a whole order in odd parts gives back exactly its tax', async () => {
    const hat = await product(admin, [1001]);
    const warehouse = (await ok(await admin('GET', '/api/v1/inventory/warehouses')))[0];
    await ok(await admin('POST', `/api/v1/inventory/warehouses/${warehouse.id}/stock/adjust`, { variant_id: hat.variants[0], delta: 5, reason: 'received' }));
    const store = caller(t, shop, shop.storefrontToken);
    const cart = await ok(await store('POST', CARTS, {}), 201);
    await ok(await store('POST', `${CARTS}/${cart.id}/items`, { variant_id: hat.variants[0], quantity: 3 }), 201);
    const made = await ok(await store('POST', CHECKOUTS, { cart_id: cart.id, email: 'ana@example.com' }), 201);
    const placed = await ok(await store('PUT', `${CHECKOUTS}/${made.id}/shipping`, { shipping_address: address('PE', 'Lima'), shipping_rate: { carrier: 'Olva', service: 'Express', price: 0 } }));
    expect(placed).toMatchObject({ total: 3003, tax_total: 458 }); // 3003 × 18 / 118 = 458.08
    const payment = await ok(await admin('POST', '/api/v1/payments', { order_id: placed.order_id, gateway: 'stripe', amount: 3003, currency: 'PEN', payment_method_id: 'pm_card_visa' }), 201);
    const given: number[] = [];
    for (const amount of [1001, 1001, 0]) given.push((await ok(await admin('POST', `/api/v1/payments/${payment.id}/refund`, { amount }), 201)).tax_amount);
    expect(given.reduce((s, x) => s + x, 0)).toBe(458);
  });
});
