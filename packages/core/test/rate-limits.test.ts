import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, createApp, loadConfig, type QhatuApp } from '../src/index.js';
import { createTestApp, type TestApp, type TestTenant } from '../src/testing/index.js';

// Two API processes on one database, the second one behind a proxy the operator trusts.
let t: TestApp;
let second: QhatuApp;
let dataDir: string;
let shop: TestTenant;
const PASSWORD = 'correct horse battery';

beforeAll(async () => {
  t = await createTestApp({ plugins: [] });
  dataDir = await mkdtemp(path.join(tmpdir(), 'qhatu-rl-'));
  const config = loadConfig({
    DATABASE_URL: t.databaseUrl,
    DATABASE_POOL_MAX: '2',
    QHATU_PLATFORM_TOKEN: t.platformToken,
    QHATU_ENV: 'development',
    QHATU_DATA_DIR: dataDir,
    QHATU_TRUST_PROXY: '127.0.0.1',
    LOG_LEVEL: 'silent',
  });
  second = await createApp({ plugins: [], config, workers: false });
  shop = await t.createTenant();
  const roles = (await t.request({ method: 'GET', url: '/api/v1/roles', headers: shop.headers() })).json().data as { id: string; name: string }[];
  const created = await t.request({
    method: 'POST', url: '/api/v1/staff', headers: shop.headers(),
    payload: { email: 'owner@example.com', first_name: 'Ana', last_name: 'Quispe', role_id: roles[0]!.id, password: PASSWORD },
  });
  expect(created.statusCode).toBe(201);
});
afterAll(async () => {
  await second?.close();
  await t?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const post = (app: 'first' | 'second', url: string, forwardedFor: string, payload: Record<string, string>) =>
  (app === 'first' ? t.app.http : second.http).inject({
    method: 'POST', url, payload,
    headers: { 'x-tenant-id': shop.id, 'x-forwarded-for': forwardedFor },
  });

describe('the sign-in limit', () => {
  it('holds across two processes and rotating X-Forwarded-For: 429 with Retry-After, the right password refused too', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 14; i++) {
      const res = await post(i % 2 === 0 ? 'first' : 'second', '/api/v1/auth/staff/login', `198.51.100.${i + 1}`, { email: 'Owner@example.com', password: `guess-${i}` });
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([...Array(10).fill(401), ...Array(4).fill(429)]);
    const right = await post('second', '/api/v1/auth/staff/login', '203.0.113.9', { email: 'owner@example.com', password: PASSWORD });
    expect(right.statusCode).toBe(429);
    expect(right.json().error.code).toBe('RATE_LIMITED');
    expect(right.json().error.message).toMatch(/^Too many tries for this account; try again in \d+ s$/);
    const wait = Number(right.headers['retry-after']);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(60);
    // Another store's member of the same e-mail is another account.
    const other = await t.createTenant();
    const elsewhere = await t.app.http.inject({ method: 'POST', url: '/api/v1/auth/staff/login', headers: { 'x-tenant-id': other.id }, payload: { email: 'owner@example.com', password: 'x' } });
    expect(elsewhere.statusCode).toBe(401);
  });

  it('takes the client address from X-Forwarded-For only behind a trusted proxy, and only the hop that proxy saw', async () => {
    // No account in the body (a link token): the client address is what counts.
    const setPassword = (app: 'first' | 'second', forwardedFor: string) =>
      post(app, '/api/v1/auth/staff/password', forwardedFor, { token: 'qhl_'.padEnd(43, 'x'), password: 'a long enough password' });
    // Behind the trusted proxy, the address it appended counts; whatever the client wrote before it does not.
    const behind: number[] = [];
    for (let i = 0; i < 11; i++) behind.push((await setPassword('second', `10.9.9.${i}, 198.51.100.200`)).statusCode);
    expect(behind.slice(0, 10).every((s) => s !== 429)).toBe(true);
    expect(behind[10]).toBe(429);
    expect((await setPassword('second', '198.51.100.201')).statusCode).not.toBe(429);
    // Without a trusted proxy the header is ignored: every rotation is the same socket address.
    const direct: number[] = [];
    for (let i = 0; i < 11; i++) direct.push((await setPassword('first', `192.0.2.${i}`)).statusCode);
    expect(direct[10]).toBe(429);
  });
});

describe('the sign-in limit with REDIS_URL', () => {
  it('is counted in Redis, shared by two processes', async () => {
    const prefix = `qhrl${Date.now().toString(36)}`;
    const boot = async () =>
      createApp({
        plugins: [],
        workers: false,
        config: loadConfig({
          DATABASE_URL: t.databaseUrl, DATABASE_POOL_MAX: '2', QHATU_PLATFORM_TOKEN: t.platformToken, QHATU_ENV: 'development',
          QHATU_DATA_DIR: dataDir, LOG_LEVEL: 'silent', REDIS_URL: 'redis://127.0.0.1:6379', QHATU_QUEUE_PREFIX: prefix,
        }),
      });
    const apps = [await boot(), await boot()];
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) {
        const res = await apps[i % 2]!.http.inject({
          method: 'POST', url: '/api/v1/auth/staff/login',
          headers: { 'x-tenant-id': shop.id, 'x-forwarded-for': `198.51.100.${i + 1}` },
          payload: { email: 'redis-guess@example.com', password: `guess-${i}` },
        });
        statuses.push(res.statusCode);
        if (res.statusCode === 429) expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      }
      expect(statuses).toEqual([...Array(10).fill(401), 429, 429]);
      // Nothing of it went to PostgreSQL.
      const rows = await t.app.orm.em.getConnection().execute(`select 1 from core_rate_limit where key like '%redis-guess%'`);
      expect(rows).toHaveLength(0);
    } finally {
      for (const app of apps) await app.close();
    }
  });
});

describe('QHATU_TRUST_PROXY', () => {
  it('takes a hop count or a list of addresses and CIDR ranges, unset trusting none', () => {
    const base = { QHATU_DATA_DIR: '/tmp/x' };
    expect(loadConfig(base).trustProxy).toBe(false);
    expect(loadConfig({ ...base, QHATU_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ ...base, QHATU_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1, loopback' }).trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1', '::1', 'loopback']);
    expect(() => loadConfig({ ...base, QHATU_TRUST_PROXY: 'true' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, QHATU_TRUST_PROXY: '10.0.0.0/40' })).toThrow(/QHATU_TRUST_PROXY: not an address, CIDR range or hop count: 10.0.0.0\/40/);
  });
});
