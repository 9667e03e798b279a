import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../src/testing/index.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ plugins: [] });
});
afterAll(async () => t?.close());

const platform = () => ({ authorization: `Bearer ${t.platformToken}` });
const post = (url: string, payload?: unknown, headers = platform()) => t.request({ method: 'POST', url, headers, payload: payload as never });

describe('POST /api/v1/tenants', () => {
  it('creates a tenant with defaults and a slug made from the name', async () => {
    const res = await post('/api/v1/tenants', { name: 'Café Andino' });
    expect(res.statusCode).toBe(201);
    const { data } = res.json();
    expect(data).toMatchObject({ name: 'Café Andino', slug: 'cafe-andino', status: 'active', currency: 'USD', default_locale: 'en' });
    expect(data.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(new Date(data.created_at).toISOString()).toBe(data.created_at);
  });

  it('numbers a generated slug that is taken, and refuses a taken explicit slug', async () => {
    const again = await post('/api/v1/tenants', { name: 'Cafe Andino' });
    expect(again.json().data.slug).toBe('cafe-andino-2');
    const taken = await post('/api/v1/tenants', { name: 'Other', slug: 'cafe-andino' });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().error.code).toBe('CONFLICT');
  });

  it('accepts currency, locale and trial status', async () => {
    const res = await post('/api/v1/tenants', { name: 'Lima Shop', slug: 'lima-shop', currency: 'PEN', default_locale: 'es-PE', status: 'trial' });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ slug: 'lima-shop', currency: 'PEN', default_locale: 'es-PE', status: 'trial' });
  });

  it.each([
    [{}, 'body.name'],
    [{ name: 42 }, 'body.name'],
    [{ name: '' }, 'body.name'],
    [{ name: 'X', currency: 'usd' }, 'body.currency'],
    [{ name: 'X', slug: 'Bad Slug' }, 'body.slug'],
    [{ name: 'X', status: 'suspended' }, 'body.status'],
    [{ name: 'X', extra: true }, 'body'],
  ])('refuses %j with VALIDATION_ERROR naming %s', async (payload, path) => {
    const res = await post('/api/v1/tenants', payload);
    expect(res.statusCode).toBe(400);
    const { error } = res.json();
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.details.map((d: { path: string }) => d.path).join(' ')).toContain(path);
  });

  it('refuses a body that is not JSON', async () => {
    const res = await t.request({ method: 'POST', url: '/api/v1/tenants', headers: { ...platform(), 'content-type': 'application/json' }, payload: '{"name":' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
  });
});

describe('platform authentication', () => {
  it('needs the platform token', async () => {
    const none = await t.request({ method: 'GET', url: '/api/v1/tenants' });
    expect(none.statusCode).toBe(401);
    expect(none.json().error.code).toBe('UNAUTHENTICATED');
    const wrong = await t.request({ method: 'GET', url: '/api/v1/tenants', headers: { authorization: 'Bearer nope' } });
    expect(wrong.statusCode).toBe(401);
    const malformed = await t.request({ method: 'GET', url: '/api/v1/tenants', headers: { authorization: 'Basic abc' } });
    expect(malformed.statusCode).toBe(401);
  });

  it('refuses a tenant admin key with 403', async () => {
    const tenant = await t.createTenant();
    const res = await t.request({ method: 'GET', url: '/api/v1/tenants', headers: { authorization: `Bearer ${tenant.adminToken}` } });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('FORBIDDEN');
  });
});

