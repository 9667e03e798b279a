import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import catalog from '@qhatu/plugin-catalog';
import customers from '@qhatu/plugin-customers';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import orders, { Orders } from '../src/index.js';
import { caller, confirmPayment, createOrder, createVariants, inTenant, ORDERS, paymentsAnnouncer, type OrderJson } from './helpers.js';

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
        { productId: expect.any(String), title: 'Poncho', revenue: 12000 },
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
