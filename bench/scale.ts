/**
 * `pnpm bench:scale`: does a store's latency depend on its size, or on the number of stores? Lists
 * and searches of products, orders and customers with 1,000 and with 1,000,000 rows in the store
 * being read, and a product read with 10 and with 10,000 stores in the database, side by side.
 * See docs/benchmarks.md.
 *
 * Requests are sent one at a time (latency, not throughput): a warm-up, then BENCH_SCALE_REQUESTS
 * of each. Environment: BENCH_SCALE_ROWS (the big store's rows of each kind, default 1,000,000),
 * BENCH_SCALE_STORES (default 10,000), BENCH_SCALE_STORE_PRODUCTS (products of each of the many
 * stores, default 100), BENCH_SCALE_REQUESTS (default 200), BENCH_DATABASE_URL or
 * TEST_DATABASE_URL (PostgreSQL admin URL), LOG_LEVEL.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type pg from 'pg';
import { createTestDatabase } from '../packages/core/src/testing/index.js';
import { describeMachine, formatMachine } from './report.js';
import { seedCustomers, seedingClient, seedOrders, seedProducts, seedStores, settle } from './scale-seed.js';
import { BENCH_PLUGINS, freePort, spawnServer } from './servers.js';

const SMALL = 1_000;
const FEW_STORES = 10;
/** Stores read at once when every one of the many stores is touched. */
const TOUCH_CONCURRENCY = 8;
/** One API process after touching every store (the bar). */
const PROCESS_MB = 512;
const WARMUP = 20;
const TABLES = ['core_tenant', 'catalog_product', 'catalog_variant', 'customers_customer', 'orders_order', 'orders_line_item'];
/** The bars of the issue this benchmark answers. */
const LIST_RATIO = 1.2;
const EMPTY_SEARCH_MS = 20;
const READ_RATIO = 1.2;

const log = (line: string) => console.error(`[bench:scale] ${line}`);