describe('GET /api/v1/tenants', () => {
  it('pages with an opaque cursor that is stable under inserts', async () => {
    for (let i = 0; i < 5; i++) await post('/api/v1/tenants', { name: `Paged ${i}` });
    const first = await t.request({ method: 'GET', url: '/api/v1/tenants?limit=2&sort=name&q=paged', headers: platform() });
    expect(first.statusCode).toBe(200);
    const body = first.json();
    expect(body.data.map((x: { name: string }) => x.name)).toEqual(['Paged 0', 'Paged 1']);
    expect(body.meta.pagination).toMatchObject({ has_next: true, limit: 2 });
    await post('/api/v1/tenants', { name: 'Paged 00' }); // sorts before the cursor: must not shift the next page
    const second = await t.request({ method: 'GET', url: `/api/v1/tenants?limit=2&sort=name&q=paged&cursor=${body.meta.pagination.cursor}`, headers: platform() });
    expect(second.json().data.map((x: { name: string }) => x.name)).toEqual(['Paged 2', 'Paged 3']);
    const third = await t.request({ method: 'GET', url: `/api/v1/tenants?limit=2&sort=name&q=paged&cursor=${second.json().meta.pagination.cursor}`, headers: platform() });
    expect(third.json().data.map((x: { name: string }) => x.name)).toEqual(['Paged 4']);
    expect(third.json().meta.pagination).toMatchObject({ has_next: false, cursor: null });
  });

  it('filters by status and clamps the limit at 100', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v1/tenants?filter[status]=trial&limit=500', headers: platform() });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.every((x: { status: string }) => x.status === 'trial')).toBe(true);
    expect(res.json().data.length).toBeGreaterThan(0);
    expect(res.json().meta.pagination.limit).toBe(100);
  });

  it.each([
    ['filter[colour]=red', 'unknown filter'],
    ['filter[status]=gone', 'bad filter value'],
    ['limit=0', 'limit under 1'],
    ['limit=abc', 'limit not a number'],
    ['sort=price', 'unknown sort'],
    ['cursor=not-a-cursor', 'forged cursor'],
  ])('answers 400 for %s (%s)', async (qs) => {
    const res = await t.request({ method: 'GET', url: `/api/v1/tenants?${qs}`, headers: platform() });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
  });

  it('refuses a cursor made for another sort', async () => {
    const first = await t.request({ method: 'GET', url: '/api/v1/tenants?limit=1&sort=name', headers: platform() });
    const res = await t.request({ method: 'GET', url: `/api/v1/tenants?limit=1&sort=slug&cursor=${first.json().meta.pagination.cursor}`, headers: platform() });
    expect(res.statusCode).toBe(400);
  });
});

describe('one tenant', () => {
  it('reads, replaces, suspends and activates', async () => {
    const created = (await post('/api/v1/tenants', { name: 'Cusco Crafts' })).json().data;
    const read = await t.request({ method: 'GET', url: `/api/v1/tenants/${created.id}`, headers: platform() });
    expect(read.json().data).toEqual(created);

    const put = await t.request({ method: 'PUT', url: `/api/v1/tenants/${created.id}`, headers: platform(), payload: { name: 'Cusco Crafts SAC', currency: 'PEN' } });
    expect(put.statusCode).toBe(200);
    expect(put.json().data).toMatchObject({ name: 'Cusco Crafts SAC', currency: 'PEN', slug: 'cusco-crafts' });

    const suspended = await post(`/api/v1/tenants/${created.id}/suspend`);
    expect(suspended.statusCode).toBe(200);
    expect(suspended.json().data.status).toBe('suspended');
    const twice = await post(`/api/v1/tenants/${created.id}/suspend`);
    expect(twice.statusCode).toBe(409);
    expect(twice.json().error.code).toBe('INVALID_STATE_TRANSITION');

    const active = await post(`/api/v1/tenants/${created.id}/activate`);
    expect(active.json().data.status).toBe('active');
    expect((await post(`/api/v1/tenants/${created.id}/activate`)).statusCode).toBe(409);
  });

  it('answers 404 for an unknown id and 400 for a malformed one', async () => {
    const missing = await t.request({ method: 'GET', url: '/api/v1/tenants/00000000-0000-4000-8000-000000000000', headers: platform() });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('TENANT_NOT_FOUND');
    for (const url of ['/api/v1/tenants/123', '/api/v1/tenants/123/suspend']) {
      const res = await t.request({ method: url.endsWith('suspend') ? 'POST' : 'GET', url, headers: platform() });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.details[0].path).toBe('params.id');
    }
    const put = await t.request({ method: 'PUT', url: '/api/v1/tenants/00000000-0000-4000-8000-000000000000', headers: platform(), payload: { name: 'x' } });
    expect(put.statusCode).toBe(404);
  });
});

