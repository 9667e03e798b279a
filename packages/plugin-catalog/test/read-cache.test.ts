import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp, Database, loadConfig, PostgresCacheSync, ReadCache, type QhatuApp } from '@qhatu/core';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import media from '@qhatu/plugin-media';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import catalog from '../src/index.js';
import { createProduct } from './helpers.js';

/**
 * The storefront read cache, through HTTP, with two API processes on one database as behind a load
 * balancer: what one changes, the other's storefront stops answering from memory within a second.
 */
const plugins = [media, catalog];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function secondProcess(t: TestApp, dataDir: string, env: Record<string, string> = {}): Promise<QhatuApp> {
  const config = loadConfig({
    DATABASE_URL: t.databaseUrl,
    DATABASE_POOL_MAX: '4',
    QHATU_PLATFORM_TOKEN: t.platformToken,
    QHATU_DATA_DIR: dataDir,
    QHATU_ENV: 'development',
    LOG_LEVEL: 'silent',
    ...env,
  });
  return createApp({ plugins, config });
}

/** Statements the app's read path sends while `work` runs (the cache answers with none). */
async function statementsOf<T>(app: QhatuApp, work: () => Promise<T>): Promise<{ result: T; count: number }> {
  const reads = app.container.resolve(Database).statements;
  let count = 0;
  const listener = () => (count += 1);
  reads.on('statement', listener);
  try {
    return { result: await work(), count };
  } finally {
    reads.off('statement', listener);
  }
}

/** Whether `url` is answered from memory now (no statement), after the notices of earlier writes arrived. */
async function cachedSoon(app: QhatuApp, read: () => Promise<unknown>): Promise<boolean> {
  const { value } = await within(1000, async () => (await statementsOf(app, read)).count, (count) => count === 0);
  return value === 0;
}

/** Polls `read` until `done` holds or `ms` pass; answers the last value and how long it took. */
async function within<T>(ms: number, read: () => Promise<T>, done: (value: T) => boolean): Promise<{ value: T; waited: number }> {
  const start = Date.now();
  let value = await read();
  while (!done(value) && Date.now() - start < ms) {
    await sleep(10);
    value = await read();
  }
  return { value, waited: Date.now() - start };
}

