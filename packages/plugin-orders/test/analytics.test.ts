import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import catalog from '@qhatu/plugin-catalog';
import customers from '@qhatu/plugin-customers';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import orders, { Orders, type PlaceOrderInput } from '../src/index.js';
import { caller, confirmPayment, createOrder, createVariants, getOrder, inTenant, ORDERS, paymentsAnnouncer, type OrderJson } from './helpers.js';

// GraphQL analytics(range): revenue of the orders paid within the range (UTC days, both ends
// included) that are paid or further on, net of refunds; made here at chosen moments of a test clock.
let now = new Date('2026-03-10T12:00:00Z');
let t: TestApp;
let shop: TestTenant;
let customerToken: string;
beforeAll(async () => {
  t = await createTestApp({ plugins: [media, catalog, customers, inventory, orders, paymentsAnnouncer], clock: { now: () => now } });
  shop = await t.createTenant({ currency: 'PEN' });
  // A store that signs new shoppers in at once (the default finishes sign-up from an e-mailed link).
  await t.request({ method: 'PUT', url: '/api/v1/customers/settings', headers: shop.headers(), payload: { registration: 'instant' } });
  const registered = await t.request({ method: 'POST', url: '/api/v1/auth/customer/register', headers: shop.headers(shop.storefrontToken), payload: { email: 'ana@example.com', password: 'a long enough password' } });
  expect(registered.statusCode, registered.body).toBe(201);
  customerToken = registered.json().data.token;
});
afterAll(async () => t?.close());

const QUERY = (start: string, end: string) => `{ analytics(range: { start: "${start}", end: "${end}" }) { totalRevenue totalOrders averageOrderValue currency topProducts { productId title revenue } } }`;
const gql = (query: string, token?: string | null) =>
  t.request({ method: 'POST', url: '/graphql', headers: token === null ? { 'x-tenant-id': shop.id } : shop.headers(token), payload: { query } });

/** A paid order of digital items (nothing to reserve) at `at`: each line one unit of `variants`. */
async function paidAt(at: string, variants: string[]): Promise<OrderJson> {
  now = new Date(at);
  const order = await createOrder(t, shop, variants.map((id) => ({ variant_id: id, quantity: 1 })));
  await confirmPayment(t, shop, order);
  return order;
}
const refund = (order: OrderJson, refunded: number) =>
  inTenant(t, shop, (tx) => t.app.container.resolve(Orders).recordRefunds(tx, order.id, [{ payment_id: `pay_${order.id.slice(0, 8)}`, amount: order.total, currency: order.currency, refunded_amount: refunded }]));