describe('POST /api/v1/tenants/:id/api-keys', () => {
  it('issues a key whose token is shown once and works on tenant routes', async () => {
    const tenant = (await post('/api/v1/tenants', { name: 'Keys' })).json().data;
    const res = await post(`/api/v1/tenants/${tenant.id}/api-keys`, { name: 'Storefront web', scope: 'storefront' });
    expect(res.statusCode).toBe(201);
    const key = res.json().data;
    expect(key).toMatchObject({ name: 'Storefront web', scope: 'storefront', expires_at: null });
    expect(key.token).toMatch(/^qhs_/);
    const gql = await t.request({ method: 'POST', url: '/graphql', headers: { authorization: `Bearer ${key.token}`, 'x-tenant-id': tenant.id }, payload: { query: '{ apiVersion }' } });
    expect(gql.json()).toEqual({ data: { apiVersion: 'v1' } });
  });

  it('validates scope and expiry, and 404s an unknown tenant', async () => {
    const tenant = (await post('/api/v1/tenants', { name: 'Keys 2' })).json().data;
    expect((await post(`/api/v1/tenants/${tenant.id}/api-keys`, { name: 'x', scope: 'root' })).statusCode).toBe(400);
    expect((await post(`/api/v1/tenants/${tenant.id}/api-keys`, { name: 'x', scope: 'admin', expires_at: 'tomorrow' })).statusCode).toBe(400);
    expect((await post(`/api/v1/tenants/${tenant.id}/api-keys`, { scope: 'admin' })).statusCode).toBe(400);
    const missing = await post('/api/v1/tenants/00000000-0000-4000-8000-000000000000/api-keys', { name: 'x', scope: 'admin' });
    expect(missing.statusCode).toBe(404);
  });

  it('refuses to issue a key already expired (422 API_KEY_EXPIRES_IN_PAST), and a key once it expired', async () => {
    const tenant = (await post('/api/v1/tenants', { name: 'Keys 3' })).json().data;
    const late = await post(`/api/v1/tenants/${tenant.id}/api-keys`, { name: 'late', scope: 'admin', expires_at: '2020-01-01T00:00:00Z' });
    expect(late.statusCode).toBe(422);
    expect(late.json()).toEqual({
      error: { code: 'API_KEY_EXPIRES_IN_PAST', message: 'expires_at (2020-01-01T00:00:00.000Z) must be in the future', details: [{ path: 'body.expires_at', message: 'is not in the future' }] },
    });
    expect((await t.request({ method: 'GET', url: `/api/v1/tenants/${tenant.id}/api-keys`, headers: platform() })).json().data).toEqual([]);
    const key = (await post(`/api/v1/tenants/${tenant.id}/api-keys`, { name: 'old', scope: 'admin', expires_at: '2099-01-01T00:00:00Z' })).json().data;
    await t.app.orm.em.getConnection().execute(`update core_access_token set expires_at = '2020-01-01T00:00:00Z' where id = ?`, [key.id]);
    const res = await t.request({ method: 'POST', url: '/graphql', headers: { authorization: `Bearer ${key.token}`, 'x-tenant-id': tenant.id }, payload: { query: '{ apiVersion }' } });
    expect(res.json().errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});

describe('API key management', () => {
  it('lists keys without their tokens and revokes one at once', async () => {
    const tenant = (await post('/api/v1/tenants', { name: 'Revoker' })).json().data;
    const issued = (await post(`/api/v1/tenants/${tenant.id}/api-keys`, { name: 'Leaky', scope: 'admin' })).json().data;
    await post(`/api/v1/tenants/${tenant.id}/api-keys`, { name: 'Web', scope: 'storefront' });
    const gql = () => t.request({ method: 'POST', url: '/graphql', headers: { authorization: `Bearer ${issued.token}`, 'x-tenant-id': tenant.id }, payload: { query: '{ apiVersion }' } });
    expect((await gql()).json().data.apiVersion).toBe('v1'); // now cached

    const list = await t.request({ method: 'GET', url: `/api/v1/tenants/${tenant.id}/api-keys`, headers: platform() });
    expect(list.statusCode).toBe(200);
    expect(list.json().data.map((k: { name: string }) => k.name)).toEqual(['Web', 'Leaky']);
    expect(JSON.stringify(list.json())).not.toContain(issued.token);
    expect(list.json().data[1]).toMatchObject({ id: issued.id, scope: 'admin', token_prefix: issued.token.slice(0, 8), revoked_at: null });

    const revoked = await t.request({ method: 'DELETE', url: `/api/v1/tenants/${tenant.id}/api-keys/${issued.id}`, headers: platform() });
    expect(revoked.statusCode).toBe(204);
    expect((await gql()).json().errors[0].extensions.code).toBe('UNAUTHENTICATED');
    const after = (await t.request({ method: 'GET', url: `/api/v1/tenants/${tenant.id}/api-keys`, headers: platform() })).json().data;
    expect(after[1].revoked_at).not.toBeNull();
  });

  it('answers 404 for keys of another tenant and unknown ids', async () => {
    const one = (await post('/api/v1/tenants', { name: 'One' })).json().data;
    const two = (await post('/api/v1/tenants', { name: 'Two' })).json().data;
    const key = (await post(`/api/v1/tenants/${one.id}/api-keys`, { name: 'k', scope: 'admin' })).json().data;
    const cross = await t.request({ method: 'DELETE', url: `/api/v1/tenants/${two.id}/api-keys/${key.id}`, headers: platform() });
    expect(cross.statusCode).toBe(404);
    expect(cross.json().error.code).toBe('API_KEY_NOT_FOUND');
    expect((await t.request({ method: 'GET', url: '/api/v1/tenants/00000000-0000-4000-8000-000000000000/api-keys', headers: platform() })).statusCode).toBe(404);
    expect((await t.request({ method: 'DELETE', url: `/api/v1/tenants/${one.id}/api-keys/nope`, headers: platform() })).statusCode).toBe(400);
  });
});

describe('housekeeping', () => {
  it('purges tokens revoked or expired a week ago, stale Idempotency-Key answers and ended sign-in counters, keeping the rest', async () => {
    const { Housekeeping } = await import('../src/index.js');
    const tenant = (await post('/api/v1/tenants', { name: 'Tidy' })).json().data;
    const live = (await post(`/api/v1/tenants/${tenant.id}/api-keys`, { name: 'live', scope: 'admin' })).json().data;
    const old = (await post(`/api/v1/tenants/${tenant.id}/api-keys`, { name: 'old', scope: 'admin' })).json().data;
    const recent = (await post(`/api/v1/tenants/${tenant.id}/api-keys`, { name: 'recent', scope: 'admin', expires_at: '2099-01-01T00:00:00Z' })).json().data;
    const sql = t.app.orm.em.getConnection();
    await sql.execute(`update core_access_token set revoked_at = now() - interval '8 days' where id = ?`, [old.id]);
    await sql.execute(`update core_access_token set expires_at = now() - interval '2 days' where id = ?`, [recent.id]);
    await sql.execute(`insert into core_idempotency_key (tenant_id, key, request_hash, created_at) values ('00000000-0000-0000-0000-000000000000', 'stale', 'x', now() - interval '25 hours'), ('00000000-0000-0000-0000-000000000000', 'fresh', 'y', now())`);
    await sql.execute(`insert into core_rate_limit (tenant_id, key, hits, resets_at) values (?, 'ended', 3, now() - interval '1 second'), (?, 'running', 3, now() + interval '1 minute')`, [tenant.id, tenant.id]);
    const purged = await t.app.container.resolve(Housekeeping).run();
    expect(purged.rateLimits).toBeGreaterThanOrEqual(1);
    expect((await sql.execute<{ key: string }[]>('select key from core_rate_limit where tenant_id = ?', [tenant.id])).map((r) => r.key)).toEqual(['running']);
    expect(purged.tokens).toBeGreaterThanOrEqual(1);
    const ids = (await sql.execute<{ id: string }[]>('select id from core_access_token where tenant_id = ?', [tenant.id])).map((r) => r.id);
    expect(ids.sort()).toEqual([live.id, recent.id].sort());
    const keys = (await sql.execute<{ key: string }[]>(`select key from core_idempotency_key where key in ('stale', 'fresh')`)).map((r) => r.key);
    expect(keys).toEqual(['fresh']);
  });
});