function setting(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive whole number, not "${raw}"`);
  return value;
}

interface Store {
  id: string;
  headers: Record<string, string>;
}

interface Timing {
  p50: number;
  p95: number;
  mean: number;
}

async function call(url: string, headers: Record<string, string>): Promise<any> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${new URL(url).pathname}${new URL(url).search} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/**
 * Latency of one request at a time, for two requests taken in turns (a, b, a, b, ...), so that
 * whatever else loads the machine weighs on both alike: `WARMUP` rounds, then `count` measured.
 */
async function timePair(a: Target | (() => Target), b: Target | (() => Target), count: number): Promise<[Timing, Timing]> {
  const pick = (t: Target | (() => Target)) => (typeof t === 'function' ? t() : t);
  for (let i = 0; i < WARMUP; i++) for (const t of [a, b].map(pick)) await call(t.url, t.headers);
  const samples: [number[], number[]] = [[], []];
  for (let i = 0; i < count; i++) {
    for (const [k, t] of [a, b].map(pick).entries()) {
      const started = process.hrtime.bigint();
      await call(t.url, t.headers);
      samples[k].push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  }
  return [summary(samples[0]), summary(samples[1])];
}

/** A store of a deployment as a storefront sees it: its storefront key and one of its products. */
interface Shop {
  id: string;
  productId: string;
  headers: Record<string, string>;
}

/**
 * A storefront key for every store of the database, written in SQL as the API would (its SHA-256
 * kept, the clear text `qhs_<store>_<secret>` known to the benchmark only), and one product of each.
 */
async function storefronts(client: pg.Client): Promise<Shop[]> {
  const secret = randomBytes(32).toString('base64url');
  await client.query(
    `insert into core_access_token (tenant_id, id, kind, name, token_hash, token_prefix, created_at)
     select t.id, gen_random_uuid(), 'storefront', 'bench storefront',
            encode(sha256(convert_to('qhs_' || replace(t.id::text, '-', '') || '_' || $1, 'UTF8')), 'hex'),
            'qhs_' || substr(replace(t.id::text, '-', ''), 1, 4), now()
       from core_tenant t`,
    [secret],
  );
  const { rows } = await client.query<{ tenant_id: string; id: string }>(
    `select distinct on (tenant_id) tenant_id, id from catalog_product where status = 'active' order by tenant_id, created_at desc, id`,
  );
  return rows.map((r) => ({
    id: r.tenant_id,
    productId: r.id,
    headers: { authorization: `Bearer qhs_${r.tenant_id.replaceAll('-', '')}_${secret}`, 'x-tenant-id': r.tenant_id },
  }));
}

const anyOf = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)];

/** Reads every store's product and first page once, `TOUCH_CONCURRENCY` stores at a time; the seconds it took. */
async function touchEvery(base: string, shops: Shop[]): Promise<number> {
  const started = Date.now();
  let next = 0;
  const worker = async () => {
    while (next < shops.length) {
      const shop = shops[next++];
      await call(`${base}/api/v1/catalog/products/${shop.productId}`, shop.headers);
      await call(`${base}/api/v1/catalog/products?limit=25`, shop.headers);
    }
  };
  await Promise.all(Array.from({ length: TOUCH_CONCURRENCY }, worker));
  return (Date.now() - started) / 1000;
}

interface Memory {
  rssMb: number;
  peakMb: number;
  /** `qhatu_cache_<figure>{cache="<name>"}` as `caches[name][figure]`. */
  caches: Record<string, Record<string, number>>;
}

/** What one API process holds: its resident memory (now and at its peak, from /proc) and its caches (from `/metrics`). */
async function processMemory(base: string, pid: number, platformToken: string): Promise<Memory> {
  const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${platformToken}` } })).text();
  const caches: Record<string, Record<string, number>> = {};
  for (const m of text.matchAll(/^qhatu_cache_(\w+)\{cache="(\w+)"\} ([\d.e+]+)$/gm)) (caches[m[2]] ??= {})[m[1]] = Number(m[3]);
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  const reported = Number(/^process_resident_memory_bytes (\d+)/m.exec(text)?.[1] ?? NaN) / 1024 / 1024;
  return { rssMb: Number.isNaN(kb('VmRSS')) ? reported : kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024, caches };
}

interface Target {
  url: string;
  headers: Record<string, string>;
}

function summary(samples: number[]): Timing {
  samples.sort((x, y) => x - y);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  return { p50: at(0.5), p95: at(0.95), mean: samples.reduce((x, y) => x + y, 0) / samples.length };
}

interface Case {
  name: string;
  path: string;
}

/** The list and search requests, the next page's cursor taken from the first page of this store. */
async function cases(base: string, store: Store): Promise<Case[]> {
  const out: Case[] = [];
  for (const [label, path] of [['products', '/api/v1/catalog/products'], ['orders', '/api/v1/orders'], ['customers', '/api/v1/customers']] as const) {
    const first = `${path}?limit=25`;
    const cursor = (await call(`${base}${first}`, store.headers)).meta.pagination.cursor as string;
    out.push(
      { name: `${label}: first page`, path: first },
      { name: `${label}: next page (cursor)`, path: `${first}&cursor=${encodeURIComponent(cursor)}` },
      { name: `${label}: search matching nothing`, path: `${first}&q=zqxjv` },
    );
  }
  out.push({ name: 'orders: search by number', path: `/api/v1/orders?limit=25&q=%23${1000 + Math.min(SMALL, 777)}` });
  for (const [label, path, words] of SEARCHES) {
    for (const [kind, q] of Object.entries(words)) out.push({ name: `${label}: search, ${kind} "${q}"`, path: `${path}?limit=25&q=${encodeURIComponent(q)}` });
  }
  return out;
}