describe('GraphQL analytics', () => {
  let poncho: string;
  let scarf: string;
  let hat: string;
  beforeAll(async () => {
    const digital = { requires_shipping: false };
    [{ id: poncho }] = await createVariants(t, shop, [6000], { title: 'Poncho' }, digital);
    [{ id: scarf }] = await createVariants(t, shop, [4000], { title: 'Scarf' }, digital);
    [{ id: hat }] = await createVariants(t, shop, [1000], { title: 'Hat' }, digital);

    await paidAt('2026-03-01T00:00:00Z', [poncho, scarf]); // 100.00, the first instant of the range
    const partly = await paidAt('2026-03-10T12:00:00Z', [poncho]); // 60.00, 15.00 of it refunded
    await refund(partly, 1500);
    const refunded = await paidAt('2026-03-11T09:00:00Z', [scarf]); // refunded in full: no revenue
    await refund(refunded, refunded.total);
    const cancelled = await paidAt('2026-03-12T09:00:00Z', [hat]); // paid, then cancelled
    expect((await caller(t, shop)('POST', `${ORDERS}/${cancelled.id}/cancel`, { reason: 'customer changed their mind' })).statusCode).toBe(200);
    now = new Date('2026-03-13T09:00:00Z');
    await createOrder(t, shop, [{ variant_id: poncho, quantity: 3 }]); // never paid
    await paidAt('2026-03-31T23:59:59Z', [hat]); // 10.00, the last second of the range
    await paidAt('2026-04-01T00:00:00Z', [poncho, poncho]); // the day after: outside
    await paidAt('2026-02-28T23:59:59Z', [scarf]); // the day before: outside
    expect((await caller(t, shop)('GET', `${ORDERS}?filter[status]=refunded`)).json().data).toHaveLength(1);
  });

  it('counts the orders paid in the range, net of refunds; cancelled, refunded, unpaid and outside orders do not count', async () => {
    const res = await gql(QUERY('2026-03-01', '2026-03-31'));
    expect(res.json().errors).toBeUndefined();
    expect(res.json().data.analytics).toEqual({
      totalRevenue: 10000 + 4500 + 1000,
      totalOrders: 3,
      averageOrderValue: 5167,
      currency: 'PEN',
      topProducts: [
        // 6000 and 4500 (the 60.00 order kept 45.00): the products add up to totalRevenue.
        { productId: expect.any(String), title: 'Poncho', revenue: 10500 },
        { productId: expect.any(String), title: 'Scarf', revenue: 4000 },
        { productId: expect.any(String), title: 'Hat', revenue: 1000 },
      ],
    });
    const one = (await gql(QUERY('2026-04-01', '2026-04-01'))).json().data.analytics;
    expect(one).toMatchObject({ totalRevenue: 12000, totalOrders: 1, averageOrderValue: 12000, topProducts: [{ title: 'Poncho', revenue: 12000 }] });
    expect((await gql(QUERY('2025-01-01', '2025-01-31'))).json().data.analytics).toEqual({ totalRevenue: 0, totalOrders: 0, averageOrderValue: 0, currency: 'PEN', topProducts: [] });
  });

  it('answers in a fixed handful of statements, whatever the number of orders', async () => {
    await gql(QUERY('2026-03-01', '2026-03-31')); // the admin key is looked up once, then cached
    const few = await t.countQueries(() => gql(QUERY('2026-03-01', '2026-03-31')));
    for (let i = 0; i < 5; i++) await paidAt(`2026-03-20T0${i}:00:00Z`, [poncho, scarf, hat]);
    const more = await t.countQueries(() => gql(QUERY('2026-03-01', '2026-03-31')));
    expect(more.result.json().data.analytics.totalOrders).toBe(8);
    // BEGIN with the tenant, the totals, the top products, COMMIT.
    expect(more.count, more.statements.join('\n')).toBeLessThanOrEqual(4);
    expect(more.count).toBe(few.count);
  });

  it('is for admin tokens: a storefront key or a customer is FORBIDDEN, no token UNAUTHENTICATED', async () => {
    for (const [token, code] of [[shop.storefrontToken, 'FORBIDDEN'], [customerToken, 'FORBIDDEN'], [null, 'UNAUTHENTICATED']] as const) {
      const res = (await gql(QUERY('2026-03-01', '2026-03-31'), token)).json();
      expect(res.data).toBeNull();
      expect(res.errors[0].extensions.code, String(token)).toBe(code);
    }
  });

  it('refuses a bad range with VALIDATION_ERROR: end before start, not a date, more than 366 days', async () => {
    for (const [start, end] of [['2026-03-31', '2026-03-01'], ['2026-3-1', '2026-03-31'], ['2026-02-30', '2026-03-01'], ['yesterday', 'today'], ['2025-01-01', '2026-01-02']]) {
      const res = (await gql(QUERY(start, end))).json();
      expect(res.errors?.[0]?.extensions.code, `${start}..${end}`).toBe('VALIDATION_ERROR');
      expect(res.errors[0].message).toMatch(/range/);
    }
    expect((await gql('{ analytics { totalRevenue } }')).json().errors[0].extensions.code).toBe('VALIDATION_ERROR');
    // A year and a day (2024 is a leap year) is allowed.
    expect((await gql(QUERY('2024-01-01', '2024-12-31'))).json().errors).toBeUndefined();
  });
});

