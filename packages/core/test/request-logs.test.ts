import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, definePlugin, IdParams, loadConfig, type QhatuApp } from '../src/index.js';
import { createTestDatabase } from '../src/testing/index.js';

interface LogLine {
  msg: string;
  reqId?: string;
  route?: string;
  tenant_id?: string;
  res?: { statusCode: number };
}

const probe = definePlugin({
  name: 'log-probe',
  graphql: {
    typeDefs: 'extend type Query { logProbe: String! }',
    access: { Query: { logProbe: { auth: ['storefront'] } } },
    resolvers: { Query: { logProbe: () => 'logged' } },
  },
  routes: async (app: FastifyInstance) => {
    const r = app.withTypeProvider<ZodTypeProvider>();
    r.get('/log-probe/items/:id', { config: { auth: ['storefront'] }, schema: { params: IdParams } }, async (req) => {
      req.log.info({ item: req.params.id }, 'item looked up');
      return { id: req.params.id };
    });
    r.get('/log-probe/open', { config: { auth: 'public' } }, async () => ({ ok: true }));
  },
});

const lines: LogLine[] = [];
const raw: string[] = [];
const capture = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split('\n').filter(Boolean)) {
      raw.push(line);
      lines.push(JSON.parse(line));
    }
    done();
  },
});

let app: QhatuApp;
let drop: () => Promise<void>;
let dataDir: string;
const platformToken = `qhp_${randomBytes(24).toString('base64url')}`;
beforeAll(async () => {
  const database = await createTestDatabase([probe]);
  drop = database.drop;
  dataDir = await mkdtemp(path.join(tmpdir(), 'qhatu-logs-'));
  const config = loadConfig({ DATABASE_URL: database.url, DATABASE_POOL_MAX: '4', QHATU_PLATFORM_TOKEN: platformToken, QHATU_DATA_DIR: dataDir, QHATU_ENV: 'development', LOG_LEVEL: 'info' });
  app = await createApp({ plugins: [probe], config, logger: pino({ level: 'info' }, capture) });
});
afterAll(async () => {
  await app?.close();
  await drop?.();
  await rm(dataDir, { recursive: true, force: true });
});

const ofRequest = (id: string) => lines.filter((line) => line.reqId === id);

describe('request log lines', () => {
  it('name the route pattern and the store, from the first line to the last', async () => {
    const platform = { authorization: `Bearer ${platformToken}` };
    const tenant = (await app.http.inject({ method: 'POST', url: '/api/v1/tenants', headers: platform, payload: { name: 'Logged Shop' } })).json().data;
    const key = (await app.http.inject({ method: 'POST', url: `/api/v1/tenants/${tenant.id}/api-keys`, headers: platform, payload: { name: 'Web', scope: 'storefront' } })).json().data;
    const item = '0b7d1c52-9f2e-4a61-8d3b-5e6f7a8b9c0d';

    const res = await app.http.inject({ method: 'GET', url: `/api/v1/log-probe/items/${item}`, headers: { authorization: `Bearer ${key.token}`, 'x-tenant-id': tenant.id, 'x-request-id': 'probe-1' } });
    expect(res.statusCode).toBe(200);
    const logged = ofRequest('probe-1');
    expect(logged.map((line) => line.msg)).toEqual(['incoming request', 'item looked up', 'request completed']);
    expect(logged.every((line) => line.route === '/api/v1/log-probe/items/:id')).toBe(true);
    // The store is known once auth has run: every line after the first names it.
    expect(logged.slice(1).map((line) => line.tenant_id)).toEqual([tenant.id, tenant.id]);
    expect(logged.at(-1)!.res?.statusCode).toBe(200);
  });

  it('name the store of a GraphQL request too', async () => {
    const platform = { authorization: `Bearer ${platformToken}` };
    const tenant = (await app.http.inject({ method: 'POST', url: '/api/v1/tenants', headers: platform, payload: { name: 'Graph Shop' } })).json().data;
    const key = (await app.http.inject({ method: 'POST', url: `/api/v1/tenants/${tenant.id}/api-keys`, headers: platform, payload: { name: 'Web', scope: 'storefront' } })).json().data;
    const res = await app.http.inject({ method: 'POST', url: '/graphql', headers: { authorization: `Bearer ${key.token}`, 'x-tenant-id': tenant.id, 'x-request-id': 'probe-gql' }, payload: { query: '{ logProbe }' } });
    expect(res.json()).toEqual({ data: { logProbe: 'logged' } });
    const completed = ofRequest('probe-gql').find((line) => line.msg === 'request completed')!;
    expect(completed).toMatchObject({ route: '/graphql', tenant_id: tenant.id });
    // Each line names its store once, however many hooks saw it.
    expect(raw.filter((line) => line.includes('"tenant_id"')).every((line) => line.split('"tenant_id"').length === 2)).toBe(true);
  });

  it('name the route of a refused request, and no store when none was proven', async () => {
    await app.http.inject({ method: 'GET', url: '/api/v1/log-probe/items/0b7d1c52-9f2e-4a61-8d3b-5e6f7a8b9c0d', headers: { 'x-request-id': 'probe-2' } });
    const completed = ofRequest('probe-2').find((line) => line.msg === 'request completed')!;
    expect(completed).toMatchObject({ route: '/api/v1/log-probe/items/:id', res: { statusCode: 400 } });
    expect(completed.tenant_id).toBeUndefined();

    await app.http.inject({ method: 'GET', url: '/api/v1/log-probe/open', headers: { 'x-request-id': 'probe-3' } });
    expect(ofRequest('probe-3').map((line) => line.route)).toEqual(['/api/v1/log-probe/open', '/api/v1/log-probe/open']);
  });
});
