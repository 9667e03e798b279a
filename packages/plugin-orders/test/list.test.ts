import { answersMatch, listOf } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrderOut } from '../src/schemas/order.js';
import { caller, confirmPayment, createOrder, createVariants, getOrder, ORDERS, ordersApp, registerCustomer, stockUp, type OrderJson } from './helpers.js';

/**
 * The order list is written by PostgreSQL as the API answers it (decision 0083): each listed
 * order must be exactly the order as `GET /orders/:id` shows it, lines, shipments, history,
 * address and amounts included, and match `OrderOut`.
 */

let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let orders: OrderJson[];
beforeAll(async () => {
  t = await ordersApp();
  shop = await t.createTenant();
  other = await t.createTenant();
  const warehouse = await stockUp(t, shop, [], 0);
  const [a, b] = await createVariants(t, shop, [1000, 2500]);
  await stockUp(t, shop, [a.id, b.id], 10, warehouse);
  const paid = await createOrder(t, shop, [{ variant_id: a.id, quantity: 3 }, { variant_id: b.id, quantity: 2 }]);
  await confirmPayment(t, shop, paid);
  const shipped = await caller(t, shop)('POST', `${ORDERS}/${paid.id}/fulfillments`, {
    carrier: 'serpost', tracking_number: 'SP1', estimated_delivery: '2030-01-05T12:00:00Z', line_items: [{ variant_id: a.id, quantity: 2 }],
  });
  expect(shipped.statusCode).toBe(201);
  const cancelled = await createOrder(t, shop, [{ variant_id: b.id, quantity: 1 }], { customer_email: 'lucho@example.com' });
  expect((await caller(t, shop)('POST', `${ORDERS}/${cancelled.id}/cancel`, { reason: 'Changed mind' })).statusCode).toBe(200);
  await createOrder(t, shop, [{ variant_id: a.id, quantity: 1 }]);
  orders = await Promise.all([paid, cancelled].map((o) => getOrder(t, shop, o.id)));
}, 120_000);
afterAll(async () => t?.close());

const list = async (url: string, tenant = shop) => {
  const res = await caller(t, tenant)('GET', url);
  expect(res.statusCode, url).toBe(200);
  expect(answersMatch(listOf(OrderOut), res.json()), url).toBe(true);
  return res.json() as { data: OrderJson[]; meta: { pagination: { cursor: string | null; has_next: boolean } } };
};

describe('GET /orders as PostgreSQL writes it', () => {
  it('shows each order exactly as reading it does: lines, shipments, history, address, amounts and dates', async () => {
    const { data } = await list(`${ORDERS}?limit=100`);
    expect(data).toHaveLength(3);
    for (const order of orders) expect(data.find((o) => o.id === order.id)).toEqual(order);
    expect(orders[0].fulfillments).toHaveLength(1);
    expect(orders[1].status).toBe('cancelled');
  });

  it('pages newest first by cursor, and by number and total both ways', async () => {
    for (const sort of ['-created_at', 'created_at', 'number', '-number', 'total', '-total']) {
      const whole = (await list(`${ORDERS}?limit=100&sort=${sort}`)).data.map((o) => o.id);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await list(`${ORDERS}?limit=1&sort=${sort}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        seen.push(...page.data.map((o) => o.id));
        cursor = page.meta.pagination.cursor;
      } while (cursor);
      expect(seen, sort).toEqual(whole);
    }
  });

  it('filters by status, e-mail and search, and a customer token lists its own orders only', async () => {
    expect((await list(`${ORDERS}?filter[status]=cancelled`)).data.map((o) => o.id)).toEqual([orders[1].id]);
    expect((await list(`${ORDERS}?filter[customer_email]=LUCHO@example.com`)).data.map((o) => o.id)).toEqual([orders[1].id]);
    expect((await list(`${ORDERS}?q=lucho`)).data).toEqual([orders[1]]);
    expect((await list(`${ORDERS}?q=%23${orders[0].number}`)).data).toEqual([orders[0]]);
    const customer = await registerCustomer(t, shop, 'nadie@example.com');
    const own = await caller(t, shop, customer.token)('GET', ORDERS);
    expect(own.statusCode).toBe(200);
    expect(own.json().data).toEqual([]);
  });

  it("shows nothing of another store's orders, and refuses a malformed cursor with 400", async () => {
    expect((await list(ORDERS, other)).data).toEqual([]);
    expect((await list(`${ORDERS}?q=lucho`, other)).data).toEqual([]);
    expect((await caller(t, shop)('GET', `${ORDERS}?cursor=nonsense`)).statusCode).toBe(400);
    expect((await caller(t, shop)('GET', `${ORDERS}?sort=number&cursor=${encodeURIComponent(Buffer.from(JSON.stringify({ s: '-created_at', v: 'x', i: 'y' })).toString('base64url'))}`)).statusCode).toBe(400);
  });

  it('refuses a cursor whose values were tampered with, in every sort, with 400 and no row', async () => {
    const forged = (sort: string, v: unknown, i: unknown) => `${ORDERS}?sort=${sort}&cursor=${Buffer.from(JSON.stringify({ s: sort, v, i })).toString('base64url')}`;
    const id = orders[0].id;
    for (const url of [
      forged('-created_at', 'not a date', id),
      forged('-created_at', '2030-99-99T00:00:00Z', id),
      forged('created_at', '2030-01-01T00:00:00Z', 'not-a-uuid'),
      forged('created_at', { a: 1 }, id),
      forged('number', 'one', id),
      forged('-number', 1e20, id),
      forged('total', 1.5, id),
      forged('-total', [1], id),
      forged('number', 1, 42),
    ]) {
      const res = await caller(t, shop)('GET', url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error.code, url).toBe('VALIDATION_ERROR');
      expect(res.json().error.details[0], url).toMatchObject({ path: 'cursor' });
    }
    // A cursor this API issued still resumes the list.
    const first = await list(`${ORDERS}?limit=1&sort=-total`);
    expect((await list(`${ORDERS}?limit=5&sort=-total&cursor=${first.meta.pagination.cursor}`)).data).toHaveLength(2);
  });
});