describe('two API processes', () => {
  let one: TestApp;
  let other: QhatuApp;
  let dataDir: string;
  let shop: TestTenant;
  beforeAll(async () => {
    one = await createTestApp({ plugins });
    dataDir = await mkdtemp(path.join(tmpdir(), 'qhatu-second-'));
    other = await secondProcess(one, dataDir);
    shop = await one.createTenant();
  }, 60_000);
  afterAll(async () => {
    await other?.close();
    await one?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const onOther = (url: string, token = shop.storefrontToken, headers: Record<string, string> = {}) =>
    other.http.inject({ method: 'GET', url, headers: { ...shop.headers(token), ...headers } });

  it('a change made through one is seen by the other storefront within a second, and at once by an admin read', async () => {
    const p = await createProduct(one, shop, { title: 'Alpaca scarf', variants: [{ title: 'One', price: 5000 }] });
    const url = `/api/v1/catalog/products/${p.id}`;
    const listUrl = `/api/v1/catalog/products?filter[handle]=${p.handle}`;
    expect((await onOther(url)).json().data.variants[0].price).toBe(5000);
    expect((await onOther(listUrl)).json().data[0].variants[0].price).toBe(5000);
    // Kept in memory: a read needs no statement (once the creation's notice has arrived).
    expect(await cachedSoon(other, () => onOther(url))).toBe(true);

    const patched = await one.request({ method: 'PATCH', url: `${url}/variants/${p.variants[0].id}`, headers: shop.headers(), payload: { price: 4200 } });
    expect(patched.statusCode).toBe(200);
    // The process that wrote answers its storefront with the change at once.
    expect((await one.request({ method: 'GET', url, headers: shop.headers(shop.storefrontToken) })).json().data.variants[0].price).toBe(4200);
    // An admin read always reads the database.
    expect((await onOther(url, shop.adminToken)).json().data.variants[0].price).toBe(4200);
    const seen = await within(1000, async () => (await onOther(url)).json().data.variants[0].price, (price) => price === 4200);
    expect(seen.value).toBe(4200);
    const listed = await within(1000, async () => (await onOther(listUrl)).json().data[0].variants[0].price, (price) => price === 4200);
    expect(listed.value).toBe(4200);
  });

  it("keeps an admin's page under the catalog version its statement read: asked again, one statement compares versions; any committed change is in the next page, notice or none", async () => {
    const p = await createProduct(one, shop, { title: 'Versioned poncho', variants: [{ title: 'One', price: 3000 }] });
    const url = `/api/v1/catalog/products?filter[handle]=${p.handle}`;
    const texts: string[] = [];
    const reads = other.container.resolve(Database).statements;
    const note = (sql: string) => texts.push(sql);
    const adminPage = async () => {
      texts.length = 0;
      reads.on('statement', note);
      try {
        return await onOther(url, shop.adminToken);
      } finally {
        reads.off('statement', note);
      }
    };
    // The creation's notice drops what this process kept of the store (a notice is never needed, but it is heard).
    await other.container.resolve(ReadCache).caughtUp();
    const first = await adminPage();
    expect(first.json().data[0].variants[0].price).toBe(3000);
    expect(texts).toHaveLength(1);
    // Asked again: the same one statement, which now only compares the versions, and the same answer.
    const again = await adminPage();
    expect(texts).toHaveLength(1);
    expect(texts[0]).toMatch(/case when c\.version = '\d+' then null/);
    expect(again.body).toBe(first.body);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers['cache-control']).toBe('private, no-cache');
    // A change through the other process is in this one's next admin page at once (no waiting for its notice).
    await one.request({ method: 'PATCH', url: `/api/v1/catalog/products/${p.id}/variants/${p.variants[0].id}`, headers: shop.headers(), payload: { price: 3100 } });
    expect((await adminPage()).json().data[0].variants[0].price).toBe(3100);
    await other.container.resolve(ReadCache).caughtUp();
    await adminPage();
    // A writer whose notice never reaches this process (its triggers off, the version moved by hand):
    // the storefront, which follows notices, keeps its answer; the admin's page follows the version.
    expect(await cachedSoon(other, () => onOther(url))).toBe(true);
    const client = new pg.Client({ connectionString: one.databaseUrl });
    await client.connect();
    try {
      await client.query('begin');
      await client.query(`set local session_replication_role = replica`);
      await client.query('update catalog_variant set price = 3200 where tenant_id = $1 and id = $2', [shop.id, p.variants[0].id]);
      await client.query('update catalog_cache_version set version = version + 1 where tenant_id = $1', [shop.id]);
      await client.query('commit');
    } finally {
      await client.end();
    }
    expect((await adminPage()).json().data[0].variants[0].price).toBe(3200);
    expect((await onOther(url)).json().data[0].variants[0].price).toBe(3100);
    // Another store's admin never gets this store's kept page.
    const neighbour = await one.createTenant();
    const theirs = await other.http.inject({ method: 'GET', url, headers: neighbour.headers(neighbour.adminToken) });
    expect(theirs.json().data).toEqual([]);
  });

  it("moves the store's catalog version in the transaction of any writer of stock, and the other process follows", async () => {
    const p = await createProduct(one, shop, { title: 'Clay pot' });
    const url = `/api/v1/catalog/products/${p.id}`;
    expect((await onOther(url)).json().data.variants[0].inventory_quantity).toBe(0);
    const version = async () =>
      Number((await one.app.orm.em.getConnection().execute<{ version: string }[]>('select version from catalog_cache_version where tenant_id = ?', [shop.id]))[0].version);
    const before = await version();
    // As the inventory's ledger does: the variant's stock, written in a transaction of its own.
    await one.app.container.resolve(Database).tenant((tx) => tx.em.execute('update catalog_variant set inventory_quantity = 7 where id = ?', [p.variants[0].id]), shop.id);
    expect(await version()).toBe(before + 1);
    const seen = await within(1000, async () => (await onOther(url)).json().data.variants[0].inventory_quantity, (q) => q === 7);
    expect(seen.value).toBe(7);
  });

  it('follows collections and their products', async () => {
    const c = (await one.request({ method: 'POST', url: '/api/v1/catalog/collections', headers: shop.headers(), payload: { title: 'Winter' } })).json().data;
    const url = `/api/v1/catalog/collections/${c.id}/products`;
    expect((await onOther(url)).json().data).toEqual([]);
    const p = await createProduct(one, shop, { title: 'Wool hat' });
    await one.request({ method: 'POST', url, headers: shop.headers(), payload: { product_id: p.id } });
    const seen = await within(1000, async () => (await onOther(url)).json().data.length, (n) => n === 1);
    expect(seen.value).toBe(1);
    await one.request({ method: 'PUT', url: `/api/v1/catalog/collections/${c.id}`, headers: shop.headers(), payload: { title: 'Cold winter' } });
    const renamed = await within(1000, async () => (await onOther(`/api/v1/catalog/collections/${c.id}`)).json().data.title, (t) => t === 'Cold winter');
    expect(renamed.value).toBe('Cold winter');
  });

  it('never gives a storefront key a draft, from the database or from memory; admin keys see it', async () => {
    const draft = await createProduct(one, shop, { title: 'Secret poncho', status: 'draft' });
    const url = `/api/v1/catalog/products/${draft.id}`;
    const list = `/api/v1/catalog/products?filter[handle]=${draft.handle}`;
    for (let i = 0; i < 2; i++) {
      expect((await onOther(url)).statusCode).toBe(404);
      expect((await onOther(list)).json().data).toEqual([]);
      expect((await onOther('/api/v1/catalog/products?filter[status]=draft')).json().data).toEqual([]);
    }
    // The admin reads of the same URLs are not answered from the storefront's entries.
    expect((await onOther(url, shop.adminToken)).json().data.status).toBe('draft');
    expect((await onOther(list, shop.adminToken)).json().data.map((p: { id: string }) => p.id)).toEqual([draft.id]);
    // Published, then drafted again: the storefront sees it, then stops seeing it.
    await one.request({ method: 'PATCH', url, headers: shop.headers(), payload: { status: 'active' } });
    expect((await within(1000, async () => (await onOther(url)).statusCode, (s) => s === 200)).value).toBe(200);
    await one.request({ method: 'PATCH', url, headers: shop.headers(), payload: { status: 'draft' } });
    expect((await within(1000, async () => (await onOther(url)).statusCode, (s) => s === 404)).value).toBe(404);
  });

  it('answers the GraphQL product and products queries of a storefront from memory, and follows changes', async () => {
    const p = await createProduct(one, shop, { title: 'Graph mug', variants: [{ title: 'One', price: 900 }] });
    const draft = await createProduct(one, shop, { title: 'Graph draft', status: 'draft' });
    const gql = (query: string, variables: Record<string, unknown>, token = shop.storefrontToken) =>
      other.http.inject({ method: 'POST', url: '/graphql', headers: shop.headers(token), payload: { query, variables } }).then((r) => r.json());
    const product = `query($id: ID!) { product(id: $id) { title status variants { price } } }`;
    const products = `{ products(limit: 100) { edges { node { id status } } } }`;
    expect((await gql(product, { id: p.id })).data.product).toEqual({ title: 'Graph mug', status: 'active', variants: [{ price: 900 }] });
    expect(await cachedSoon(other, () => gql(product, { id: p.id }))).toBe(true);
    expect(await cachedSoon(other, () => gql(products, {}))).toBe(true);
    // Drafts: not for a storefront, from memory or not; the admin key reads the database.
    expect((await gql(product, { id: draft.id })).data?.product ?? null).toBeNull();
    const listed = (await gql(products, {})).data.products.edges.map((e: { node: { id: string; status: string } }) => e.node);
    expect(listed.some((n: { id: string }) => n.id === draft.id)).toBe(false);
    expect(listed.every((n: { status: string }) => n.status === 'active')).toBe(true);
    expect((await gql(product, { id: draft.id }, shop.adminToken)).data.product.status).toBe('draft');

    await one.request({ method: 'PATCH', url: `/api/v1/catalog/products/${p.id}/variants/${p.variants[0].id}`, headers: shop.headers(), payload: { price: 950 } });
    const seen = await within(1000, async () => (await gql(product, { id: p.id })).data.product.variants[0].price, (price) => price === 950);
    expect(seen.value).toBe(950);
  });

  it('answers a whole storefront GraphQL response from memory: nested collections too, per store and variables, never an error or another field', async () => {
    const p = await createProduct(one, shop, { title: 'Whole mug', variants: [{ title: 'One', price: 700 }] });
    const c = (await one.request({ method: 'POST', url: '/api/v1/catalog/collections', headers: shop.headers(), payload: { title: 'Mugs' } })).json().data;
    await one.request({ method: 'POST', url: `/api/v1/catalog/collections/${c.id}/products`, headers: shop.headers(), payload: { product_id: p.id } });
    const neighbour = await one.createTenant();
    const gql = (query: string, variables: Record<string, unknown>, tenant = shop, token = tenant.storefrontToken) =>
      other.http.inject({ method: 'POST', url: '/graphql', headers: tenant.headers(token), payload: { query, variables } });
    const query = `query One($id: ID!) { product(id: $id) { title collections { title } } apiVersion }`;
    const first = await gql(query, { id: p.id });
    expect(first.json()).toEqual({ data: { product: { title: 'Whole mug', collections: [{ title: 'Mugs' }] }, apiVersion: 'v1' } });
    // Kept whole: the collections' loader is not run either.
    expect(await cachedSoon(other, () => gql(query, { id: p.id }))).toBe(true);
    const again = await gql(query, { id: p.id });
    expect(again.body).toBe(first.body);
    expect(again.headers['content-type']).toBe('application/json; charset=utf-8');
    // Other variables are another answer; another store's storefront never gets this one.
    const other2 = await createProduct(one, shop, { title: 'Second mug' });
    expect((await gql(query, { id: other2.id })).json().data.product.title).toBe('Second mug');
    expect((await gql(query, { id: p.id }, neighbour)).json().data.product).toBeNull();
    // A query that also asks for a field that is not kept is answered by GraphQL each time.
    const mixed = `query($id: ID!) { product(id: $id) { title collections { title } } __schema { queryType { name } } }`;
    expect((await gql(mixed, { id: p.id })).json().data.__schema.queryType.name).toBe('Query');
    expect((await statementsOf(other, () => gql(mixed, { id: p.id }))).count).toBeGreaterThan(0);
    // An error is never kept; an admin's answer is its own (drafts), read from the database.
    for (let i = 0; i < 2; i++) expect((await gql(query, { id: 'not-a-uuid' })).json().errors[0].extensions.code).toBe('VALIDATION_ERROR');
    expect((await statementsOf(other, () => gql(query, { id: p.id }, shop, shop.adminToken))).count).toBeGreaterThan(0);
    // A bad token is refused as before, not answered from memory.
    const refused = (await gql(query, { id: p.id }, shop, 'qhs_not-a-key')).json();
    expect(refused.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(refused.data).toBeNull();
    // A change of the catalog drops the kept response.
    await one.request({ method: 'PUT', url: `/api/v1/catalog/collections/${c.id}`, headers: shop.headers(), payload: { title: 'Cups' } });
    const seen = await within(1000, async () => (await gql(query, { id: p.id })).json().data.product.collections[0].title, (t) => t === 'Cups');
    expect(seen.value).toBe('Cups');
  });

  it('keeps stores apart', async () => {
    const neighbour = await one.createTenant();
    const mine = await createProduct(one, shop, { title: 'Only mine' });
    expect((await onOther(`/api/v1/catalog/products/${mine.id}`)).statusCode).toBe(200);
    const theirs = await other.http.inject({ method: 'GET', url: `/api/v1/catalog/products/${mine.id}`, headers: neighbour.headers(neighbour.storefrontToken) });
    expect(theirs.statusCode).toBe(404);
  });

  it('answers an ETag, a 304 for a matching If-None-Match, and a Cache-Control a CDN can use', async () => {
    const p = await createProduct(one, shop, { title: 'Tagged' });
    const url = `/api/v1/catalog/products/${p.id}`;
    const first = await onOther(url);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]{22}"$/);
    expect(first.headers['cache-control']).toBe('public, max-age=0, s-maxage=1, must-revalidate');
    expect(first.headers.vary).toBe('Authorization, X-Tenant-ID');
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');

    const again = await onOther(url, shop.storefrontToken, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);
    expect((await onOther(url, shop.storefrontToken, { 'if-none-match': `"other", W/${etag}` })).statusCode).toBe(304);

    const admin = await onOther(url, shop.adminToken);
    expect(admin.headers['cache-control']).toBe('private, no-cache');
    expect((await onOther(url, shop.adminToken, { 'if-none-match': admin.headers.etag as string })).statusCode).toBe(304);

    await one.request({ method: 'PATCH', url, headers: shop.headers(), payload: { title: 'Tagged again' } });
    const changed = await within(1000, () => onOther(url, shop.storefrontToken, { 'if-none-match': etag }), (res) => res.statusCode === 200);
    expect(changed.value.statusCode).toBe(200);
    expect(changed.value.headers.etag).not.toBe(etag);
    expect(changed.value.json().data.title).toBe('Tagged again');
  });

  it('serves nothing from memory while its listener is lost, and starts empty once it has resynced', async () => {
    const p = await createProduct(one, shop, { title: 'Listener test' });
    const url = `/api/v1/catalog/products/${p.id}`;
    expect(await cachedSoon(other, () => onOther(url))).toBe(true);
    const cache = other.container.resolve(ReadCache);
    const sync = cache.sync as PostgresCacheSync;
    const pid = sync.backendPid;
    expect(pid).toBeGreaterThan(0);

    const owner = one.app.orm.em.getConnection();
    // A change whose message never arrives: written while the listener is being cut off.
    await owner.execute('select pg_terminate_backend(?)', [pid]);
    await owner.execute(`update catalog_product set title = 'Missed change' where id = ?`, [p.id]);
    const lost = await within(5000, async () => cache.serving, (serving) => !serving);
    expect(lost.value).toBe(false);
    // Lost, or already back with an empty cache: either way the database answers, with the change.
    const during = await statementsOf(other, () => onOther(url));
    expect(during.result.json().data.title).toBe('Missed change');
    expect(during.count).toBeGreaterThan(0);

    const back = await within(10_000, async () => cache.serving, (serving) => serving);
    expect(back.value).toBe(true);
    expect(sync.backendPid).not.toBe(pid);
    expect(await cachedSoon(other, () => onOther(url))).toBe(true);
  });
});

describe('two API processes with REDIS_URL (Redis pub/sub)', () => {
  const env = { REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', QHATU_QUEUE_PREFIX: `qhatu-test-${randomBytes(4).toString('hex')}` };
  let one: TestApp;
  let other: QhatuApp;
  let dataDir: string;
  let shop: TestTenant;
  beforeAll(async () => {
    one = await createTestApp({ plugins, env });
    dataDir = await mkdtemp(path.join(tmpdir(), 'qhatu-second-'));
    other = await secondProcess(one, dataDir, env);
    shop = await one.createTenant();
  }, 60_000);
  afterAll(async () => {
    await other?.close();
    await one?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('a change made through one is seen by the other storefront when the change has answered', async () => {
    const p = await createProduct(one, shop, { title: 'Redis poncho' });
    const url = `/api/v1/catalog/products/${p.id}`;
    const read = () => other.http.inject({ method: 'GET', url, headers: shop.headers(shop.storefrontToken) });
    expect(await cachedSoon(other, read)).toBe(true);
    await one.request({ method: 'PATCH', url, headers: shop.headers(), payload: { title: 'Redis poncho II' } });
    // The writer announced it and waited for every process to acknowledge (at most a second).
    expect((await read()).json().data.title).toBe('Redis poncho II');
  });
});

describe('settings', () => {
  let small: TestApp;
  let off: TestApp;
  let smallShop: TestTenant;
  let offShop: TestTenant;
  beforeAll(async () => {
    [small, off] = await Promise.all([
      createTestApp({ plugins, env: { QHATU_CACHE_MAX_MB: '1' } }),
      createTestApp({ plugins, env: { QHATU_CACHE: 'off' } }),
    ]);
    [smallShop, offShop] = await Promise.all([small.createTenant(), off.createTenant()]);
  }, 60_000);
  afterAll(async () => {
    await small?.close();
    await off?.close();
  });

  it('keeps the cache within QHATU_CACHE_MAX_MB, dropping the least recently used answers', async () => {
    // About 10 kB a product that gzip cannot shrink much (the cache keeps large answers gzipped).
    for (let i = 0; i < 40; i++) await createProduct(small, smallShop, { title: `Woven ${i}`, description_html: `<p>${randomBytes(7500).toString('base64')}</p>` });
    const cache = small.app.container.resolve(ReadCache);
    // The products' change notices arrive first (one arriving later would make the kept answers unreachable).
    await cache.caughtUp();
    let served = 0;
    for (let limit = 1; limit <= 40; limit++) {
      const res = await small.request({ method: 'GET', url: `/api/v1/catalog/products?limit=${limit}`, headers: smallShop.headers(smallShop.storefrontToken) });
      expect(res.statusCode).toBe(200);
      served += res.body.length;
      expect(cache.bytes).toBeLessThanOrEqual(1024 * 1024);
    }
    // Far more was answered than the budget holds; what is kept is within it and the newest is there.
    expect(served).toBeGreaterThan(4 * 1024 * 1024);
    expect(cache.size).toBeGreaterThan(0);
    expect(cache.size).toBeLessThan(40);
    const newest = await small.countQueries(() => small.request({ method: 'GET', url: '/api/v1/catalog/products?limit=40', headers: smallShop.headers(smallShop.storefrontToken) }));
    expect(newest.count).toBe(0);
  });

  it("shares the budget fairly: a store walking every page does not push out another store's answers; /metrics shows what is held", async () => {
    const quiet = await small.createTenant();
    const kept = await createProduct(small, quiet, { title: 'Kept' });
    const read = () => small.countQueries(() => small.request({ method: 'GET', url: `/api/v1/catalog/products/${kept.id}`, headers: quiet.headers(quiet.storefrontToken) }));
    await small.app.container.resolve(ReadCache).caughtUp();
    expect((await read()).result.statusCode).toBe(200);
    expect((await read()).count).toBe(0);
    // The busy store walks its pages again and again, far past the budget (one least recently used list would drop the quiet store's answer).
    const walk = Array.from({ length: 40 }, (_, i) => `/api/v1/catalog/products?limit=${40 - i}`);
    for (let round = 0; round < 3; round++) {
      for (const url of walk) expect((await small.request({ method: 'GET', url, headers: smallShop.headers(smallShop.storefrontToken) })).statusCode).toBe(200);
    }
    expect((await read()).count).toBe(0);
    const stats = small.app.container.resolve(ReadCache).stats();
    expect(stats.bytes).toBeLessThanOrEqual(1024 * 1024);
    expect(stats.stores).toBe(2);

    const metrics = await small.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${small.platformToken}` } });
    expect(metrics.statusCode).toBe(200);
    const gauge = (name: string) => Number(new RegExp(`^${name}\\{cache="storefront"\\} (\\d+)$`, 'm').exec(metrics.body)?.[1]);
    expect(gauge('qhatu_cache_max_bytes')).toBe(1024 * 1024);
    expect(gauge('qhatu_cache_bytes')).toBeGreaterThan(0);
    expect(gauge('qhatu_cache_bytes')).toBeLessThanOrEqual(1024 * 1024);
    expect(gauge('qhatu_cache_stores')).toBe(2);
    expect(gauge('qhatu_cache_entries')).toBeGreaterThan(1);
    expect(metrics.body).toMatch(/^qhatu_cache_max_bytes\{cache="facts"\} \d+$/m);
  });

  it('keeps a large answer gzipped, in a fraction of its JSON, and answers it byte for byte with the same ETag', async () => {
    const roomy = await small.createTenant();
    const description = `<p>${'Tejido a mano en Cusco con lana de alpaca. '.repeat(200)}</p>`;
    for (let i = 0; i < 12; i++) await createProduct(small, roomy, { title: `Manta ${i}`, description_html: description });
    const cache = small.app.container.resolve(ReadCache);
    await cache.caughtUp();
    const url = '/api/v1/catalog/products?limit=12';
    const headers = roomy.headers(roomy.storefrontToken);
    const first = await small.request({ method: 'GET', url, headers });
    expect(first.body.length).toBeGreaterThan(50_000);
    // Kept now: the second read is served from memory, the same bytes and tag.
    const again = await small.countQueries(() => small.request({ method: 'GET', url, headers }));
    expect(again.count).toBe(0);
    expect(again.result.body).toBe(first.body);
    expect(again.result.headers.etag).toBe(first.headers.etag);
    expect(JSON.parse(again.result.body).data).toHaveLength(12);
    // What the entry holds is a fraction of the two bytes a character its JSON would take as a string
    // (the read above also keeps an unzipped copy of that hot page: counted before).
    const before = cache.stats().bytes;
    const held = await small.request({ method: 'GET', url: '/api/v1/catalog/products?limit=11', headers });
    const grown = cache.stats().bytes - before;
    expect(grown).toBeGreaterThan(0);
    expect(grown).toBeLessThan(held.body.length / 2);
  });

  it('reads the database every time with QHATU_CACHE=off, and still answers ETags', async () => {
    const p = await createProduct(off, offShop, { title: 'Uncached' });
    const read = () => off.countQueries(() => off.request({ method: 'GET', url: `/api/v1/catalog/products/${p.id}`, headers: offShop.headers(offShop.storefrontToken) }));
    await read();
    const second = await read();
    expect(second.count).toBe(1);
    expect(off.app.container.resolve(ReadCache).size).toBe(0);
    const etag = second.result.headers.etag as string;
    const notModified = await off.request({ method: 'GET', url: `/api/v1/catalog/products/${p.id}`, headers: { ...offShop.headers(offShop.storefrontToken), 'if-none-match': etag } });
    expect(notModified.statusCode).toBe(304);
  });
});
