import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessTokens, createApp, loadConfig, PostgresCacheSync, type QhatuApp } from '../src/index.js';
import { createTestApp, type TestApp, type TestTenant } from '../src/testing/index.js';
import { notesPlugin } from './fixtures/notes-plugin.js';

/**
 * Two API processes on one database, as behind a load balancer: what one revokes, disables or
 * suspends, the other refuses on the next request, though it had the token cached.
 */
function twoProcesses(env: Record<string, string>) {
  const ctx: { one: TestApp; other: QhatuApp; dataDir: string; shop: TestTenant } = {} as never;
  beforeAll(async () => {
    ctx.one = await createTestApp({ plugins: [notesPlugin], env });
    ctx.dataDir = await mkdtemp(path.join(tmpdir(), 'qhatu-second-'));
    const config = loadConfig({
      DATABASE_URL: ctx.one.databaseUrl,
      DATABASE_POOL_MAX: '4',
      QHATU_PLATFORM_TOKEN: ctx.one.platformToken,
      QHATU_DATA_DIR: ctx.dataDir,
      QHATU_ENV: 'development',
      LOG_LEVEL: 'silent',
      ...env,
    });
    ctx.other = await createApp({ plugins: [notesPlugin], config });
    ctx.shop = await ctx.one.createTenant();
  }, 60_000);
  afterAll(async () => {
    await ctx.other?.close();
    await ctx.one?.close();
    await rm(ctx.dataDir, { recursive: true, force: true });
  });
  return ctx;
}

const platform = (t: TestApp) => ({ authorization: `Bearer ${t.platformToken}` });

async function onOther(ctx: { other: QhatuApp }, headers: Record<string, string>, url = '/api/v1/notes-unfiltered') {
  return (await ctx.other.http.inject({ method: 'GET', url, headers })).statusCode;
}

