import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp, Database, loadConfig, migrateAll, type QhatuApp } from '@qhatu/core';
import catalog from '@qhatu/plugin-catalog';
import media from '@qhatu/plugin-media';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PostgresClusters, type Cluster } from './postgres-clusters.js';

/**
 * Read replicas (decision 0077, docs/scale-out.md) on real streaming replication: a private
 * primary made with `initdb`, two standbys made from it with `pg_basebackup`, and the store on the
 * primary with `DATABASE_REPLICA_URLS` naming both. Reads that may lag (the catalog's) go to the
 * replicas round robin; the caller who wrote reads on the primary until a replica has replayed
 * its commit; a replica behind the set lag, or killed, is skipped without a request failing.
 * Replay is paused on a standby (`pg_wal_replay_pause()`) to tell from an answer where it was read.
 */
const PLUGINS = [media, catalog];
const PRODUCTS = '/api/v1/catalog/products';
let clusters: PostgresClusters;
let primary: Cluster;
const replicas: Cluster[] = [];
const apps: QhatuApp[] = [];
const dirs: string[] = [];
const platformToken = `qhp_${randomBytes(24).toString('base64url')}`;

async function store(env: Record<string, string>): Promise<QhatuApp> {
  const dir = await mkdtemp(path.join(tmpdir(), 'qhatu-replicas-app-'));
  dirs.push(dir);
  const config = loadConfig({
    DATABASE_URL: primary.url,
    DATABASE_POOL_MAX: '8',
    DATABASE_REPLICA_URLS: replicas.map((r) => r.url).join(','),
    DATABASE_REPLICA_CHECK_MS: '50',
    QHATU_PLATFORM_TOKEN: platformToken,
    QHATU_ENV: 'development',
    QHATU_DATA_DIR: dir,
    // Every read reaches the database: the storefront's read cache would answer from memory.
    QHATU_CACHE: 'off',
    LOG_LEVEL: 'silent',
    ...env,
  });
  const app = await createApp({ plugins: PLUGINS, config });
  apps.push(app);
  return app;
}

