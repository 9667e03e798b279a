import { connect } from 'node:net';
import { FrontDoor, ReadCache, REMEMBERED_KEY_CHARS_MAX } from '@qhatu/core';
import { captureLogs, createTestApp, type LogLine, type TestApp, type TestTenant } from '@qhatu/core/testing';
import media from '@qhatu/plugin-media';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import catalog from '../src/index.js';
import { caller, createProduct } from './helpers.js';

/**
 * Storefront reads answered at the front door (decision 0094), over a real socket: the same
 * answer as the framework's, and never one the framework would no longer give.
 */
const logs = captureLogs();
let t: TestApp;
let tenant: TestTenant;
let base: string;
let door: FrontDoor;

beforeAll(async () => {
  t = await createTestApp({ plugins: [media, catalog], logger: logs.logger });
  tenant = await t.createTenant();
  base = await t.app.http.listen({ port: 0, host: '127.0.0.1' });
  door = t.app.container.resolve(FrontDoor);
});
afterAll(() => t.close());

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Whether the front door gave it (its count of answers moved). */
  atDoor: boolean;
}

async function get(url: string, headers: Record<string, string> = {}, token = tenant.storefrontToken): Promise<Answer> {
  const before = door.answered;
  const res = await fetch(`${base}${url}`, { headers: { ...tenant.headers(token), ...headers } });
  const body = await res.text();
  return { status: res.status, headers: Object.fromEntries(res.headers), body, atDoor: door.answered > before };
}

/** Every change notice of the writes so far has arrived: a read now is not invalidated after it by an earlier write's notice. */
const caughtUp = () => t.app.container.resolve(ReadCache).caughtUp();

/** The headers of an answer but those that differ on every one. */
const lasting = (a: Answer) => {
  const { date: _date, 'x-request-id': _id, 'keep-alive': _k, connection: _c, ...rest } = a.headers;
  return rest;
};

