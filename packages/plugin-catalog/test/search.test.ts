import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexesOf, searchPlan, seqScans, type TestApp, type TestTenant } from '@qhatu/core/testing';
import { caller, catalogApp, createProduct } from './helpers.js';

/**
 * Product and brand search with 30,000 products and 20,000 brands in the store: the answers
 * (accents and case folded, parts of words, short words at a word's beginning, the caller's store
 * only) and the plans under row-level security, which must read the trigram index, never scan.
 */

const PRODUCTS = 30_000;
const BRANDS = 20_000;
let t: TestApp;
let store: TestTenant;
let other: TestTenant;
let client: pg.Client;

beforeAll(async () => {
  t = await catalogApp();
  store = await t.createTenant();
  other = await t.createTenant();
  client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  await client.query(
    `insert into catalog_product (tenant_id, id, title, handle, status, created_at, updated_at)
     select $1, gen_random_uuid(), 'Polo básico ' || i, 'polo-basico-' || i, 'active',
            timestamptz '2026-01-01' + i * interval '1 minute', timestamptz '2026-01-01' + i * interval '1 minute'
     from generate_series(1, ${PRODUCTS}) as i`,
    [store.id],
  );
  await client.query(
    `insert into catalog_brand (tenant_id, id, name, slug, created_at, updated_at)
     select $1, gen_random_uuid(), 'Marca ' || i, 'marca-' || i, timestamptz '2026-01-01' + i * interval '1 minute', timestamptz '2026-01-01' + i * interval '1 minute'
     from generate_series(1, ${BRANDS}) as i`,
    [store.id],
  );
  // As autovacuum leaves them: the trigram index's pending list merged, statistics fresh.
  for (const table of ['catalog_product', 'catalog_brand']) await client.query(`vacuum analyze ${table}`);
  for (const title of ['Chompa de Alpaca Señorial', 'Poncho Andino', 'Gorro CHULLO']) await createProduct(t, store, { title });
  await createProduct(t, other, { title: 'Chompa secreta' });
  for (const name of ['Ñandú Textil', 'Alpaca 100%']) expect((await caller(t, store)('POST', '/api/v1/catalog/brands', { name })).statusCode).toBe(201);
}, 180_000);

afterAll(async () => {
  await client?.end();
  await t?.close();
});

const titles = async (q: string) =>
  ((await caller(t, store)('GET', `/api/v1/catalog/products?q=${encodeURIComponent(q)}&sort=title`)).json().data as Array<{ title: string }>).map((p) => p.title);
const brandNames = async (q: string) =>
  ((await caller(t, store)('GET', `/api/v1/catalog/brands?q=${encodeURIComponent(q)}&sort=name`)).json().data as Array<{ name: string }>).map((b) => b.name);

describe(`search with ${PRODUCTS.toLocaleString('en')} products in the store`, () => {
  it('finds words whatever their case and accents, parts of 3 characters or more, and 1–2 characters at a word’s beginning', async () => {
    expect(await titles('senorial')).toEqual(['Chompa de Alpaca Señorial']);
    expect(await titles('SEÑORIAL alpaca')).toEqual(['Chompa de Alpaca Señorial']);
    expect(await titles('ompa')).toEqual(['Chompa de Alpaca Señorial']);
    expect(await titles('ch')).toEqual(['Chompa de Alpaca Señorial', 'Gorro CHULLO']); // not Poncho
    expect(await titles('gorro-chullo')).toEqual(['Gorro CHULLO']); // the handle
    expect(await titles('polo 29999')).toEqual(['Polo básico 29999']);
    expect(await titles('secreta')).toEqual([]); // another store's
    expect(await titles('nothing-like-it')).toEqual([]);
    expect(await brandNames('nandu')).toEqual(['Ñandú Textil']);
    expect(await brandNames('%')).toEqual(['Alpaca 100%']);
    expect(await brandNames('marca 19999')).toEqual(['Marca 19999']);
  });

  it('reads the trigram index under row-level security, for products and brands', async () => {
    const cases: Array<[table: string, path: string, words: string]> = [
      ['catalog_product', '/api/v1/catalog/products', 'nothing-like-it'],
      ['catalog_product', '/api/v1/catalog/products', 'alpaca'],
      ['catalog_product', '/api/v1/catalog/products', 'ch'],
      ['catalog_brand', '/api/v1/catalog/brands', 'nothing-like-it'],
      ['catalog_brand', '/api/v1/catalog/brands', 'ñandú'],
    ];
    for (const [table, path, words] of cases) {
      for (const sort of ['-created_at', 'title', 'name']) {
        if ((sort === 'name') !== (table === 'catalog_brand') && sort !== '-created_at') continue;
        const plan = await searchPlan(t, { table, tenantId: store.id, words, request: () => caller(t, store)('GET', `${path}?q=${encodeURIComponent(words)}&sort=${sort}`) });
        const where = `${table} ${words} ${sort}`;
        expect(seqScans(plan.list), where).toEqual([]);
        expect(seqScans(plan.matches), where).toEqual([]);
        expect(indexesOf(plan.matches), where).toContain(`${table}_search`);
      }
    }
  }, 60_000);
});
