import { Database } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Order } from '../src/index.js';
import { ADDRESS, caller, createOrder, createVariants, ORDERS, ordersApp, registerCustomer, stockUp, type OrderJson } from './helpers.js';

let t: TestApp;
let a: TestTenant;
let b: TestTenant;
let bOrder: OrderJson;
let bShipment: string;
beforeAll(async () => {
  t = await ordersApp();
  a = await t.createTenant({ name: 'A' });
  b = await t.createTenant({ name: 'B' });
  const [v] = await createVariants(t, b, [900]);
  await stockUp(t, b, [v.id], 5);
  bOrder = await createOrder(t, b, [{ variant_id: v.id, quantity: 2 }], { customer_email: 'secret@example.com' });
  bShipment = (await caller(t, b)('POST', `${ORDERS}/${bOrder.id}/fulfillments`, { line_items: [{ variant_id: v.id, quantity: 1 }] })).json().data.id;
});
afterAll(async () => t?.close());

describe("with tenant A's key, nothing of tenant B", () => {
  it('can be listed, searched, read, changed or shipped', async () => {
    const call = caller(t, a);
    expect((await call('GET', `${ORDERS}?limit=100`)).json().data).toEqual([]);
    expect((await call('GET', `${ORDERS}?q=secret`)).json().data).toEqual([]);
    expect((await call('GET', `${ORDERS}/${bOrder.id}`)).statusCode).toBe(404);
    expect((await call('GET', `${ORDERS}/${bOrder.id}/fulfillments`)).statusCode).toBe(404);
    for (const action of ['cancel', 'ready-to-ship', 'deliver', 'in-transit', 'fulfillments']) {
      expect((await call('POST', `${ORDERS}/${bOrder.id}/${action}`, {})).statusCode, action).toBe(404);
    }
    expect((await call('POST', `/api/v1/fulfillments/${bShipment}/delivered`)).statusCode).toBe(404);
    expect((await call('POST', ORDERS, { customer_email: 'x@example.com', line_items: [{ variant_id: bOrder.line_items[0].variant_id, quantity: 1 }], shipping_address: ADDRESS })).json().error.code).toBe('VARIANT_NOT_FOUND');
    const still = await caller(t, b)('GET', `${ORDERS}/${bOrder.id}`);
    expect(still.json().data).toMatchObject({ status: 'partially_fulfilled', fulfillments: [{ status: 'shipped' }] });
  });

  it("can be reached with B's id in X-Tenant-ID", async () => {
    const res = await t.request({ method: 'GET', url: `${ORDERS}/${bOrder.id}`, headers: { authorization: `Bearer ${a.adminToken}`, 'x-tenant-id': b.id } });
    expect(res.statusCode).toBe(403);
  });

  it('is visible with the ORM tenant filter switched off: row-level security holds', async () => {
    const seen = await t.app.container.resolve(Database).tenant(({ em }) => em.find(Order, {}, { filters: false }), a.id);
    expect(seen).toEqual([]);
  });
});

