import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexesOf, searchPlan, seqScans, type TestApp, type TestTenant } from '@qhatu/core/testing';
import { caller, createCustomer, customersApp, type CustomerJson } from './helpers.js';

/** Customer search with 30,000 customers in the store: the answers, and the plans under row-level security. */

const CUSTOMERS = 30_000;
const BASE = '/api/v1/customers';
let t: TestApp;
let store: TestTenant;
let other: TestTenant;
let client: pg.Client;

beforeAll(async () => {
  t = await customersApp();
  store = await t.createTenant();
  other = await t.createTenant();
  client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  await client.query(
    `insert into customers_customer (tenant_id, id, email, first_name, last_name, phone, status, created_at, updated_at)
     select $1, gen_random_uuid(), 'cliente' || i || '@correo.pe', 'Nombre' || (i % 997), 'Apellido' || i, '+5190' || lpad(i::text, 7, '0'), 'active',
            timestamptz '2026-01-01' + i * interval '1 minute', timestamptz '2026-01-01' + i * interval '1 minute'
     from generate_series(1, ${CUSTOMERS}) as i`,
    [store.id],
  );
  // As autovacuum leaves it: the trigram index's pending list merged, statistics fresh.
  await client.query('vacuum analyze customers_customer');
  await createCustomer(t, store, { email: 'nunez@andes.pe', first_name: 'Íñigo', last_name: 'Núñez', phone: '+14155550100' });
  await createCustomer(t, other, { email: 'secreto@otra.pe', first_name: 'Íñigo', last_name: 'Secreto' });
}, 180_000);

afterAll(async () => {
  await client?.end();
  await t?.close();
});

const emails = async (q: string) => ((await caller(t, store)('GET', `${BASE}?q=${encodeURIComponent(q)}&sort=email`)).json().data as CustomerJson[]).map((c) => c.email);

describe(`customer search with ${CUSTOMERS.toLocaleString('en')} customers in the store`, () => {
  it('finds words whatever their case and accents, phones by their digits, only in the caller’s store', async () => {
    expect(await emails('inigo NUNEZ')).toEqual(['nunez@andes.pe']);
    expect(await emails('Íñigo')).toEqual(['nunez@andes.pe']);
    expect(await emails('+1 (415) 555')).toEqual(['nunez@andes.pe']);
    expect(await emails('apellido29999')).toEqual(['cliente29999@correo.pe']);
    expect(await emails('secreto')).toEqual([]);
    expect(await emails('nadie-asi')).toEqual([]);
  });

  it('reads the trigram index under row-level security, whatever the sort', async () => {
    for (const words of ['nadie-asi', 'núñez', 'ñu', 'cliente2999']) {
      for (const sort of ['-created_at', 'email', 'first_name']) {
        const plan = await searchPlan(t, { table: 'customers_customer', tenantId: store.id, words, request: () => caller(t, store)('GET', `${BASE}?q=${encodeURIComponent(words)}&sort=${sort}`) });
        const where = `${words} ${sort}`;
        expect(seqScans(plan.list), where).toEqual([]);
        expect(seqScans(plan.matches), where).toEqual([]);
        expect(indexesOf(plan.matches), where).toContain('customers_customer_search');
      }
    }
  }, 60_000);
});