describe('token cache across processes (PostgreSQL LISTEN/NOTIFY)', () => {
  const ctx = twoProcesses({});

  it('refuses a revoked API key on the other process at once', async () => {
    const { one, shop } = ctx;
    const issued = (await one.request({ method: 'POST', url: `/api/v1/tenants/${shop.id}/api-keys`, headers: platform(one), payload: { name: 'Temp', scope: 'admin' } })).json().data;
    expect(await onOther(ctx, shop.headers(issued.token))).toBe(200);
    const revoked = await one.request({ method: 'DELETE', url: `/api/v1/tenants/${shop.id}/api-keys/${issued.id}`, headers: platform(one) });
    expect(revoked.statusCode).toBe(204);
    expect(await onOther(ctx, shop.headers(issued.token))).toBe(401);
  });

  it('refuses a disabled staff member on the other process at once, and applies a role change there', async () => {
    const { one, shop } = ctx;
    const roles = (await one.request({ method: 'GET', url: '/api/v1/roles', headers: shop.headers() })).json().data;
    const admin = roles.find((r: { name: string }) => r.name === 'admin').id;
    const created = await one.request({ method: 'POST', url: '/api/v1/staff', headers: shop.headers(), payload: { email: 'moves@example.com', first_name: 'M', last_name: 'V', role_id: admin, password: 'long enough password' } });
    const id = created.json().data.id;
    const token = (await one.request({ method: 'POST', url: '/api/v1/auth/staff/login', headers: { 'x-tenant-id': shop.id }, payload: { email: 'moves@example.com', password: 'long enough password' } })).json().data.token;
    expect(await onOther(ctx, shop.headers(token))).toBe(200);

    const writer = (await one.request({ method: 'POST', url: '/api/v1/roles', headers: shop.headers(), payload: { name: 'Writer', permissions: ['notes.write'] } })).json().data;
    await one.request({ method: 'PATCH', url: `/api/v1/staff/${id}`, headers: shop.headers(), payload: { role_id: writer.id } });
    expect(await onOther(ctx, shop.headers(token))).toBe(403);

    await one.request({ method: 'PATCH', url: `/api/v1/staff/${id}`, headers: shop.headers(), payload: { role_id: admin } });
    expect(await onOther(ctx, shop.headers(token))).toBe(200);
    const disabled = await one.request({ method: 'PATCH', url: `/api/v1/staff/${id}`, headers: shop.headers(), payload: { status: 'disabled' } });
    expect(disabled.statusCode).toBe(200);
    expect(await onOther(ctx, shop.headers(token))).toBe(401);
  });

  it('refuses a suspended store on the other process at once', async () => {
    const { one } = ctx;
    const store = await one.createTenant();
    expect(await onOther(ctx, store.headers())).toBe(200);
    expect((await one.request({ method: 'POST', url: `/api/v1/tenants/${store.id}/suspend`, headers: platform(one) })).statusCode).toBe(200);
    const res = await ctx.other.http.inject({ method: 'GET', url: '/api/v1/notes-unfiltered', headers: store.headers() });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('TENANT_SUSPENDED');
    await one.request({ method: 'POST', url: `/api/v1/tenants/${store.id}/activate`, headers: platform(one) });
    expect(await onOther(ctx, store.headers())).toBe(200);
  });

  it('stops trusting its cache when its listener is lost, until it has resynced', async () => {
    const { one, shop, other } = ctx;
    const issued = (await one.request({ method: 'POST', url: `/api/v1/tenants/${shop.id}/api-keys`, headers: platform(one), payload: { name: 'Quiet', scope: 'admin' } })).json().data;
    expect(await onOther(ctx, shop.headers(issued.token))).toBe(200);
    const tokens = other.container.resolve(AccessTokens);
    const sync = tokens.cacheSync as PostgresCacheSync;
    const pid = sync.backendPid;
    expect(pid).toBeGreaterThan(0);
    // A revocation whose message never arrives (written straight to the table) while the listener dies.
    const admin = new pg.Client({ connectionString: one.databaseUrl });
    await admin.connect();
    try {
      await admin.query('update core_access_token set revoked_at = now() where id = $1', [issued.id]);
      // Cached: the other process does not know yet.
      expect(await onOther(ctx, shop.headers(issued.token))).toBe(200);
      await admin.query('select pg_terminate_backend($1)', [pid]);
    } finally {
      await admin.end();
    }
    const end = Date.now() + 10_000;
    while (sync.backendPid === pid && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    // Lost (reads go to the database) or back (the cache was emptied): either way, refused.
    expect(await onOther(ctx, shop.headers(issued.token))).toBe(401);
    while (!sync.listening && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    expect(sync.listening).toBe(true);
    expect(tokens.cacheTrusted).toBe(true);
    expect(sync.backendPid).not.toBe(pid);
  });
});

describe('token cache across processes (Redis pub/sub, REDIS_URL)', () => {
  const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const ctx = twoProcesses({ REDIS_URL: redisUrl, QHATU_QUEUE_PREFIX: `qhatu-test-${randomBytes(4).toString('hex')}` });

  it('refuses a revoked API key and a suspended store on the other process at once', async () => {
    const { one, shop } = ctx;
    const issued = (await one.request({ method: 'POST', url: `/api/v1/tenants/${shop.id}/api-keys`, headers: platform(one), payload: { name: 'Temp', scope: 'admin' } })).json().data;
    expect(await onOther(ctx, shop.headers(issued.token))).toBe(200);
    await one.request({ method: 'DELETE', url: `/api/v1/tenants/${shop.id}/api-keys/${issued.id}`, headers: platform(one) });
    expect(await onOther(ctx, shop.headers(issued.token))).toBe(401);
    expect(await onOther(ctx, shop.headers())).toBe(200);
    await one.request({ method: 'POST', url: `/api/v1/tenants/${shop.id}/suspend`, headers: platform(one) });
    expect(await onOther(ctx, shop.headers())).toBe(403);
  });
});
