import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import project from '../../../starters/full-store/qhatu.config.js';
import { createQhatuClient, isQhatuApiError, QhatuApiError, type QhatuClient } from '../src/index.js';

let t: TestApp;
let shop: TestTenant;
let baseUrl: string;
let admin: QhatuClient;
const sent: Array<{ method: string; url: string; headers: Headers }> = [];

beforeAll(async () => {
  t = await createTestApp({ plugins: project.plugins });
  baseUrl = await t.app.http.listen({ port: 0, host: '127.0.0.1' });
  shop = await t.createTenant({ name: 'Andean Crafts', currency: 'PEN' });
  // Records what goes over the wire, then sends it.
  const recording = async (request: Request) => {
    sent.push({ method: request.method, url: request.url, headers: new Headers(request.headers) });
    return fetch(request);
  };
  admin = createQhatuClient({ baseUrl, token: shop.adminToken, tenantId: shop.id, fetch: recording });
});
afterAll(async () => t?.close());

async function addProduct(title: string, price = 8900) {
  const { data } = await admin.POST('/api/v1/catalog/products', { body: { title, variants: [{ title: 'One size', price }] } });
  return data;
}

describe('@qhatu/client against a running store', () => {
  it('sends the bearer token and X-Tenant-ID, and answers the typed body', async () => {
    const product = await addProduct('Alpaca scarf');
    expect(product).toMatchObject({ title: 'Alpaca scarf', status: expect.any(String) });
    expect(product.variants[0].price).toBe(8900);
    const last = sent.at(-1)!;
    expect(last.headers.get('authorization')).toBe(`Bearer ${shop.adminToken}`);
    expect(last.headers.get('x-tenant-id')).toBe(shop.id);

    const { data: read } = await admin.GET('/api/v1/catalog/products/{id}', { params: { path: { id: product.id } } });
    expect(read).toEqual(product);
  });

  it('walks a cursor list page by page, and item by item', async () => {
    const store = await t.createTenant();
    const client = admin.with({ token: store.adminToken, tenantId: store.id });
    for (const title of ['Belt', 'Apron', 'Cap', 'Drum', 'Ember']) {
      await client.POST('/api/v1/catalog/products', { body: { title, variants: [{ title: 'One', price: 100 }] } });
    }
    const pages: string[][] = [];
    for await (const page of client.pages('/api/v1/catalog/products', { params: { query: { limit: 2, sort: 'title' } } })) {
      pages.push(page.data.map((p) => p.title));
      expect(page.meta.pagination.has_next).toBe(pages.length < 3);
    }
    expect(pages).toEqual([['Apron', 'Belt'], ['Cap', 'Drum'], ['Ember']]);

    const titles: string[] = [];
    for await (const product of client.items('/api/v1/catalog/products', { params: { query: { limit: 2, sort: '-title' } } })) titles.push(product.title);
    expect(titles).toEqual(['Ember', 'Drum', 'Cap', 'Belt', 'Apron']);
    // Each page was one request with the cursor of the one before.
    const cursors = sent.filter((r) => r.method === 'GET' && r.url.includes('sort=-title')).map((r) => new URL(r.url).searchParams.get('cursor'));
    expect(cursors).toHaveLength(3);
    expect(cursors[0]).toBeNull();
    expect(cursors[1]).toEqual(expect.any(String));
  });

  it('creates one order for a write sent twice with the same Idempotency-Key', async () => {
    const store = await t.createTenant();
    const client = admin.with({ token: store.adminToken, tenantId: store.id });
    const { data: product } = await client.POST('/api/v1/catalog/products', { body: { title: 'Poncho', variants: [{ title: 'Red', price: 25000, requires_shipping: false }] } });
    const body = { customer_email: 'rosa@example.com', line_items: [{ variant_id: product.variants[0].id, quantity: 2 }] };
    const headers = { 'Idempotency-Key': 'order-rosa-0001' };

    const first = await client.POST('/api/v1/orders', { body, headers });
    const again = await client.POST('/api/v1/orders', { body, headers });
    expect(again.data.id).toBe(first.data.id);
    expect(first.data.total).toBe(50000);
    const { data: orders } = await client.GET('/api/v1/orders');
    expect(orders.map((o) => o.id)).toEqual([first.data.id]);
    expect(sent.at(-2)!.headers.get('idempotency-key')).toBe('order-rosa-0001');

    // Without one, each call gets a key of its own, so two calls are two orders.
    await client.POST('/api/v1/orders', { body });
    const generated = sent.at(-1)!.headers.get('idempotency-key');
    expect(generated).toMatch(/^[0-9a-f-]{36}$/);
    await client.POST('/api/v1/orders', { body });
    expect(sent.at(-1)!.headers.get('idempotency-key')).not.toBe(generated);
    expect((await client.GET('/api/v1/orders')).data).toHaveLength(3);

    // The same key with another body is the contract's 409.
    const reused = await client.POST('/api/v1/orders', { body: { ...body, customer_email: 'ana@example.com' }, headers }).catch((e) => e);
    expect(reused).toBeInstanceOf(QhatuApiError);
    expect(reused).toMatchObject({ status: 409, code: 'IDEMPOTENCY_KEY_REUSED' });
  });

  it('throws a 422 as a QhatuApiError with the code, message and details of the error body', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const error = await admin
      .POST('/api/v1/orders', { body: { customer_email: 'rosa@example.com', line_items: [{ variant_id: unknown, quantity: 1 }] } })
      .catch((e: unknown) => e);
    expect(isQhatuApiError(error, 'VARIANT_NOT_FOUND')).toBe(true);
    const e = error as QhatuApiError;
    expect(e).toMatchObject({ name: 'QhatuApiError', status: 422, method: 'POST', url: `${baseUrl}/api/v1/orders` });
    expect(e.message).toContain(unknown);
    expect(e.details).toEqual([expect.objectContaining({ variant_id: unknown })]);
    expect(e.requestId).toEqual(expect.any(String));
  });

  it('throws 400, 401 and 404 the same way', async () => {
    const invalid = await admin.POST('/api/v1/catalog/products', { body: { variants: [] } as never }).catch((e) => e);
    expect(invalid).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    expect(JSON.stringify(invalid.details)).toContain('title');

    const anonymous = await admin.with({ token: undefined }).GET('/api/v1/catalog/products').catch((e) => e);
    expect(anonymous).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });

    const missing = await admin.GET('/api/v1/catalog/products/{id}', { params: { path: { id: '00000000-0000-4000-8000-000000000000' } } }).catch((e) => e);
    expect(missing).toBeInstanceOf(QhatuApiError);
    expect(missing.status).toBe(404);
  });

  it('answers undefined for a 204', async () => {
    const product = await addProduct('Gone soon');
    await expect(admin.DELETE('/api/v1/catalog/products/{id}', { params: { path: { id: product.id } } })).resolves.toBeUndefined();
  });
});

