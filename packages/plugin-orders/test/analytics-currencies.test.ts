import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import catalog from '@qhatu/plugin-catalog';
import customers from '@qhatu/plugin-customers';
import inventory from '@qhatu/plugin-inventory';
import media from '@qhatu/plugin-media';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import orders, { Orders } from '../src/index.js';
import { caller, confirmPayment, createOrder, createVariants, getOrder, inTenant, paymentsAnnouncer, type OrderJson } from './helpers.js';

// GraphQL analytics per currency (decision 0097): a store in soles that sells in dollars reports
// each currency apart; the top-level figures stay the default currency's.
let now = new Date('2026-06-01T12:00:00Z');
let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
beforeAll(async () => {
  t = await createTestApp({ plugins: [media, catalog, customers, inventory, orders, paymentsAnnouncer], clock: { now: () => now } });
  shop = await t.createTenant({ currency: 'PEN' });
  other = await t.createTenant({ currency: 'PEN' });
  const listed = await caller(t, shop)('PUT', '/api/v1/currencies', { currencies: [{ code: 'USD', rate: '0.27' }, { code: 'EUR', rate: null }] });
  expect(listed.statusCode, listed.body).toBe(200);
});
afterAll(async () => t?.close());

const FIGURES = 'currency totalRevenue totalOrders averageOrderValue topProducts { title revenue }';
const QUERY = (start: string, end: string) => `{ analytics(range: { start: "${start}", end: "${end}" }) { ${FIGURES} byCurrency { ${FIGURES} } } }`;
const analytics = async (tenant: TestTenant, start = '2026-06-01', end = '2026-06-30') => {
  const res = await t.request({ method: 'POST', url: '/graphql', headers: tenant.headers(), payload: { query: QUERY(start, end) } });
  expect(res.json().errors).toBeUndefined();
  return res.json().data.analytics;
};

/** A paid order in dollars, as a cart in dollars becomes one (here of lines of no catalog product). */
async function paidInDollars(tenant: TestTenant, at: string, amount: number): Promise<OrderJson> {
  now = new Date(at);
  const placed = await inTenant(t, tenant, (tx) =>
    t.app.container.resolve(Orders).placeOrder(tx, {
      customerEmail: 'ann@example.com',
      currency: 'USD',
      lines: [],
      customLines: [{ title: 'Gift card', quantity: 1, unitPrice: amount, requiresShipping: false, taxable: false }],
    }),
  );
  const order = await getOrder(t, tenant, placed.id);
  expect(order.currency).toBe('USD');
  await confirmPayment(t, tenant, order);
  return order;
}

async function paidInSoles(tenant: TestTenant, at: string, variants: string[]): Promise<OrderJson> {
  now = new Date(at);
  const order = await createOrder(t, tenant, variants.map((id) => ({ variant_id: id, quantity: 1 })));
  expect(order.currency).toBe('PEN');
  await confirmPayment(t, tenant, order);
  return order;
}

describe('GraphQL analytics, each currency apart', () => {
  beforeAll(async () => {
    const digital = { requires_shipping: false };
    const [{ id: poncho }] = await createVariants(t, shop, [6000], { title: 'Poncho' }, digital);
    const [{ id: scarf }] = await createVariants(t, shop, [4000], { title: 'Scarf' }, digital);
    await paidInSoles(shop, '2026-06-02T10:00:00Z', [poncho, scarf]); // S/ 100.00
    await paidInSoles(shop, '2026-06-03T10:00:00Z', [poncho]); // S/ 60.00
    await paidInDollars(shop, '2026-06-04T10:00:00Z', 1500); // $15.00
    const refunded = await paidInDollars(shop, '2026-06-05T10:00:00Z', 2500); // $25.00, $5.00 of it refunded
    await inTenant(t, shop, (tx) =>
      t.app.container.resolve(Orders).recordRefunds(tx, refunded.id, [{ payment_id: `pay_${refunded.id.slice(0, 8)}`, amount: 2500, currency: 'USD', refunded_amount: 500 }]),
    );
    await paidInDollars(shop, '2026-07-01T10:00:00Z', 9900); // outside the range
    // Another store's dollars are never the shop's.
    await paidInDollars(other, '2026-06-04T10:00:00Z', 7700);
  });

  it('keeps the top-level figures in the default currency: dollars are never added to soles', async () => {
    const figures = await analytics(shop);
    expect(figures).toMatchObject({
      currency: 'PEN',
      totalRevenue: 16000,
      totalOrders: 2,
      averageOrderValue: 8000,
      topProducts: [{ title: 'Poncho', revenue: 12000 }, { title: 'Scarf', revenue: 4000 }],
    });
  });

  it('reports each currency apart: the default first, then the store’s others by code, zeros where nothing sold', async () => {
    const { byCurrency } = await analytics(shop);
    expect(byCurrency).toEqual([
      { currency: 'PEN', totalRevenue: 16000, totalOrders: 2, averageOrderValue: 8000, topProducts: [{ title: 'Poncho', revenue: 12000 }, { title: 'Scarf', revenue: 4000 }] },
      { currency: 'EUR', totalRevenue: 0, totalOrders: 0, averageOrderValue: 0, topProducts: [] },
      // 15.00 + 25.00 less 5.00 refunded; gift cards are no catalog product's.
      { currency: 'USD', totalRevenue: 3500, totalOrders: 2, averageOrderValue: 1750, topProducts: [] },
    ]);
    const july = await analytics(shop, '2026-07-01', '2026-07-31');
    expect(july).toMatchObject({ currency: 'PEN', totalRevenue: 0, totalOrders: 0 });
    expect(july.byCurrency.map((c: { currency: string; totalRevenue: number }) => [c.currency, c.totalRevenue])).toEqual([['PEN', 0], ['EUR', 0], ['USD', 9900]]);
  });

  it("another store's figures are its own; a currency it does not list still shows when its orders were paid in it", async () => {
    const theirs = await analytics(other);
    expect(theirs).toMatchObject({ currency: 'PEN', totalRevenue: 0, totalOrders: 0, topProducts: [] });
    expect(theirs.byCurrency).toEqual([
      { currency: 'PEN', totalRevenue: 0, totalOrders: 0, averageOrderValue: 0, topProducts: [] },
      { currency: 'USD', totalRevenue: 7700, totalOrders: 1, averageOrderValue: 7700, topProducts: [] },
    ]);
  });

  it('answers in the same handful of statements, whatever the number of currencies', async () => {
    await analytics(shop); // the admin key is looked up once, then cached
    const { result, count, statements } = await t.countQueries(() => t.request({ method: 'POST', url: '/graphql', headers: shop.headers(), payload: { query: QUERY('2026-06-01', '2026-06-30') } }));
    expect(result.json().data.analytics.byCurrency).toHaveLength(3);
    // BEGIN with the tenant, the totals per currency, the top products per currency, COMMIT.
    expect(count, statements.join('\n')).toBeLessThanOrEqual(4);
  });
});