/**
 * The searches of the issue, newest first (the lists' order): a word most rows have, a word few
 * have (none in the small store), a word's first letters, two words, and a variant's SKU. The
 * seeded rows: products "Producto <n> de alpaca" (handle producto-<n>, SKUs ALP-<n>-S and
 * ALP-<n>-M), customers cliente<n>@correo.pe "Nombre<n % 997> Apellido<n>", orders of those.
 */
const SEARCHES: Array<[label: string, path: string, words: Record<string, string>]> = [
  ['products', '/api/v1/catalog/products', { common: 'alpaca', rare: '4242', prefix: 'pr', 'two words': 'alpaca 4242', SKU: 'ALP-777-M' }],
  ['customers', '/api/v1/customers', { common: 'correo', rare: '4242', prefix: 'ap', 'two words': 'correo 4242' }],
  ['orders', '/api/v1/orders', { common: 'correo', rare: '4242', prefix: 'ap', 'two words': 'correo 4242' }],
];

/** Each case in the small and in the big store, in turns. */
async function measureAll(base: string, small: Store, big: Store, count: number): Promise<Array<{ name: string; small: Timing; big: Timing }>> {
  const [smallCases, bigCases] = [await cases(base, small), await cases(base, big)];
  const out = [];
  for (const [i, c] of smallCases.entries()) {
    const [s, b] = await timePair({ url: `${base}${c.path}`, headers: small.headers }, { url: `${base}${bigCases[i].path}`, headers: big.headers }, count);
    log(`  ${c.name}: p50 ${s.p50.toFixed(2)} ms small, ${b.p50.toFixed(2)} ms big`);
    out.push({ name: c.name, small: s, big: b });
  }
  return out;
}

/**
 * The searches as they were before decision 0046, `ILIKE '%…%'` with no index behind it, sent as
 * raw SQL in a tenant transaction (the app role, the store entered): the reference the indexed
 * search is compared with. Small and big store in turns, as the API rows.
 */
const OLD_SEARCHES: Array<[string, string]> = [
  ['products', `select id, title, handle from catalog_product where tenant_id = $1 and (title ilike $2 or handle ilike $2) order by created_at desc, id desc limit 26`],
  ['orders', `select id, number from orders_order where tenant_id = $1 and (customer_email ilike $2 or customer_name ilike $2) order by created_at desc, id desc limit 26`],
  ['customers', `select id, email from customers_customer where tenant_id = $1 and (email ilike $2 or first_name ilike $2 or last_name ilike $2) order by created_at desc, id desc limit 26`],
];