describe('GraphQL analytics of discounted lines', () => {
  let store: TestTenant;
  beforeAll(async () => {
    store = await t.createTenant({ currency: 'PEN' });
  });
  const gqlIn = (query: string, token?: string) => t.request({ method: 'POST', url: '/graphql', headers: store.headers(token), payload: { query } });

  /** An order placed as the checkout places it (its lines' discount shares and its tax quote), paid at `at`. */
  async function placedAndPaid(at: string, input: Omit<PlaceOrderInput, 'customerEmail'>): Promise<OrderJson> {
    now = new Date(at);
    const placed = await inTenant(t, store, (tx) => t.app.container.resolve(Orders).placeOrder(tx, { customerEmail: 'rosa@example.com', ...input }));
    const order = await getOrder(t, store, placed.id);
    await confirmPayment(t, store, order);
    return order;
  }

  it("its top products add up to totalRevenue: each line's revenue is net of its discount, its tax and refunds", async () => {
    const digital = { requires_shipping: false };
    const [{ id: poncho, product_id: ponchoProduct }] = await createVariants(t, store, [11800], { title: 'Poncho' }, digital);
    const [{ id: scarf, product_id: scarfProduct }] = await createVariants(t, store, [5900], { title: 'Scarf' }, digital);
    const [{ id: hat, product_id: hatProduct }] = await createVariants(t, store, [1000], { title: 'Hat' }, digital);
    // Prices include an 18 % tax; a coupon took 1180 off each line: 10620 each, 1620 of it tax.
    const inclusive = await placedAndPaid('2026-05-04T10:00:00Z', {
      lines: [{ variantId: poncho, quantity: 1, discount: 1180 }, { variantId: scarf, quantity: 2, discount: 1180 }],
      discountTotal: 2360,
      taxes: {
        pricesIncludeTax: true,
        lines: [{ variantId: poncho, taxClass: 'standard', rate: 1800, amount: 1620 }, { variantId: scarf, taxClass: 'standard', rate: 1800, amount: 1620 }],
        shipping: { rate: 0, amount: 0 },
        total: 3240,
      },
    });
    expect(inclusive).toMatchObject({ subtotal: 23600, discount_total: 2360, tax_total: 3240, total: 21240 });
    // No tax; 300 off, and a third of what was paid refunded.
    const refunded = await placedAndPaid('2026-05-05T10:00:00Z', { lines: [{ variantId: hat, quantity: 3 }], discountTotal: 300 });
    expect(refunded.total).toBe(2700);
    await inTenant(t, store, (tx) =>
      t.app.container.resolve(Orders).recordRefunds(tx, refunded.id, [{ payment_id: `pay_${refunded.id.slice(0, 8)}`, amount: 2700, currency: 'PEN', refunded_amount: 900 }]),
    );

    const res = await gqlIn(QUERY('2026-05-01', '2026-05-31'));
    expect(res.json().errors).toBeUndefined();
    const figures = res.json().data.analytics;
    expect(figures).toMatchObject({ totalRevenue: 18000 + 1800, totalOrders: 2 });
    expect(figures.topProducts).toEqual(expect.arrayContaining([
      { productId: ponchoProduct, title: 'Poncho', revenue: 9000 },
      { productId: scarfProduct, title: 'Scarf', revenue: 9000 },
      { productId: hatProduct, title: 'Hat', revenue: 1800 },
    ]));
    expect(figures.topProducts).toHaveLength(3);
    expect(figures.topProducts.reduce((sum: number, p: { revenue: number }) => sum + p.revenue, 0)).toBe(figures.totalRevenue);
  });
});

describe('GraphQL analytics needs orders.read', () => {
  const platform = () => ({ authorization: `Bearer ${t.platformToken}` });
  const errorOf = async (token: string) => {
    const res = (await gql(QUERY('2026-03-01', '2026-03-31'), token)).json();
    return { data: res.data, code: res.errors?.[0]?.extensions?.code, message: res.errors?.[0]?.message };
  };
  async function role(name: string, permissions: string[]): Promise<string> {
    const res = await caller(t, shop)('POST', '/api/v1/roles', { name, permissions });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data.id;
  }
  async function staffWith(roleId: string, email: string): Promise<string> {
    const password = 'correct horse battery staple';
    const made = await caller(t, shop)('POST', '/api/v1/staff', { email, first_name: 'Ana', last_name: 'Quispe', role_id: roleId, password });
    expect(made.statusCode, made.body).toBe(201);
    const session = await t.request({ method: 'POST', url: '/api/v1/auth/staff/login', headers: { 'x-tenant-id': shop.id }, payload: { email, password } });
    return session.json().data.token;
  }
  async function keyWith(roleId: string): Promise<string> {
    const issued = await t.request({ method: 'POST', url: `/api/v1/tenants/${shop.id}/api-keys`, headers: platform(), payload: { name: `Key ${roleId.slice(0, 8)}`, scope: 'admin', role_id: roleId } });
    expect(issued.statusCode, issued.body).toBe(201);
    return issued.json().data.token;
  }

  it('is FORBIDDEN, naming the permission, to a staff member whose role holds only another one, as GET /orders is 403', async () => {
    const token = await staffWith(await role('Packer', ['orders.fulfil']), 'packer@example.com');
    expect((await caller(t, shop, token)('GET', ORDERS)).statusCode).toBe(403);
    const refused = await errorOf(token);
    expect(refused).toMatchObject({ data: null, code: 'FORBIDDEN' });
    expect(refused.message).toContain('orders.read');
  });

  it('is FORBIDDEN to an admin key bound to a role without orders.read', async () => {
    const refused = await errorOf(await keyWith(await role('Fulfilment key', ['orders.fulfil'])));
    expect(refused).toMatchObject({ data: null, code: 'FORBIDDEN' });
  });

  it('answers a staff member and a role-bound key holding orders.read', async () => {
    const reader = await role('Sales reader', ['orders.read']);
    for (const token of [await staffWith(reader, 'sales@example.com'), await keyWith(reader)]) {
      const res = (await gql(QUERY('2026-03-01', '2026-03-31'), token)).json();
      expect(res.errors).toBeUndefined();
      expect(res.data.analytics.currency).toBe('PEN');
    }
  });
});
