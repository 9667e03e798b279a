import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexesOf, searchPlan, seqScans, type TestApp, type TestTenant } from '@qhatu/core/testing';
import { caller, createWarehouse, inventoryApp, WAREHOUSES } from './helpers.js';

/** Warehouse search with 20,000 locations in the store: the answers, and the plans under row-level security. */

const LOCATIONS = 20_000;
let t: TestApp;
let store: TestTenant;
let other: TestTenant;
let client: pg.Client;

beforeAll(async () => {
  t = await inventoryApp();
  store = await t.createTenant();
  other = await t.createTenant();
  client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  await client.query(
    `insert into inventory_warehouse (tenant_id, id, name, code, location_type, fulfills_online_orders, allows_pickup, is_active, is_default, created_at, updated_at)
     select $1, gen_random_uuid(), 'Tienda ' || i, 'T' || i, 'store', false, true, true, false,
            timestamptz '2026-01-01' + i * interval '1 minute', timestamptz '2026-01-01' + i * interval '1 minute'
     from generate_series(1, ${LOCATIONS}) as i`,
    [store.id],
  );
  // As autovacuum leaves it: the trigram index's pending list merged, statistics fresh.
  await client.query('vacuum analyze inventory_warehouse');
  await createWarehouse(t, store, { name: 'Almacén Ñaña', code: 'LIMA-ESTE' });
  await createWarehouse(t, other, { name: 'Almacén Secreto', code: 'OCULTO' });
}, 180_000);

afterAll(async () => {
  await client?.end();
  await t?.close();
});

const codes = async (q: string) => ((await caller(t, store)('GET', `${WAREHOUSES}?q=${encodeURIComponent(q)}&sort=code`)).json().data as Array<{ code: string }>).map((w) => w.code);

describe(`warehouse search with ${LOCATIONS.toLocaleString('en')} locations in the store`, () => {
  it('finds name and code whatever their case and accents, only in the caller’s store', async () => {
    expect(await codes('almacen nana')).toEqual(['LIMA-ESTE']);
    expect(await codes('lima-este')).toEqual(['LIMA-ESTE']);
    expect(await codes('tienda 19999')).toEqual(['T19999']);
    expect(await codes('secreto')).toEqual([]);
    expect(await codes('nadie-asi')).toEqual([]);
  });

  it('reads the trigram index under row-level security, whatever the sort', async () => {
    for (const words of ['nadie-asi', 'almacén', 'ña']) {
      for (const sort of ['-created_at', 'name', 'code']) {
        const plan = await searchPlan(t, { table: 'inventory_warehouse', tenantId: store.id, words, request: () => caller(t, store)('GET', `${WAREHOUSES}?q=${encodeURIComponent(words)}&sort=${sort}`) });
        const where = `${words} ${sort}`;
        expect(seqScans(plan.list), where).toEqual([]);
        expect(seqScans(plan.matches), where).toEqual([]);
        expect(indexesOf(plan.matches), where).toContain('inventory_warehouse_search');
      }
    }
  }, 60_000);
});