async function timeOldSearches(client: pg.Client, small: Store, big: Store, count: number): Promise<Array<{ name: string; small: Timing; big: Timing }>> {
  const once = async (sql: string, store: Store) => {
    const started = process.hrtime.bigint();
    await client.query('begin read only');
    await client.query(`select set_config('role', 'qhatu_app', true), set_config('app.tenant_id', $1, true)`, [store.id]);
    await client.query(sql, [store.id, '%zqxjv%']);
    await client.query('commit');
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  const out = [];
  for (const [label, sql] of OLD_SEARCHES) {
    for (let i = 0; i < 3; i++) for (const store of [small, big]) await once(sql, store);
    const samples: [number[], number[]] = [[], []];
    for (let i = 0; i < count; i++) for (const [k, store] of [small, big].entries()) samples[k].push(await once(sql, store));
    out.push({ name: `before: ${label} ILIKE matching nothing (SQL only)`, small: summary(samples[0]), big: summary(samples[1]) });
    log(`  before, ${label}: p50 ${out[out.length - 1].small.p50.toFixed(2)} ms small, ${out[out.length - 1].big.p50.toFixed(2)} ms big`);
  }
  return out;
}

/** A store and its admin key, through the API (keys are hashed there). */
async function makeStore(base: string, platformToken: string, name: string): Promise<Store> {
  const headers = { authorization: `Bearer ${platformToken}`, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (response.status !== 201) throw new Error(`POST ${path} answered ${response.status}: ${await response.text()}`);
    return ((await response.json()) as { data: any }).data;
  };
  const tenant = await post('/api/v1/tenants', { name, currency: 'USD' });
  const key = await post(`/api/v1/tenants/${tenant.id}/api-keys`, { name: 'bench admin', scope: 'admin' });
  return { id: tenant.id, headers: { authorization: `Bearer ${key.token}`, 'x-tenant-id': tenant.id } };
}

const ms = (n: number) => n.toFixed(2);
const row = (cells: string[]) => `| ${cells.join(' | ')} |`;

function table(header: string[], rows: string[][]): string {
  return [row(header), row(header.map((h, i) => (i === 0 ? '---' : '---:'))), ...rows.map(row)].join('\n');
}

async function main(): Promise<void> {
  const rows = setting('BENCH_SCALE_ROWS', 1_000_000);
  const stores = setting('BENCH_SCALE_STORES', 10_000);
  const count = setting('BENCH_SCALE_REQUESTS', 200);
  const perStore = setting('BENCH_SCALE_STORE_PRODUCTS', 100);
  if (process.env.BENCH_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL;

  // Two databases, each with its app server: one with 10 stores (a small and a big one among
  // them), one with 10,000; the product read is measured on both in turns.
  log('creating the benchmark databases');
  const few = await createTestDatabase(BENCH_PLUGINS);
  const many = await createTestDatabase(BENCH_PLUGINS);
  const platformToken = `qhp_${randomBytes(32).toString('base64url')}`;
  const serve = async (databaseUrl: string) =>
    spawnServer('app', { databaseUrl, port: await freePort(), poolMax: 10, platformToken, logLevel: process.env.LOG_LEVEL || 'silent' });
  const servers = [await serve(few.url), await serve(many.url)];
  const seeders = [await seedingClient(few.url), await seedingClient(many.url)];
  try {
    const machine = await describeMachine(few.url);
    const [base, manyBase] = servers.map((s) => s.url);
    const small = await makeStore(base, platformToken, 'Small store');
    const big = await makeStore(base, platformToken, 'Big store');
    const reader = await makeStore(manyBase, platformToken, 'Store among many');
    const [seeder, manySeeder] = seeders;

    log(`${FEW_STORES} stores: the small one (${SMALL.toLocaleString('en')} of each), the big one (${rows.toLocaleString('en')} of each) and ${FEW_STORES - 2} of ${perStore} products`);
    for (const seed of [seedProducts, seedCustomers, seedOrders]) await seed(seeder, { tenantId: small.id, from: 1, to: SMALL }, log);
    for (const seed of [seedProducts, seedCustomers, seedOrders]) await seed(seeder, { tenantId: big.id, from: 1, to: rows }, log);
    await seedStores(seeder, FEW_STORES - 2, perStore, log);
    await settle(seeder, TABLES, log);

    log(`${stores.toLocaleString('en')} stores: one of ${SMALL.toLocaleString('en')} products and ${(stores - 1).toLocaleString('en')} of ${perStore}`);
    await seedProducts(manySeeder, { tenantId: reader.id, from: 1, to: SMALL }, log);
    await seedStores(manySeeder, stores - 1, perStore, log);
    await settle(manySeeder, TABLES, log);

    // The read first, while both servers have served the same requests (their warm-up only).
    log(`measuring a product read with ${FEW_STORES} and with ${stores.toLocaleString('en')} stores in turns`);
    const productOf = async (client: pg.Client, store: Store) =>
      (await client.query(`select id from catalog_product where tenant_id = $1 order by created_at limit 1 offset 500`, [store.id])).rows[0].id as string;
    const [readFew, readMany] = await timePair(
      { url: `${base}/api/v1/catalog/products/${await productOf(seeder, small)}`, headers: small.headers },
      { url: `${manyBase}/api/v1/catalog/products/${await productOf(manySeeder, reader)}`, headers: reader.headers },
      count,
    );

    // Every store gets a storefront key; then one process reads every one of the many stores once
    // (their product and first page, through the storefront cache), and a random store's read and
    // list are measured against a random store of the 10.
    const [fewShops, manyShops] = [await storefronts(seeder), await storefronts(manySeeder)];
    log(`touching every one of the ${manyShops.length.toLocaleString('en')} stores: a product and the first page of each`);
    const touchSeconds = await touchEvery(manyBase, manyShops);
    await touchEvery(base, fewShops);
    const touched = await processMemory(manyBase, servers[1].pid, platformToken);
    log(`  done in ${touchSeconds.toFixed(1)} s; the process holds ${touched.rssMb.toFixed(0)} MB`);
    log(`measuring a random store's product and first page (storefront), ${FEW_STORES} stores against ${stores.toLocaleString('en')}, in turns`);
    const randomRead = (at: string, shops: Shop[]) => () => {
      const shop = anyOf(shops);
      return { url: `${at}/api/v1/catalog/products/${shop.productId}`, headers: shop.headers };
    };
    const randomList = (at: string, shops: Shop[]) => () => ({ url: `${at}/api/v1/catalog/products?limit=25`, headers: anyOf(shops).headers });
    const [shopReadFew, shopReadMany] = await timePair(randomRead(base, fewShops), randomRead(manyBase, manyShops), count);
    const [shopListFew, shopListMany] = await timePair(randomList(base, fewShops), randomList(manyBase, manyShops), count);
    const memory = await processMemory(manyBase, servers[1].pid, platformToken);

    log('measuring the small and the big store in turns');
    const results = await measureAll(base, small, big, count);
    log('the searches as they were before (ILIKE), in SQL');
    const before = await timeOldSearches(seeder, small, big, Math.min(count, 30));
    const big1 = rows.toLocaleString('en');
    const small1 = SMALL.toLocaleString('en');
    const storesLabel = stores.toLocaleString('en');
    console.log(`\n${formatMachine(machine, { connections: 1, durationSeconds: 0, warmupSeconds: 0 }).split('\n').slice(0, -1).join('\n')}`);
    console.log(`Requests    one at a time, the two columns in turns; ${WARMUP} warm-up rounds, then ${count} measured; admin key (no read cache)\n`);
    console.log(
      table(
        ['request', `p50 ms, ${small1} rows`, `p95 ms, ${small1}`, `p50 ms, ${big1} rows`, `p95 ms, ${big1}`, 'p50 ratio'],
        [...results, ...before].map((r) => [r.name, ms(r.small.p50), ms(r.small.p95), ms(r.big.p50), ms(r.big.p95), `${(r.big.p50 / r.small.p50).toFixed(2)}×`]),
      ),
    );
    console.log('');
    console.log(
      table(
        ['request', `p50 ms, ${FEW_STORES} stores`, `p95 ms, ${FEW_STORES}`, `p50 ms, ${storesLabel} stores`, `p95 ms, ${storesLabel}`, 'p50 ratio'],
        [
          ['GET /catalog/products/:id, one store (admin)', readFew, readMany],
          ['GET /catalog/products/:id, a random store (storefront)', shopReadFew, shopReadMany],
          ['GET /catalog/products?limit=25, a random store (storefront)', shopListFew, shopListMany],
        ].map(([name, few, many]) => {
          const [f, m] = [few as Timing, many as Timing];
          return [name as string, ms(f.p50), ms(f.p95), ms(m.p50), ms(m.p95), `${(m.p50 / f.p50).toFixed(2)}×`];
        }),
      ),
    );
    const mb = (bytes: number | undefined) => (bytes === undefined ? '–' : (bytes / 1024 / 1024).toFixed(1));
    const storefrontCache = memory.caches.storefront ?? {};
    const factsCache = memory.caches.facts ?? {};
    console.log(`\nOne API process of the ${storesLabel} stores, after reading every store once (${touchSeconds.toFixed(0)} s) and the random reads:\n`);
    console.log(
      table(
        ['figure', 'value'],
        [
          ['resident memory now, MB', memory.rssMb.toFixed(0)],
          ['resident memory at its peak, MB', memory.peakMb.toFixed(0)],
          ['storefront cache: MB held / budget', `${mb(storefrontCache.bytes)} / ${mb(storefrontCache.max_bytes)}`],
          ['storefront cache: answers / stores', `${storefrontCache.entries ?? '–'} / ${storefrontCache.stores ?? '–'}`],
          ['facts cache: MB held / budget', `${mb(factsCache.bytes)} / ${mb(factsCache.max_bytes)}`],
        ],
      ),
    );

    // The bars: every list page within 1.2× (p50), the empty product search under 20 ms, the read within 1.2×.
    const verdicts: string[] = [];
    const mark = (ok: boolean) => (ok ? 'ok  ' : 'MISS');
    for (const r of results) {
      if (/page/.test(r.name)) verdicts.push(`${mark(r.big.p50 <= r.small.p50 * LIST_RATIO)} ${r.name}: ${(r.big.p50 / r.small.p50).toFixed(2)}× (bar ${LIST_RATIO}×)`);
      if (r.name === 'products: search matching nothing') verdicts.push(`${mark(r.big.p50 < EMPTY_SEARCH_MS)} ${r.name} at ${big1} products: ${ms(r.big.p50)} ms (bar ${EMPTY_SEARCH_MS} ms)`);
      // Any search: within 1.2× of the small store's, or under 20 ms.
      if (/: search, /.test(r.name)) {
        const ok = r.big.p50 <= r.small.p50 * LIST_RATIO || r.big.p50 < EMPTY_SEARCH_MS;
        verdicts.push(`${mark(ok)} ${r.name}: ${(r.big.p50 / r.small.p50).toFixed(2)}×, ${ms(r.big.p50)} ms (bar ${LIST_RATIO}× or ${EMPTY_SEARCH_MS} ms)`);
      }
    }
    verdicts.push(`${mark(readMany.p50 <= readFew.p50 * READ_RATIO)} product read: ${(readMany.p50 / readFew.p50).toFixed(2)}× (bar ${READ_RATIO}×)`);
    verdicts.push(`${mark(shopReadMany.p50 <= shopReadFew.p50 * READ_RATIO)} a random store's product read: ${(shopReadMany.p50 / shopReadFew.p50).toFixed(2)}× (bar ${READ_RATIO}×)`);
    verdicts.push(`${mark(shopListMany.p50 <= shopListFew.p50 * READ_RATIO)} a random store's first page: ${(shopListMany.p50 / shopListFew.p50).toFixed(2)}× (bar ${READ_RATIO}×)`);
    verdicts.push(`${mark((storefrontCache.bytes ?? Infinity) <= (storefrontCache.max_bytes ?? 0))} storefront cache within its budget: ${mb(storefrontCache.bytes)} of ${mb(storefrontCache.max_bytes)} MB`);
    const peak = Math.max(touched.peakMb || touched.rssMb, memory.peakMb || memory.rssMb);
    verdicts.push(`${mark(peak < PROCESS_MB)} one API process after touching every store: ${peak.toFixed(0)} MB at its peak (bar ${PROCESS_MB} MB)`);
    console.log(`\n${verdicts.join('\n')}`);
    process.exitCode = verdicts.some((v) => v.startsWith('MISS')) ? 1 : 0;
  } finally {
    for (const client of seeders) await client.end().catch(() => undefined);
    for (const server of servers) await server.stop().catch(() => undefined);
    for (const database of [few, many]) await database.drop().catch((error) => log(`could not drop ${database.name}: ${error instanceof Error ? error.message : error}`));
  }
}

main().catch((error) => {
  log(`failed: ${error instanceof Error ? error.stack ?? error.message : error}`);
  process.exitCode = 1;
});