function replicaSet(app: QhatuApp) {
  const set = app.container.resolve(Database).replicas;
  if (!set) throw new Error('the store has no read replicas');
  return set;
}

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A tenant with its keys, through the platform API; `call(key)` makes requests as that key. */
async function tenantOn(app: QhatuApp) {
  const platform = { authorization: `Bearer ${platformToken}` };
  const created = await app.http.inject({ method: 'POST', url: '/api/v1/tenants', headers: platform, payload: { name: 'Replicated store', currency: 'USD' } });
  expect(created.statusCode, created.body).toBe(201);
  const tenantId = created.json().data.id as string;
  const key = async (scope: string) => {
    const res = await app.http.inject({ method: 'POST', url: `/api/v1/tenants/${tenantId}/api-keys`, headers: platform, payload: { name: scope, scope } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data.token as string;
  };
  const [admin, storefront] = [await key('admin'), await key('storefront')];
  const as = (token: string) => (method: 'GET' | 'POST', url: string, payload?: object) =>
    app.http.inject({ method, url, headers: { authorization: `Bearer ${token}`, 'x-tenant-id': tenantId }, ...(payload ? { payload } : {}) });
  return { tenantId, admin: as(admin), storefront: as(storefront) };
}

const product = (title: string) => ({ title, status: 'active', variants: [{ title: 'Default', price: 1500 }] });
/** Pauses replay on `replica` and waits until it has stopped (a pause is only requested at first: replay may go on a moment). */
const pause = async (replica: Cluster) => {
  await clusters.sql(replica, 'select pg_wal_replay_pause()');
  await until(async () => (await clusters.sql(replica, 'select pg_get_wal_replay_pause_state() as state'))[0].state === 'paused', `replay paused on ${replica.name}`);
};
const resume = (replica: Cluster) => clusters.sql(replica, 'select pg_wal_replay_resume()');
const everyReplicaCaughtUp = () => Promise.all(replicas.map((r) => clusters.caughtUp(primary, r)));
/** Whether `replica` has the product, read on the standby itself. */
const hasProduct = async (replica: Cluster, id: string) => (await clusters.sql(replica, 'select 1 from catalog_product where id = $1', [id])).length === 1;

beforeAll(async () => {
  clusters = new PostgresClusters();
  primary = await clusters.primary();
  await migrateAll(primary.url, PLUGINS);
  replicas.push(await clusters.replica(primary, 'replica1'), await clusters.replica(primary, 'replica2'));
}, 60_000);

afterAll(async () => {
  for (const app of apps) await app.close().catch(() => undefined);
  clusters?.destroy();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('read replicas', () => {
  // A case that stopped half-way leaves no replica paused for the next one.
  afterEach(async () => {
    await Promise.all(replicas.map((r) => resume(r).catch(() => undefined)));
  });

  it('reads that may lag go to the replicas round robin; the caller who wrote reads its write on the primary', async () => {
    // A lag far above the test's pauses: this case is about where reads go, not about lag.
    const app = await store({ DATABASE_REPLICA_MAX_LAG_MS: '60000' });
    const shop = await tenantOn(app);
    await everyReplicaCaughtUp();
    await until(() => replicaSet(app).status().every((r) => r.usable && r.lagMs === 0), 'both replicas usable');
    await Promise.all(replicas.map(pause));

    const created = await shop.admin('POST', PRODUCTS, product('Written on the primary'));
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().data.id as string;
    expect(await hasProduct(replicas[0], id)).toBe(false);
    expect(await hasProduct(replicas[1], id)).toBe(false);

    // Another caller (the storefront key) reads on the replicas: they have not replayed the product yet.
    for (let n = 0; n < 4; n++) expect((await shop.storefront('GET', `${PRODUCTS}/${id}`)).statusCode).toBe(404);
    const page = await shop.storefront('GET', PRODUCTS);
    expect(page.statusCode).toBe(200);
    expect(page.json().data.map((p: { id: string }) => p.id)).not.toContain(id);
    // The caller who wrote it reads it: on the primary, the replicas being behind its commit.
    for (let n = 0; n < 4; n++) expect((await shop.admin('GET', `${PRODUCTS}/${id}`)).statusCode).toBe(200);
    expect((await shop.admin('GET', PRODUCTS)).json().data.map((p: { id: string }) => p.id)).toContain(id);

    // One replica replays on: the storefront's reads alternate between it (the product) and the paused one (none).
    await resume(replicas[0]);
    await clusters.caughtUp(primary, replicas[0]);
    await until(() => replicaSet(app).status()[0].lagMs === 0, 'the app saw replica 1 caught up');
    const statuses: number[] = [];
    for (let n = 0; n < 6; n++) statuses.push((await shop.storefront('GET', `${PRODUCTS}/${id}`)).statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s === 404)).toHaveLength(3);
    for (let n = 1; n < statuses.length; n++) expect(statuses[n]).not.toBe(statuses[n - 1]);
    // The writer now reads on the replica that has its commit, never on the one that has not.
    for (let n = 0; n < 6; n++) expect((await shop.admin('GET', `${PRODUCTS}/${id}`)).statusCode).toBe(200);

    await resume(replicas[1]);
    await everyReplicaCaughtUp();
  });

  it('a replica further behind than the set lag takes no reads until it catches up', async () => {
    const app = await store({ DATABASE_REPLICA_MAX_LAG_MS: '300' });
    const shop = await tenantOn(app);
    await everyReplicaCaughtUp();
    await until(() => replicaSet(app).status().every((r) => r.usable), 'both replicas usable');
    await pause(replicas[1]);

    const created = await shop.admin('POST', PRODUCTS, product('Behind on replica 2'));
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().data.id as string;
    await clusters.caughtUp(primary, replicas[0]);
    await until(() => !replicaSet(app).status()[1].usable, 'replica 2 past the lag');
    expect(replicaSet(app).status()[1].lagMs).toBeGreaterThan(300);
    expect(await hasProduct(replicas[1], id)).toBe(false);

    // Every read lands where the product is: replica 1 (caught up) or the primary, never replica 2.
    for (let n = 0; n < 6; n++) expect((await shop.storefront('GET', `${PRODUCTS}/${id}`)).statusCode).toBe(200);

    await resume(replicas[1]);
    await clusters.caughtUp(primary, replicas[1]);
    await until(() => replicaSet(app).status()[1].usable, 'replica 2 back within the lag');
  });

  it('refuses replica settings it cannot use, naming them', async () => {
    await expect(store({ DATABASE_REPLICA_URLS: 'replica-1:5432' })).rejects.toThrow(/DATABASE_REPLICA_URLS/);
    await expect(store({ DATABASE_REPLICA_MAX_LAG_MS: '-1' })).rejects.toThrow(/DATABASE_REPLICA_MAX_LAG_MS/);
  });

  it('killing a replica, then the other, under load costs no request', async () => {
    const app = await store({ DATABASE_REPLICA_MAX_LAG_MS: '5000' });
    const shop = await tenantOn(app);
    const created = await shop.admin('POST', PRODUCTS, product('Read while replicas die'));
    const id = created.json().data.id as string;
    await everyReplicaCaughtUp();
    await until(() => replicaSet(app).status().every((r) => r.usable), 'both replicas usable');

    const answers: number[] = [];
    let reading = true;
    // Eight readers at once, each read after the last, until told to stop.
    const readers = Array.from({ length: 8 }, async () => {
      while (reading) answers.push((await shop.storefront('GET', `${PRODUCTS}/${id}`)).statusCode);
    });
    const read = async (count: number) => {
      const target = answers.length + count;
      await until(() => answers.length >= target, `${count} more reads`);
    };
    try {
      await read(40);
      clusters.kill(replicas[0]);
      await read(80);
      expect(replicaSet(app).status()[0].up).toBe(false);
      clusters.kill(replicas[1]);
      await read(80);
      expect(replicaSet(app).status().some((r) => r.up)).toBe(false);
    } finally {
      reading = false;
      await Promise.all(readers);
    }
    expect(answers.length).toBeGreaterThanOrEqual(200);
    expect(answers.filter((s) => s !== 200)).toEqual([]);
    // With no replica left, reads are the primary's.
    expect((await shop.storefront('GET', PRODUCTS)).json().data.map((p: { id: string }) => p.id)).toContain(id);
  });
});