describe('GraphQL orders', () => {
  const gql = (tenant: TestTenant, query: string, token?: string) =>
    t.request({ method: 'POST', url: '/graphql', headers: token === undefined ? { 'x-tenant-id': tenant.id } : tenant.headers(token), payload: { query } });
  const QUERY = '{ orders(limit: 1) { edges { node { id number status total createdAt lineItems { title quantity price } } cursor } pageInfo { hasNextPage endCursor } } }';

  it("lists the signed-in customer's orders as a connection, page by page", async () => {
    const ana = await registerCustomer(t, a, 'ana@example.com');
    const [v] = await createVariants(t, a, [1200], { title: 'Chompa' });
    const first = await createOrder(t, a, [{ variant_id: v.id, quantity: 2 }], { customer_email: 'ana@example.com' });
    const second = await createOrder(t, a, [{ variant_id: v.id, quantity: 1 }], { customer_email: 'ana@example.com' });
    await createOrder(t, a, [{ variant_id: v.id, quantity: 1 }], { customer_email: 'someone-else@example.com' });
    const page1 = (await gql(a, QUERY, ana.token)).json();
    expect(page1.errors).toBeUndefined();
    expect(page1.data.orders.edges.map((e: { node: unknown }) => e.node)).toEqual([
      { id: second.id, number: second.number, status: 'pending', total: 1200, createdAt: second.created_at, lineItems: [{ title: 'Chompa', quantity: 1, price: 1200 }] },
    ]);
    expect(page1.data.orders.pageInfo.hasNextPage).toBe(true);
    const page2 = (await gql(a, QUERY.replace('limit: 1', `limit: 1, cursor: "${page1.data.orders.pageInfo.endCursor}"`), ana.token)).json();
    expect(page2.data.orders.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual([first.id]);
    expect(page2.data.orders.pageInfo.hasNextPage).toBe(false);
  });

  it('shows what each order was paid and still owes, as its REST read does', async () => {
    const rosa = await registerCustomer(t, a, 'rosa@example.com');
    const [v] = await createVariants(t, a, [2500], { title: 'Manta' });
    await stockUp(t, a, [v.id], 5);
    const order = await createOrder(t, a, [{ variant_id: v.id, quantity: 2 }], { customer_email: 'rosa@example.com' });
    const amounts = '{ orders(limit: 1) { edges { node { id status total amountPaid amountRefunded amountWaived amountDue paidAt } } } }';
    const read = async () => (await gql(a, amounts, rosa.token)).json().data.orders.edges[0].node;
    expect(await read()).toEqual({ id: order.id, status: 'pending', total: 5000, amountPaid: 0, amountRefunded: 0, amountWaived: 0, amountDue: 5000, paidAt: null });
    // Shipped before it was paid (cash on delivery): it still owes its total.
    await caller(t, a)('POST', `${ORDERS}/${order.id}/fulfillments`, {});
    const shipped = await read();
    expect(shipped).toMatchObject({ status: 'fulfilled', amountPaid: 0, amountDue: 5000, paidAt: null });
    const rest = (await caller(t, a)('GET', `${ORDERS}/${order.id}`)).json().data;
    expect({ amountDue: shipped.amountDue, amountPaid: shipped.amountPaid, amountWaived: shipped.amountWaived }).toEqual({ amountDue: rest.amount_due, amountPaid: rest.amount_paid, amountWaived: rest.amount_waived });
  });

  it('answers FORBIDDEN to admin and storefront keys and UNAUTHENTICATED without a token', async () => {
    for (const token of [a.adminToken, a.storefrontToken]) {
      const res = (await gql(a, QUERY, token)).json();
      expect(res.errors[0].extensions.code).toBe('FORBIDDEN');
    }
    const anonymous = await gql(a, QUERY);
    const body = anonymous.json();
    expect(body.errors?.[0]?.extensions?.code ?? body.error?.code).toBe('UNAUTHENTICATED');
  });

  it('answers VALIDATION_ERROR to a bad limit', async () => {
    const ana = await registerCustomer(t, a, 'limit@example.com');
    const res = (await gql(a, '{ orders(limit: 0) { edges { cursor } } }', ana.token)).json();
    expect(res.errors[0].extensions.code).toBe('VALIDATION_ERROR');
  });
});

describe('bodies of actions', () => {
  it('an action without a body is accepted where every field is optional', async () => {
    const [v] = await createVariants(t, a, [100]);
    const order = await createOrder(t, a, [{ variant_id: v.id, quantity: 1 }]);
    const res = await t.request({ method: 'POST', url: `${ORDERS}/${order.id}/cancel`, headers: a.headers() });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.status).toBe('cancelled');
  });
});

describe('OpenAPI', () => {
  it('documents the order routes with their schemas', async () => {
    const res = await t.request({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/v1/orders', '/api/v1/orders/{id}/fulfillments', '/api/v1/fulfillments/{id}/delivered', '/api/v1/customers/{id}/orders', '/api/v1/orders/settings']));
    expect(Object.keys(doc.paths['/api/v1/orders/settings'])).toEqual(expect.arrayContaining(['get', 'put']));
    expect(doc.components.schemas).toHaveProperty('Order');
    expect(doc.components.schemas).toHaveProperty('OrderSettings');
  });
});
