import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answersMatch, listOf } from '@qhatu/core';
import { indexesOf, searchPlan, seqScans, type PlanNode, type TestApp, type TestTenant } from '@qhatu/core/testing';
import { ProductOut } from '../src/schemas/product.js';
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
  await createProduct(t, store, { title: 'Manta tejida', variants: [{ title: 'Única', sku: 'MT-0042', price: 100 }] });
  await createProduct(t, other, { title: 'Manta ajena', variants: [{ title: 'Única', sku: 'MT-0043', price: 100 }] });
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
    expect(await titles('MT-0042')).toEqual(['Manta tejida']); // a variant's SKU, whole
    expect(await titles('MT-0043')).toEqual([]); // another store's
    expect(await titles('MT-004')).toEqual([]);
    expect(await brandNames('nandu')).toEqual(['Ñandú Textil']);
    expect(await brandNames('%')).toEqual(['Alpaca 100%']);
    expect(await brandNames('marca 19999')).toEqual(['Marca 19999']);
  });

  it('reads the trigram index under row-level security, for products and brands', async () => {
    const cases: Array<[table: string, path: string, words: string]> = [
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

/** Every node of the plan of the statement a list sent, explained under row-level security in the store. */
async function listPlan(tenantId: string, url: string): Promise<PlanNode[]> {
  const { statements } = await t.countQueries(() => caller(t, store)('GET', url));
  const [, statement] = /^BEGIN READ ONLY; select set_config\('role', '[a-z_]+', true\), set_config\('app\.tenant_id', '[0-9a-f-]+', true\); (.*); COMMIT$/s.exec(statements[0]) ?? [];
  if (!statement) throw new Error(`Not one round trip: ${statements.join('\n')}`);
  await client.query('begin');
  try {
    await client.query(`select set_config('role', 'qhatu_app', true), set_config('app.tenant_id', $1, true)`, [tenantId]);
    const { rows } = await client.query(`explain (analyze, format json) ${statement}`);
    const nodes = (n: PlanNode & { 'Actual Loops'?: number }): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];
    return nodes(rows[0]['QUERY PLAN'][0].Plan);
  } finally {
    await client.query('rollback');
  }
}

describe('a search keeps the list\'s order and pages like it, however many products match', () => {
  /** The products a search must find, in the list's order, straight from the table (the owner, no index involved). */
  const expected = async (words: string, sort: 'created_at' | 'title', desc: boolean) => {
    const dir = desc ? 'desc' : 'asc';
    const { rows } = await client.query(
      `select title from catalog_product where tenant_id = $1 and search_text like all (qhatu_search_patterns($2)) order by ${sort} ${dir}, id ${dir}`,
      [store.id, words],
    );
    return rows.map((r) => r.title as string);
  };
  const pages = async (words: string, sort: string, limit: number, count: number) => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < count; i++) {
      const url = `/api/v1/catalog/products?limit=${limit}&sort=${sort}&q=${encodeURIComponent(words)}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await caller(t, store)('GET', url);
      expect(res.statusCode, url).toBe(200);
      expect(answersMatch(listOf(ProductOut), res.json()), url).toBe(true);
      seen.push(...(res.json().data as Array<{ title: string }>).map((p) => p.title));
      cursor = res.json().meta.pagination.cursor;
      if (!cursor) break;
    }
    return seen;
  };

  // "polo" is in every product but three (the walk finds a page at once), "chompa" in one (sorted
  // from the index), "polo 1" in 11,111 that all come after the 10,000 newest (the walk stops,
  // the rest is sorted from the index), "ch" at a word's beginning.
  const cases: Array<[words: string, sort: string, field: 'created_at' | 'title', desc: boolean]> = [
    ['polo', '-created_at', 'created_at', true],
    ['polo', 'title', 'title', false],
    ['BÁSICO polo', '-created_at', 'created_at', true],
    ['chompa', '-created_at', 'created_at', true],
    ['ch', 'title', 'title', false],
    ['polo 1', '-created_at', 'created_at', true],
    ['polo 1', 'created_at', 'created_at', false],
    ['polo 2999', '-created_at', 'created_at', true],
  ];
  for (const [words, sort, field, desc] of cases) {
    it(`"${words}" sorted by ${sort}: the same products in the same order as the table gives, page after page`, async () => {
      const want = (await expected(words, field, desc)).slice(0, 4 * 60);
      expect(want.length).toBeGreaterThan(0);
      expect(await pages(words, sort, 60, 4)).toEqual(want);
    }, 60_000);
  }

  it('finds nothing of another store, whether the words are common or rare there', async () => {
    for (const words of ['polo', 'alpaca', 'polo 1']) {
      const res = await caller(t, other)('GET', `/api/v1/catalog/products?q=${encodeURIComponent(words)}`);
      expect(res.json().data.map((p: { title: string }) => p.title), words).toEqual([]);
    }
    const res = await caller(t, other)('GET', '/api/v1/catalog/products?q=secreta');
    expect(res.json().data.map((p: { title: string }) => p.title)).toEqual(['Chompa secreta']);
  });

  it('a storefront key searches the active products only, in the same order', async () => {
    const res = await caller(t, store, store.storefrontToken)('GET', '/api/v1/catalog/products?q=polo&limit=5');
    expect(res.statusCode).toBe(200);
    expect(res.json().data.map((p: { title: string }) => p.title)).toEqual((await expected('polo', 'created_at', true)).slice(0, 5));
  });

  it('reads indexes, never a whole table: a common word walks the order\'s index, a rare one reads the trigram index', async () => {
    for (const [words, sort] of [['polo', '-created_at'], ['polo', 'title'], ['chompa', '-created_at'], ['polo 1', '-created_at'], ['nothing-like-it', 'title']]) {
      const plan = await listPlan(store.id, `/api/v1/catalog/products?q=${encodeURIComponent(words)}&sort=${sort}`);
      expect(seqScans(plan), `${words} ${sort}`).toEqual([]);
    }
    const walk = await listPlan(store.id, '/api/v1/catalog/products?q=polo');
    const ran = (n: PlanNode & { 'Actual Loops'?: number }) => (n['Actual Loops'] ?? 0) > 0;
    expect(walk.filter(ran).map((n) => n['Index Name']).filter(Boolean)).toContain('catalog_product_created');
    const sorted = await listPlan(store.id, '/api/v1/catalog/products?q=chompa');
    expect(sorted.filter(ran).map((n) => n['Index Name']).filter(Boolean)).not.toContain('catalog_product_created');
  }, 60_000);

  it('lists each product exactly as reading it shows it, variants included', async () => {
    const listed = (await caller(t, store)('GET', '/api/v1/catalog/products?limit=10')).json().data as Array<{ id: string }>;
    for (const product of [...listed, ...(await caller(t, store)('GET', '/api/v1/catalog/products?q=chompa')).json().data]) {
      expect(product).toEqual((await caller(t, store)('GET', `/api/v1/catalog/products/${product.id}`)).json().data);
    }
  });

  it('answers a malformed cursor with 400, never a 500', async () => {
    const res = await caller(t, store)('GET', '/api/v1/catalog/products?q=polo&cursor=not-a-cursor');
    expect(res.statusCode).toBe(400);
  });
});
