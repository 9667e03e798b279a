import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexesOf, searchPlan, seqScans, type TestApp, type TestTenant } from '@qhatu/core/testing';
import { caller, ORDERS, ordersApp } from './helpers.js';

/**
 * Order search with 30,000 orders in the store: the customer's e-mail and name (accents and case
 * folded), the order's number, only the caller's store; and the plans under row-level security.
 */

const ORDER_COUNT = 30_000;
let t: TestApp;
let store: TestTenant;
let other: TestTenant;
let client: pg.Client;

const insertOrders = (tenantId: string, from: number, to: number, email: string, name: string) =>
  client.query(
    `insert into orders_order (tenant_id, id, number, status, customer_email, customer_name, currency, subtotal, total, created_at, updated_at)
     select $1, gen_random_uuid(), 1000 + i, 'pending', replace($2, '#', i::text), replace($3, '#', i::text), 'PEN', 1000, 1000,
            timestamptz '2026-01-01' + i * interval '1 minute', timestamptz '2026-01-01' + i * interval '1 minute'
     from generate_series($4::int, $5::int) as i`,
    [tenantId, email, name, from, to],
  );

beforeAll(async () => {
  t = await ordersApp();
  store = await t.createTenant();
  other = await t.createTenant();
  client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  await insertOrders(store.id, 1, ORDER_COUNT, 'comprador#@correo.pe', 'Cliente #');
  await insertOrders(store.id, ORDER_COUNT + 1, ORDER_COUNT + 1, 'rosa@andes.pe', 'Rosa Quispe Mamani');
  await insertOrders(other.id, 1, 1, 'secreto@otra.pe', 'Rosa Secreta');
  // As autovacuum leaves it: the trigram index's pending list merged, statistics fresh.
  await client.query('vacuum analyze orders_order');
}, 180_000);

afterAll(async () => {
  await client?.end();
  await t?.close();
});

const numbers = async (q: string) =>
  ((await caller(t, store)('GET', `${ORDERS}?q=${encodeURIComponent(q)}`)).json().data as Array<{ number: number }>).map((o) => o.number);

describe(`order search with ${ORDER_COUNT.toLocaleString('en')} orders in the store`, () => {
  it('finds the customer’s words whatever their case and accents, and an order by its number', async () => {
    expect(await numbers('ROSA quispe')).toEqual([1000 + ORDER_COUNT + 1]);
    expect(await numbers('mamaní')).toEqual([1000 + ORDER_COUNT + 1]);
    expect(await numbers('comprador29999@')).toEqual([1000 + 29_999]);
    expect(await numbers('#1042')).toEqual([1042]);
    expect(await numbers('1042')).toContain(1042); // and the orders of customers with 1042 in their e-mail or name
    expect(await numbers('secreta')).toEqual([]);
    expect(await numbers('nadie-asi')).toEqual([]);
  });

  it('reads the trigram index (and the number’s index) under row-level security', async () => {
    for (const words of ['nadie-asi', 'rosa quispe', 'ma', '1042']) {
      for (const sort of ['-created_at', 'number', '-total']) {
        const plan = await searchPlan(t, { table: 'orders_order', tenantId: store.id, words, request: () => caller(t, store)('GET', `${ORDERS}?q=${encodeURIComponent(words)}&sort=${sort}`) });
        const where = `${words} ${sort}`;
        expect(seqScans(plan.list), where).toEqual([]);
        expect(seqScans(plan.matches), where).toEqual([]);
        expect(indexesOf(plan.matches), where).toContain('orders_order_search');
        if (words === '1042') expect(indexesOf(plan.list), where).toContain('orders_order_number');
      }
    }
  }, 60_000);
});