describe('@qhatu/client through a flaky network', () => {
  it('repeats a POST that met a 503 with the same Idempotency-Key, and gives up after its retries', async () => {
    const seen: IncomingHttpHeaders[] = [];
    let failures = 1;
    const server = createServer((req, res) => {
      seen.push(req.headers);
      req.resume();
      req.on('end', () => {
        if (failures-- > 0) {
          res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' });
          return res.end(JSON.stringify({ error: { code: 'UNAVAILABLE', message: 'Try again.', details: [] } }));
        }
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ data: { id: 'b1c7e9a0-0000-4000-8000-000000000001' } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const client = createQhatuClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, token: 'k', tenantId: 't' });
      const { data } = await client.POST('/api/v1/orders', { body: { customer_email: 'rosa@example.com', line_items: [] } });
      expect(data.id).toBe('b1c7e9a0-0000-4000-8000-000000000001');
      expect(seen).toHaveLength(2);
      expect(seen[1]['idempotency-key']).toBe(seen[0]['idempotency-key']);

      failures = 10;
      const error = await client.POST('/api/v1/orders', { body: { customer_email: 'rosa@example.com', line_items: [] } }).catch((e) => e);
      expect(error).toMatchObject({ status: 503, code: 'UNAVAILABLE', message: 'Try again.' });
      expect(seen).toHaveLength(5);

      // A PATCH is sent once.
      failures = 10;
      await client.PATCH('/api/v1/catalog/products/{id}', { params: { path: { id: 'x' } }, body: {} }).catch(() => {});
      expect(seen).toHaveLength(6);

      // The key maker can be the caller's own.
      failures = 0;
      const keyed = createQhatuClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, idempotencyKey: () => 'checkout-42', retries: 0 });
      await keyed.POST('/api/v1/orders', { body: { customer_email: 'rosa@example.com', line_items: [] } });
      expect(seen.at(-1)!['idempotency-key']).toBe('checkout-42');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
