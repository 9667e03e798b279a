import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import webhooks from '../src/index.js';
import { announcer } from './fixtures/announcer-plugin.js';

let t: TestApp;
let a: TestTenant;
let b: TestTenant;
beforeAll(async () => {
  t = await createTestApp({ plugins: [webhooks, announcer] });
  a = await t.createTenant();
  b = await t.createTenant();
});
afterAll(async () => t?.close());

const create = (payload: unknown, tenant = a) => t.request({ method: 'POST', url: '/api/v1/webhooks', headers: tenant.headers(), payload: payload as never });
const valid = { url: 'http://127.0.0.1:9/hooks', events: ['announcer.news.published'] };

describe('webhook subscriptions', () => {
  it('are created with the secret shown once, then read, listed, changed and deleted without it', async () => {
    const res = await create({ ...valid, secret: 'a-long-enough-secret', description: 'ERP' });
    expect(res.statusCode).toBe(201);
    const created = res.json().data;
    expect(created).toMatchObject({ url: valid.url, events: valid.events, description: 'ERP', enabled: true, secret: 'a-long-enough-secret' });

    const read = await t.request({ method: 'GET', url: `/api/v1/webhooks/${created.id}`, headers: a.headers() });
    expect(read.json().data).not.toHaveProperty('secret');
    expect(JSON.stringify(read.json())).not.toContain('a-long-enough-secret');
    const list = await t.request({ method: 'GET', url: '/api/v1/webhooks', headers: a.headers() });
    expect(list.json().data.map((s: { id: string }) => s.id)).toEqual([created.id]);
    expect(JSON.stringify(list.json())).not.toContain('a-long-enough-secret');

    const patched = await t.request({ method: 'PATCH', url: `/api/v1/webhooks/${created.id}`, headers: a.headers(), payload: { enabled: false, events: ['announcer.news.retracted'] } });
    expect(patched.json().data).toMatchObject({ enabled: false, events: ['announcer.news.retracted'], url: valid.url });

    expect((await t.request({ method: 'DELETE', url: `/api/v1/webhooks/${created.id}`, headers: a.headers() })).statusCode).toBe(204);
    expect((await t.request({ method: 'GET', url: `/api/v1/webhooks/${created.id}`, headers: a.headers() })).json().error.code).toBe('WEBHOOK_NOT_FOUND');
  });

  it('generate a whsec_ secret when none is given, and never store it in clear', async () => {
    const created = (await create(valid)).json().data;
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    const rows = await t.app.orm.em.getConnection().execute<{ secret_sealed: string }[]>('select secret_sealed from webhooks_subscription where id = ?', [created.id]);
    expect(rows[0].secret_sealed).not.toContain(created.secret.slice(6));
  });

  it('refuse an event type that does not exist, listing the valid ones', async () => {
    const res = await create({ ...valid, events: ['announcer.news.published', 'orders.order.teleported'] });
    expect(res.statusCode).toBe(400);
    const { error } = res.json();
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toContain('orders.order.teleported');
    expect(error.details[0].valid_types).toEqual(expect.arrayContaining(['announcer.news.published', 'announcer.news.retracted', 'tenants.tenant.suspended']));
  });

  it.each([
    [{ events: valid.events }, 'body.url'],
    [{ ...valid, url: 'ftp://example.com/x' }, 'body.url'],
    [{ ...valid, url: 'not a url' }, 'body.url'],
    [{ ...valid, events: [] }, 'body.events'],
    [{ ...valid, events: 'announcer.news.published' }, 'body.events'],
    [{ ...valid, secret: 'short' }, 'body.secret'],
    [{ ...valid, secret: 'whsec_not base64!!!!!!!!' }, 'body.secret'],
    [{ ...valid, colour: 'red' }, 'body'],
  ])('refuse %j (%s)', async (payload, path) => {
    const res = await create(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details.map((d: { path: string }) => d.path).join(' ')).toContain(path);
  });

  it('answer 400 for malformed ids and 404 for unknown ones', async () => {
    expect((await t.request({ method: 'GET', url: '/api/v1/webhooks/nope', headers: a.headers() })).statusCode).toBe(400);
    expect((await t.request({ method: 'GET', url: '/api/v1/webhooks/00000000-0000-4000-8000-000000000000/deliveries', headers: a.headers() })).statusCode).toBe(404);
    expect((await t.request({ method: 'POST', url: '/api/v1/webhooks/00000000-0000-4000-8000-000000000000/deliveries/x/retry', headers: a.headers() })).statusCode).toBe(400);
  });

  it('belong to their tenant: B cannot read, list, change, delete or see deliveries of A’s', async () => {
    const mine = (await create(valid)).json().data;
    const asB = (method: 'GET' | 'PATCH' | 'DELETE', url: string, payload?: unknown) => t.request({ method, url, headers: b.headers(), payload: payload as never });
    expect((await asB('GET', `/api/v1/webhooks/${mine.id}`)).statusCode).toBe(404);
    expect((await asB('PATCH', `/api/v1/webhooks/${mine.id}`, { enabled: false })).statusCode).toBe(404);
    expect((await asB('DELETE', `/api/v1/webhooks/${mine.id}`)).statusCode).toBe(404);
    expect((await asB('GET', `/api/v1/webhooks/${mine.id}/deliveries`)).statusCode).toBe(404);
    expect((await asB('GET', '/api/v1/webhooks')).json().data).toEqual([]);
  });

  it('need an admin key', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v1/webhooks', headers: a.headers(a.storefrontToken) });
    expect(res.statusCode).toBe(403);
  });
});

describe('receiver address policy', () => {
  it('refuses loopback and private receivers, and plain http, when the operator does not allow them', async () => {
    const strict = await createTestApp({ plugins: [webhooks, announcer], env: { QHATU_WEBHOOKS_ALLOW_PRIVATE: 'false', QHATU_ENV: 'production' } });
    try {
      const tenant = await strict.createTenant();
      const post = (url: string) => strict.request({ method: 'POST', url: '/api/v1/webhooks', headers: tenant.headers(), payload: { url, events: valid.events } });
      for (const url of ['https://127.0.0.1/x', 'https://10.1.2.3/x', 'https://[::1]/x', 'https://169.254.169.254/latest', 'https://localhost/x', 'https://192.168.0.10/x']) {
        const res = await post(url);
        expect(res.statusCode, url).toBe(400);
        expect(res.json().error.message, url).toMatch(/private|loopback|link-local/);
      }
      const plain = await post('http://93.184.215.14/x');
      expect(plain.statusCode).toBe(400);
      expect(plain.json().error.message).toBe('The receiver URL must use https');
      expect((await post('https://93.184.215.14/x')).statusCode).toBe(201);
    } finally {
      await strict.close();
    }
  });
});
