import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, definePlugin, loadConfig, orderPlugins, PluginLoadError } from '../src/index.js';
import { createTestApp, type TestApp, type TestTenant } from '../src/testing/index.js';
import { notesPlugin } from './fixtures/notes-plugin.js';

let t: TestApp;
let a: TestTenant;
beforeAll(async () => {
  t = await createTestApp({ plugins: [notesPlugin] });
  a = await t.createTenant();
});
afterAll(async () => t?.close());

describe('health', () => {
  it('answers live and ready (database and queue checked)', async () => {
    expect((await t.request({ method: 'GET', url: '/health/live' })).json()).toEqual({ status: 'ok' });
    const ready = await t.request({ method: 'GET', url: '/health/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ok', checks: { database: 'ok', queue: 'ok' } });
  });
});

describe('errors', () => {
  it('answer an unknown route with the contract body', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v1/nowhere' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'No route GET /api/v1/nowhere', details: [] } });
  });

  it('answer an oversized body with 413 and a wrong content type with 415', async () => {
    const big = await t.request({ method: 'POST', url: '/api/v1/notes', headers: a.headers(), payload: { body: 'x'.repeat(1_100_000) } });
    expect(big.statusCode).toBe(413);
    expect(big.json().error.code).toBe('PAYLOAD_TOO_LARGE');
    const xml = await t.request({ method: 'POST', url: '/api/v1/notes', headers: { ...a.headers(), 'content-type': 'application/xml' }, payload: '<body/>' });
    expect(xml.statusCode).toBe(415);
    expect(xml.json().error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('refuse a NUL character (which PostgreSQL cannot store) in the body, the query or the path, naming where', async () => {
    const body = await t.request({ method: 'POST', url: '/api/v1/notes', headers: a.headers(), payload: { body: 'before\u0000after' } });
    expect(body.statusCode).toBe(400);
    expect(body.json()).toEqual({
      error: { code: 'VALIDATION_ERROR', message: 'body.body: must not contain the NUL character (U+0000)', details: [{ path: 'body.body', message: 'must not contain the NUL character (U+0000)' }] },
    });
    const query = await t.request({ method: 'GET', url: '/api/v1/notes?filter[status]=open%00', headers: a.headers() });
    expect(query.json().error.details).toEqual([{ path: 'querystring.filter[status]', message: 'must not contain the NUL character (U+0000)' }]);
    const path = await t.request({ method: 'POST', url: '/api/v1/notes/%00/close', headers: a.headers() });
    expect(path.json().error.details).toEqual([{ path: 'params.id', message: 'must not contain the NUL character (U+0000)' }]);
    const list = (await t.request({ method: 'GET', url: '/api/v1/notes', headers: a.headers() })).json().data;
    expect(list.some((n: { body: string }) => n.body.startsWith('before'))).toBe(false);
  });

  it('answer a URL the router cannot read with the contract body', async () => {
    const long = await t.request({ method: 'POST', url: `/api/v1/notes/${'x'.repeat(150)}/close`, headers: a.headers() });
    expect(long.statusCode).toBe(400);
    expect(long.json()).toEqual({ error: { code: 'VALIDATION_ERROR', message: 'A path parameter is longer than 100 characters', details: [{ path: 'params', message: 'too long' }] } });
    expect(long.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const broken = await t.request({ method: 'POST', url: '/api/v1/notes/%E0%A4%A/close', headers: a.headers() });
    expect(broken.statusCode).toBe(400);
    expect(broken.json().error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'The URL is not valid' });
  });

  it('take a JSON content type with an empty body as no body', async () => {
    const created = await t.request({ method: 'POST', url: '/api/v1/notes', headers: a.headers(), payload: { body: 'to close' } });
    const headers = { ...a.headers(), 'content-type': 'application/json' };
    const close = await t.request({ method: 'POST', url: `/api/v1/notes/${created.json().data.id}/close`, headers, payload: '' });
    expect(close.statusCode).toBe(200);
    expect(close.json().data.status).toBe('closed');
    const blank = await t.request({ method: 'POST', url: '/api/v1/notes/echo', headers, payload: ' \n' });
    expect(blank.statusCode).toBeLessThan(300);
    // A route that needs a body still says so, with the contract's body.
    const missing = await t.request({ method: 'POST', url: '/api/v1/notes', headers, payload: '' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toEqual({ code: 'VALIDATION_ERROR', message: 'This operation needs a JSON body', details: [{ path: 'body', message: 'is required' }] });
    const broken = await t.request({ method: 'POST', url: '/api/v1/notes', headers, payload: '{"body":' });
    expect(broken.json().error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'The body is not valid JSON' });
    const poisoned = await t.request({ method: 'POST', url: '/api/v1/notes', headers, payload: '{"body":"x","__proto__":{"admin":true}}' });
    expect(poisoned.statusCode).toBe(400);
  });

  it('answer a 20 KB URL (431) and a request that is not HTTP (400) with the contract body, then close the connection', async () => {
    await t.app.http.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.http.server.address() as AddressInfo;
    const exchange = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.write(request));
        let answer = '';
        socket.setEncoding('utf8').on('data', (chunk) => (answer += chunk));
        socket.on('end', () => resolve(answer)).on('error', reject);
      });
    const long = await exchange(`GET /api/v1/notes?q=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    expect(long).toMatch(/^HTTP\/1\.1 431 /);
    expect(long).toMatch(/\r\nConnection: close\r\n/i);
    expect(JSON.parse(long.split('\r\n\r\n')[1])).toEqual({
      error: { code: 'REQUEST_HEADERS_TOO_LARGE', message: 'The URL and headers together exceed 16 KB', details: [] },
    });
    const garbage = await exchange('NOT HTTP AT ALL\r\n\r\n');
    expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(garbage.split('\r\n\r\n')[1]).error.code).toBe('BAD_REQUEST');
    // The server still serves the next connection.
    expect(await exchange('GET /health/live HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('refuse JSON nested deeper than 64 levels before anything reads it', async () => {
    const deep = (n: number) => '{"body":"x","extra":' + '['.repeat(n) + ']'.repeat(n) + '}';
    const res = await t.request({ method: 'POST', url: '/api/v1/notes', headers: { ...a.headers(), 'content-type': 'application/json' }, payload: deep(10_000) });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toEqual({ code: 'VALIDATION_ERROR', message: 'The JSON body is nested deeper than 64 levels', details: [{ path: 'body', message: 'is nested too deeply' }] });
    // Brackets inside strings are text, not nesting.
    const text = await t.request({ method: 'POST', url: '/api/v1/notes', headers: a.headers(), payload: { body: '['.repeat(100) + '"\\' } });
    expect(text.statusCode).toBe(201);
  });

  it('name the keys an object allows when it is sent one it does not know', async () => {
    const res = await t.request({ method: 'POST', url: '/api/v1/notes', headers: a.headers(), payload: { body: 'x', colour: 'red' } });
    expect(res.json().error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'body: Unrecognized key "colour"; allowed keys: body, due_at' });
  });

  it('read as English', async () => {
    const res = await t.request({ method: 'POST', url: '/api/v1/notes', headers: a.headers(a.storefrontToken), payload: { body: 'x' } });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.message).toBe('This operation needs an admin token; this one is a storefront token');
  });

  it('carry a request id, given or generated', async () => {
    const given = await t.request({ method: 'GET', url: '/health/live', headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers['x-request-id']).toBe('abc-123');
    const made = await t.request({ method: 'GET', url: '/health/live' });
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('Idempotency-Key', () => {
  it('replays the first answer for the same key and body, without doing the work twice', async () => {
    const headers = { ...a.headers(), 'idempotency-key': 'note-1' };
    const first = await t.request({ method: 'POST', url: '/api/v1/notes', headers, payload: { body: 'once' } });
    expect(first.statusCode).toBe(201);
    const second = await t.request({ method: 'POST', url: '/api/v1/notes', headers, payload: { body: 'once' } });
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json()).toEqual(first.json());
    const list = (await t.request({ method: 'GET', url: '/api/v1/notes', headers: a.headers() })).json().data;
    expect(list.filter((n: { body: string }) => n.body === 'once')).toHaveLength(1);
    // The stored answer is sealed: a first answer may carry a token shown only once.
    const [stored] = await t.app.orm.em.getConnection().execute<{ response_body: string }[]>(
      `select response_body from core_idempotency_key where key = 'note-1'`);
    expect(stored.response_body).not.toContain('once');
  });

  it('refuses the same key with another body (409 IDEMPOTENCY_KEY_REUSED)', async () => {
    const headers = { ...a.headers(), 'idempotency-key': 'note-2' };
    await t.request({ method: 'POST', url: '/api/v1/notes', headers, payload: { body: 'first' } });
    const res = await t.request({ method: 'POST', url: '/api/v1/notes', headers, payload: { body: 'second' } });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('keeps keys apart per caller: another caller of the store sending the same key and body gets its own answer', async () => {
    const made = await t.request({ method: 'POST', url: `/api/v1/tenants/${a.id}/api-keys`, headers: { authorization: `Bearer ${t.platformToken}` }, payload: { name: 'second admin', scope: 'admin' } });
    const other = made.json().data.token as string;
    const send = (token: string, body: string) =>
      t.request({ method: 'POST', url: '/api/v1/notes', headers: { ...a.headers(token), 'idempotency-key': 'shared-key' }, payload: { body } });
    const first = await send(a.adminToken, 'same body');
    const second = await send(other, 'same body');
    expect([first.statusCode, second.statusCode]).toEqual([201, 201]);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(second.json().data.id).not.toBe(first.json().data.id);
    // Each caller repeating gets its own first answer; its own key with another body is refused.
    expect((await send(a.adminToken, 'same body')).json()).toEqual(first.json());
    const again = await send(other, 'same body');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(second.json());
    const reused = await send(other, 'another body');
    expect(reused.statusCode).toBe(409);
    expect(reused.json().error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const list = (await t.request({ method: 'GET', url: '/api/v1/notes', headers: a.headers() })).json().data;
    expect(list.filter((n: { body: string }) => n.body === 'same body')).toHaveLength(2);
  });

  it('keeps keys apart per tenant and refuses a malformed key', async () => {
    const b = await t.createTenant();
    const res = await t.request({ method: 'POST', url: '/api/v1/notes', headers: { ...b.headers(), 'idempotency-key': 'note-1' }, payload: { body: 'other tenant' } });
    expect(res.statusCode).toBe(201);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    const bad = await t.request({ method: 'POST', url: '/api/v1/notes', headers: { ...a.headers(), 'idempotency-key': 'x'.repeat(300) }, payload: { body: 'y' } });
    expect(bad.statusCode).toBe(400);
  });
});

describe('OpenAPI', () => {
  it('documents every API route at /openapi.json (3.1) and serves /docs', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.openapi).toBe('3.1.0');
    for (const path of ['/api/v1/tenants', '/api/v1/tenants/{id}', '/api/v1/tenants/{id}/suspend', '/api/v1/tenants/{id}/activate', '/api/v1/tenants/{id}/api-keys', '/api/v1/notes']) {
      expect(doc.paths, path).toHaveProperty([path]);
    }
    expect(Object.keys(doc.paths['/graphql']).sort()).toEqual(['get', 'post']);
    expect(doc.paths['/api/v1/tenants'].post.requestBody.content['application/json'].schema).toBeDefined();
    const docs = await t.request({ method: 'GET', url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.body).toContain('swagger');
  });
});

describe('plugins', () => {
  const p = (name: string, dependsOn: string[] = []) => definePlugin({ name, dependsOn });
  it('are ordered after what they depend on', () => {
    expect(orderPlugins([p('orders', ['catalog']), p('catalog', ['media']), p('media')]).map((x) => x.name)).toEqual(['media', 'catalog', 'orders']);
  });
  it('refuse a missing dependency, a cycle, a repeated or a bad name', () => {
    expect(() => orderPlugins([p('orders', ['catalog'])])).toThrow(new PluginLoadError('Plugin "orders" depends on "catalog", which is not installed'));
    expect(() => orderPlugins([p('a', ['b']), p('b', ['c']), p('c', ['a'])])).toThrow('Plugin dependency cycle: a -> b -> c -> a');
    expect(() => orderPlugins([p('a'), p('a')])).toThrow(/listed twice/);
    expect(() => definePlugin({ name: 'Bad Name' })).toThrow(/lower-case/);
  });
});

describe('configuration', () => {
  it('has defaults for the embedded mode', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ port: 3000, host: '127.0.0.1', embedded: true, env: 'development', dataDir: './.qhatu', allowPrivateWebhooks: true, publicUrl: 'http://127.0.0.1:3000' });
  });
  it('reports every invalid variable at once', () => {
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'not a url', QHATU_ENV: 'staging' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems.map((p) => p.split(':')[0]).sort()).toEqual(['DATABASE_URL', 'PORT', 'QHATU_ENV']);
    }
  });
  it('needs a platform token in production', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://x@localhost/db' })).toThrow(/QHATU_PLATFORM_TOKEN/);
    expect(loadConfig({ DATABASE_URL: 'postgres://x@localhost/db', QHATU_PLATFORM_TOKEN: 'x'.repeat(32) }).allowPrivateWebhooks).toBe(false);
  });
  it('prepares statements on PostgreSQL, not on the embedded database (one shared session), unless told', () => {
    const server = { DATABASE_URL: 'postgres://x@localhost/db', QHATU_PLATFORM_TOKEN: 'x'.repeat(32) };
    expect(loadConfig(server).databasePrepare).toBe(true);
    expect(loadConfig({ ...server, DATABASE_PREPARE: 'off' }).databasePrepare).toBe(false);
    expect(loadConfig({}).databasePrepare).toBe(false);
    expect(() => loadConfig({ ...server, DATABASE_PREPARE: 'sometimes' })).toThrow(/DATABASE_PREPARE/);
  });
});

describe('the container', () => {
  it('builds every core service with all its dependencies (explicit @inject tokens)', async () => {
    const { AccessTokens, Database, Tenants } = await import('../src/index.js');
    const db = t.app.container.resolve(Database) as unknown as Record<string, unknown>;
    expect([db.orm, db.bus, db.clock].every(Boolean)).toBe(true);
    const tokens = t.app.container.resolve(AccessTokens) as unknown as Record<string, unknown>;
    expect([tokens.db, tokens.clock].every(Boolean)).toBe(true);
    const tenants = t.app.container.resolve(Tenants) as unknown as Record<string, unknown>;
    expect([tenants.db, tenants.tokens].every(Boolean)).toBe(true);
    expect(t.app.container.resolve(Database)).toBe(db); // singletons within one app
  });
});