describe('a storefront read asked again', () => {
  it('is answered at the door with the framework’s body, ETag, headers and 304', async () => {
    const product = await createProduct(t, tenant, { title: 'Door mat' });
    await caughtUp();
    const url = `/api/v1/catalog/products/${product.id}`;
    const framework = await get(url); // read from the database, kept and remembered
    const door1 = await get(url);
    expect([framework.atDoor, door1.atDoor]).toEqual([false, true]);
    expect(door1.status).toBe(200);
    expect(door1.body).toBe(framework.body);
    expect(lasting(door1)).toEqual(lasting(framework));
    expect(door1.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    // The caller's request id is echoed, as the framework does.
    expect((await get(url, { 'x-request-id': 'shop-42.a' })).headers['x-request-id']).toBe('shop-42.a');

    const viaFramework = await t.request({ method: 'GET', url, headers: { ...tenant.headers(tenant.storefrontToken), 'if-none-match': framework.headers.etag } });
    const unchanged = await get(url, { 'if-none-match': framework.headers.etag });
    expect(unchanged.atDoor).toBe(true);
    expect(unchanged.status).toBe(304);
    expect(unchanged.body).toBe('');
    expect(viaFramework.statusCode).toBe(304);
    for (const name of ['etag', 'cache-control', 'vary']) expect(unchanged.headers[name]).toBe(String(viaFramework.headers[name]));
  });

  it('serves lists and collections at the door too, each query its own answer', async () => {
    await createProduct(t, tenant, { title: 'Umbrella' });
    await caughtUp();
    for (const url of ['/api/v1/catalog/products?limit=2', '/api/v1/catalog/products?limit=3', '/api/v1/catalog/collections']) {
      const framework = await get(url);
      const again = await get(url);
      expect(again.atDoor).toBe(true);
      expect(again.body).toBe(framework.body);
    }
    const two = JSON.parse((await get('/api/v1/catalog/products?limit=2')).body);
    expect(two.data).toHaveLength(2);
  });

  it('goes through the framework once the product changes, and gives the new answer', async () => {
    const product = await createProduct(t, tenant, { title: 'Lamp' });
    await caughtUp();
    const url = `/api/v1/catalog/products/${product.id}`;
    await get(url);
    expect((await get(url)).atDoor).toBe(true);
    expect((await caller(t, tenant)('PATCH', url, { title: 'Reading lamp' })).statusCode).toBe(200);
    await caughtUp();
    const after = await get(url);
    expect(after.atDoor).toBe(false);
    expect(JSON.parse(after.body).data.title).toBe('Reading lamp');
  });

  it('never answers for a revoked key, a suspended store, another store or an admin key', async () => {
    const product = await createProduct(t, tenant, { title: 'Kettle' });
    await caughtUp();
    const url = `/api/v1/catalog/products/${product.id}`;
    const other = await t.createTenant();
    // Another store's key on this URL: the framework's 403, and the door stays out of it.
    const foreign = await get(url, { 'x-tenant-id': tenant.id }, other.storefrontToken);
    expect(foreign.atDoor).toBe(false);
    expect(foreign.status).toBe(403);
    // An admin key always reads the database.
    await get(url, {}, tenant.adminToken);
    expect((await get(url, {}, tenant.adminToken)).atDoor).toBe(false);

    const platform = { authorization: `Bearer ${t.platformToken}` };
    await get(url);
    expect((await get(url)).atDoor).toBe(true);
    const suspended = await t.request({ method: 'POST', url: `/api/v1/tenants/${tenant.id}/suspend`, headers: platform });
    expect(suspended.statusCode).toBe(200);
    const refused = await get(url);
    expect([refused.atDoor, refused.status, JSON.parse(refused.body).error.code]).toEqual([false, 403, 'TENANT_SUSPENDED']);
    expect((await t.request({ method: 'POST', url: `/api/v1/tenants/${tenant.id}/activate`, headers: platform })).statusCode).toBe(200);

    await get(url);
    expect((await get(url)).atDoor).toBe(true);
    const keys = (await t.request({ method: 'GET', url: `/api/v1/tenants/${tenant.id}/api-keys?limit=100`, headers: platform })).json().data as Array<{ id: string; scope: string }>;
    const storefront = keys.filter((k) => k.scope === 'storefront');
    expect(storefront).toHaveLength(1);
    expect((await t.request({ method: 'DELETE', url: `/api/v1/tenants/${tenant.id}/api-keys/${storefront[0].id}`, headers: platform })).statusCode).toBe(204);
    const revoked = await get(url);
    expect([revoked.atDoor, revoked.status]).toEqual([false, 401]);
  });

  it('answers a GraphQL query POSTed again, and hands every other body on to GraphQL intact', async () => {
    const shop = await t.createTenant();
    const product = await createProduct(t, shop, { title: 'Teapot' });
    await caughtUp();
    const query = 'query Product($id: ID!) { product(id: $id) { id title variants { id price } } }';
    const post = async (body: string, token = shop.storefrontToken, headers: Record<string, string> = {}) => {
      const before = door.answered;
      const res = await fetch(`${base}/graphql`, { method: 'POST', headers: { ...shop.headers(token), 'content-type': 'application/json', ...headers }, body });
      return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text(), atDoor: door.answered > before };
    };
    const body = JSON.stringify({ query, variables: { id: product.id } });
    const framework = await post(body);
    const again = await post(body);
    expect([framework.atDoor, again.atDoor]).toEqual([false, true]);
    expect(JSON.parse(again.body).data.product.title).toBe('Teapot');
    expect(again.body).toBe(framework.body);
    expect(lasting(again)).toEqual(lasting(framework));
    // The same query with other variables, another key's caller and a byte more are other requests.
    const spaced = await post(`${body} `);
    expect([spaced.atDoor, spaced.status]).toEqual([false, 200]);
    expect(spaced.body).toBe(framework.body);
    const admin = await post(body, shop.adminToken);
    expect([admin.atDoor, admin.status, JSON.parse(admin.body).data.product.title]).toEqual([false, 200, 'Teapot']);
    // Bodies the door read and did not answer reach GraphQL whole: a query kept nowhere, a broken JSON text.
    const version = await post(JSON.stringify({ query: '{ apiVersion }' }));
    expect([version.atDoor, version.status, JSON.parse(version.body).data.apiVersion]).toEqual([false, 200, 'v1']);
    expect((await caller(t, shop)('PATCH', `/api/v1/catalog/products/${product.id}`, { title: 'Big teapot' })).statusCode).toBe(200);
    const broken = await post('{"query": ');
    const injected = await t.request({ method: 'POST', url: '/graphql', payload: '{"query": ', headers: { ...shop.headers(shop.storefrontToken), 'content-type': 'application/json' } });
    expect([broken.atDoor, broken.status, broken.body]).toEqual([false, injected.statusCode, injected.body]);
    expect(JSON.parse(broken.body).errors[0].extensions.code).toBe('VALIDATION_ERROR');
    await caughtUp();
    const fresh = await post(body);
    expect([fresh.atDoor, JSON.parse(fresh.body).data.product.title]).toEqual([false, 'Big teapot']);
  });

  it('answers a query whose body comes in pieces, and two on one connection; a body cut short is not answered and harms nothing', async () => {
    const shop = await t.createTenant();
    const product = await createProduct(t, shop, { title: 'Kettle' });
    await caughtUp();
    const body = JSON.stringify({ query: 'query P($id: ID!) { product(id: $id) { id title } }', variables: { id: product.id } });
    const head = (length: number) =>
      // As fetch sends it (its Accept-Language is part of what the answer depends on).
      [`POST /graphql HTTP/1.1`, `host: 127.0.0.1`, `accept-language: *`, `content-type: application/json`, `content-length: ${length}`, ...Object.entries(shop.headers(shop.storefrontToken)).map(([k, v]) => `${k}: ${v}`), '', ''].join('\r\n');
    const framework = await fetch(`${base}/graphql`, { method: 'POST', headers: { ...shop.headers(shop.storefrontToken), 'content-type': 'application/json' }, body });
    const expected = await framework.text();
    const { port } = new URL(base);
    /** Writes the pieces over one socket, a few milliseconds apart, and reads until `answers` bodies or the socket ends. */
    const raw = (pieces: string[], answers: number) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1');
        let text = '';
        const done = () => (socket.destroy(), resolve(text));
        socket.on('data', (chunk) => {
          text += chunk.toString();
          if (text.split(expected).length - 1 >= answers) done();
        });
        socket.on('end', done);
        socket.on('error', reject);
        socket.on('connect', async () => {
          for (const piece of pieces) {
            socket.write(piece);
            await new Promise((r) => setTimeout(r, 15));
          }
          if (answers === 0) socket.end();
        });
      });
    const before = door.answered;
    const split = await raw([head(Buffer.byteLength(body)), body.slice(0, 20), body.slice(20)], 1);
    expect(split).toMatch(/^HTTP\/1\.1 200 /);
    expect(split.endsWith(expected)).toBe(true);
    expect(door.answered).toBe(before + 1);
    const twice = await raw([head(Buffer.byteLength(body)) + body + head(Buffer.byteLength(body)) + body], 2);
    expect(twice.split(expected).length - 1).toBe(2);
    expect(door.answered).toBe(before + 3);
    // Ten bytes promised that never come: no answer from the door, and the server goes on.
    await raw([head(Buffer.byteLength(body) + 10), body], 0);
    expect(door.answered).toBe(before + 3);
    const after = await fetch(`${base}/graphql`, { method: 'POST', headers: { ...shop.headers(shop.storefrontToken), 'content-type': 'application/json' }, body });
    expect([after.status, await after.text()]).toEqual([200, expected]);
    expect(door.answered).toBe(before + 4);
  });

  it('keeps the same URL of many stores apart, and a few callers a URL, the oldest going first', async () => {
    const shops = await Promise.all([1, 2, 3].map(() => t.createTenant()));
    const url = '/api/v1/catalog/products?limit=1';
    for (const shop of shops) await createProduct(t, shop, { title: `Lamp of ${shop.id.slice(0, 8)}` });
    await caughtUp();
    const read = async (shop: TestTenant, language?: string) => {
      const before = door.answered;
      const res = await fetch(`${base}${url}`, { headers: { ...shop.headers(shop.storefrontToken), ...(language ? { 'accept-language': language } : {}) } });
      const body = (await res.json()) as { data: Array<{ title: string }> };
      return { atDoor: door.answered > before, title: body.data[0]!.title };
    };
    for (const shop of shops) await read(shop);
    for (const shop of shops) expect(await read(shop)).toEqual({ atDoor: true, title: `Lamp of ${shop.id.slice(0, 8)}` });
    // Twenty spellings of one language for one store: one answer, the last sixteen callers remembered.
    const spellings = Array.from({ length: 20 }, (_, i) => `en;q=0.${String(i + 10)}`);
    for (const language of spellings) await read(shops[0]!, language);
    expect((await read(shops[0]!, spellings[19])).atDoor).toBe(true);
    expect((await read(shops[0]!, spellings[4])).atDoor).toBe(true);
    expect((await read(shops[0]!, spellings[0])).atDoor).toBe(false);
    // The other stores' callers of the same URL are untouched.
    expect((await read(shops[1]!)).atDoor).toBe(true);
  });

  it('remembers large queries within its budget of characters, the oldest going first', async () => {
    const shop = await t.createTenant();
    const product = await createProduct(t, shop, { title: 'Kettle' });
    await caughtUp();
    const query = `query Product($id: ID!) { product(id: $id) { id title } }`;
    // Bodies of 60,000 characters that differ only in trailing spaces: one answer, each body its own request.
    const bodyOf = (n: number) => {
      const text = JSON.stringify({ query, variables: { id: product.id } });
      return text + ' '.repeat(60_000 - text.length - n) + '\n'.repeat(n);
    };
    const post = async (body: string) => {
      const before = door.answered;
      const res = await fetch(`${base}/graphql`, { method: 'POST', headers: { ...shop.headers(shop.storefrontToken), 'content-type': 'application/json' }, body });
      expect([res.status, JSON.parse(await res.text()).data.product.title]).toEqual([200, 'Kettle']);
      return door.answered > before;
    };
    const count = Math.ceil(REMEMBERED_KEY_CHARS_MAX / 60_000) + 10;
    for (let n = 1; n <= count; n++) await post(bodyOf(n));
    expect(door.rememberedChars).toBeLessThanOrEqual(REMEMBERED_KEY_CHARS_MAX);
    expect(door.rememberedChars).toBeGreaterThan(REMEMBERED_KEY_CHARS_MAX - 2 * 60_000);
    // The newest are answered at the door, the first ones went to make room and go through GraphQL again.
    expect(await post(bodyOf(count))).toBe(true);
    expect(await post(bodyOf(1))).toBe(false);
  });

  it('logs and counts a door answer as the framework logs and counts its own', async () => {
    const shop = await t.createTenant();
    const product = await createProduct(t, shop, { title: 'Mug' });
    await caughtUp();
    const url = `/api/v1/catalog/products/${product.id}`;
    const read = async () => {
      const before = door.answered;
      await fetch(`${base}${url}`, { headers: shop.headers(shop.storefrontToken) });
      return door.answered > before;
    };
    logs.lines.length = 0;
    expect(await read()).toBe(false);
    const framework = logs.lines.splice(0);
    expect(await read()).toBe(true);
    const atDoor = logs.lines.splice(0);
    const shape = (lines: LogLine[]) =>
      lines.map((l) => ({
        msg: l.msg,
        route: l.route,
        tenant_id: l.tenant_id,
        reqId: typeof l.reqId,
        req: l.req && Object.keys(l.req as object).sort(),
        method: (l.req as { method?: string } | undefined)?.method,
        url: (l.req as { url?: string } | undefined)?.url,
        status: (l.res as { statusCode?: number } | undefined)?.statusCode,
        responseTime: typeof l.responseTime,
      }));
    expect(shape(atDoor)).toEqual(shape(framework));
    expect(shape(atDoor).map((l) => [l.msg, l.route, l.tenant_id])).toEqual([
      ['incoming request', '/api/v1/catalog/products/:id', undefined],
      ['request completed', '/api/v1/catalog/products/:id', shop.id],
    ]);
    const metrics = await t.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${t.platformToken}` } });
    const line = metrics.body.split('\n').find((l) => l.startsWith('qhatu_http_requests_total{') && l.includes('route="/api/v1/catalog/products/:id"') && l.includes('status_code="200"'));
    expect(line).toBeDefined();
  });
});
