import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogApp } from './helpers.js';

let t: TestApp;
let shop: TestTenant;
beforeAll(async () => {
  t = await catalogApp();
  shop = await t.createTenant({ currency: 'PEN' });
});
afterAll(async () => t?.close());

const outbox = (id: string) =>
  t.app.orm.em.getConnection().execute<{ type: string; data: Record<string, unknown> }[]>(
    `select type, data from core_outbox where data->>'id' = ? order by occurred_at`, [id]);

describe('products.product.updated', () => {
  it('goes through the outbox with the specification’s data fields', async () => {
    const p = (await t.request({ method: 'POST', url: '/api/v1/catalog/products', headers: shop.headers(), payload: { title: 'Mate gourd', variants: [{ title: 'Std', sku: 'MATE-1', price: 2500, inventory_quantity: 4 }, { title: 'XL', price: 3500, inventory_quantity: 6 }] } })).json().data;
    await t.request({ method: 'PATCH', url: `/api/v1/catalog/products/${p.id}`, headers: shop.headers(), payload: { title: 'Mate gourd (carved)' } });
    const events = await outbox(p.id);
    expect(events.map((e) => e.type)).toEqual(['products.product.created', 'products.product.updated']);
    const data = events[1].data;
    expect(Object.keys(data).sort()).toEqual(['id', 'name', 'price', 'sku', 'stock', 'updated_at']);
    expect(data).toMatchObject({ id: p.id, sku: 'MATE-1', name: 'Mate gourd (carved)', price: 2500, stock: 10 });

    await t.request({ method: 'PATCH', url: `/api/v1/catalog/products/${p.id}/variants/${p.variants[0].id}`, headers: shop.headers(), payload: { inventory_quantity: 1 } });
    expect((await outbox(p.id)).at(-1)!.data).toMatchObject({ stock: 7 });
    await t.request({ method: 'DELETE', url: `/api/v1/catalog/products/${p.id}`, headers: shop.headers() });
    expect((await outbox(p.id)).at(-1)!.type).toBe('products.product.deleted');
  });
});

describe('SQL statements per request (hot paths)', () => {
  let id: string;
  beforeAll(async () => {
    for (let i = 0; i < 30; i++) {
      const res = await t.request({ method: 'POST', url: '/api/v1/catalog/products', headers: shop.headers(), payload: { title: `Budget ${i}`, variants: [{ title: 'a', price: 1 }, { title: 'b', price: 2 }, { title: 'c', price: 3 }] } });
      id = res.json().data.id;
    }
    await t.request({ method: 'GET', url: `/api/v1/catalog/products/${id}`, headers: shop.headers() }); // token now cached
  });

  const count = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) =>
    t.countQueries(() => t.request({ method, url, headers: shop.headers(), payload: payload as never }));

  it('reads a product in one round trip: BEGIN with the tenant context, the product with its variants and COMMIT sent together', async () => {
    const { count: n, statements } = await count('GET', `/api/v1/catalog/products/${id}`);
    expect(statements[0]).toMatch(/^BEGIN READ ONLY; select set_config\('role'.*set_config\('app.tenant_id'.*catalog_variant.*; COMMIT$/s);
    expect(n).toBe(1);
  });

  it('reads a product in one round trip for a storefront key too, and in none once it is kept in memory', async () => {
    const url = `/api/v1/catalog/products/${id}`;
    const read = () => t.countQueries(() => t.request({ method: 'GET', url, headers: shop.headers(shop.storefrontToken) }));
    await read(); // the storefront token is now cached
    await t.request({ method: 'PATCH', url, headers: shop.headers(), payload: { title: 'Budget renamed' } });
    const miss = await read();
    expect(miss.result.json().data.title).toBe('Budget renamed');
    expect(miss.count).toBe(1);
    // The change's own notice comes back from the database a moment later and drops the entry once more.
    let hit = await read();
    for (const end = Date.now() + 1000; hit.count > 0 && Date.now() < end; hit = await read()) await new Promise((r) => setTimeout(r, 10));
    expect(hit.result.body).toBe(miss.result.body);
    expect(hit.count).toBe(0);
  });

  it('lists 25 products with their variants in one round trip, searched or not', async () => {
    for (const url of ['/api/v1/catalog/products?limit=25', '/api/v1/catalog/products?limit=25&q=budget', '/api/v1/catalog/products?limit=25&sort=title&q=zzz-nothing']) {
      const { count: n, statements } = await count('GET', url);
      expect(statements[0], url).toMatch(/^BEGIN READ ONLY; select set_config\('role'.*catalog_variant.*; COMMIT$/s);
      expect(n, url).toBe(1);
    }
  });

  it('creates a product with three variants in at most 9', async () => {
    const { count: n } = await count('POST', '/api/v1/catalog/products', { title: 'Budget new', variants: [{ title: 'a', price: 1 }, { title: 'b', price: 2 }, { title: 'c', price: 3 }] });
    expect(n).toBeLessThanOrEqual(9);
  });

  it('never looks the token up twice in a row (cached)', async () => {
    const { statements } = await count('GET', `/api/v1/catalog/products/${id}`);
    expect(statements.some((s) => /core_access_token/.test(s))).toBe(false);
  });
});

describe('events of collections, brands, suppliers, downloads and metafields', () => {
  const typesOf = async (id: string) => (await outbox(id)).map((e) => e.type);

  it('go through the outbox in the transaction that made them', async () => {
    const api = (method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
      t.request({ method, url, headers: shop.headers(), payload: payload as never });
    const p = (await api('POST', '/api/v1/catalog/products', { title: 'Evented', variants: [{ title: 'a', price: 1 }] })).json().data;
    const c = (await api('POST', '/api/v1/catalog/collections', { title: 'Evented collection' })).json().data;
    await api('PUT', `/api/v1/catalog/collections/${c.id}`, { title: 'Renamed collection' });
    const m = (await api('POST', `/api/v1/catalog/collections/${c.id}/products`, { product_id: p.id })).json().data;
    await api('DELETE', `/api/v1/catalog/collections/${c.id}/products/${p.id}`);
    await api('DELETE', `/api/v1/catalog/collections/${c.id}`);
    expect(await typesOf(c.id)).toEqual(['products.collection.created', 'products.collection.updated', 'products.collection.deleted']);
    const membership = await outbox(m.id);
    expect(membership.map((e) => e.type)).toEqual(['products.collection.product_added', 'products.collection.product_removed']);
    expect(membership[0].data).toEqual({ id: m.id, collection_id: c.id, product_id: p.id, position: 0 });
    expect((await outbox(c.id))[1].data).toMatchObject({ id: c.id, title: 'Renamed collection', slug: 'evented-collection', status: 'active', product_count: 0 });

    const b = (await api('POST', '/api/v1/catalog/brands', { name: 'Evented brand' })).json().data;
    await api('PUT', `/api/v1/catalog/brands/${b.id}`, { name: 'Evented brand 2' });
    await api('DELETE', `/api/v1/catalog/brands/${b.id}`);
    expect(await typesOf(b.id)).toEqual(['products.brand.created', 'products.brand.updated', 'products.brand.deleted']);

    const s = (await api('POST', '/api/v1/catalog/suppliers', { name: 'Evented supplier', code: 'EV' })).json().data;
    await api('PATCH', `/api/v1/catalog/suppliers/${s.id}`, { phone: '+51 1 234 5678' });
    await api('DELETE', `/api/v1/catalog/suppliers/${s.id}`);
    expect(await typesOf(s.id)).toEqual(['products.supplier.created', 'products.supplier.updated', 'products.supplier.deleted']);

    const d = (await api('POST', `/api/v1/catalog/products/${p.id}/downloads`, { file_name: 'a.pdf', file_url: 'https://x.example/a.pdf' })).json().data;
    await api('PATCH', `/api/v1/catalog/products/${p.id}/downloads/${d.id}`, { download_limit: 2 });
    await api('DELETE', `/api/v1/catalog/products/${p.id}/downloads/${d.id}`);
    expect(await typesOf(d.id)).toEqual(['products.download.created', 'products.download.updated', 'products.download.deleted']);

    const mf = (await api('POST', `/api/v1/catalog/products/${p.id}/metafields`, { namespace: 'a', key: 'b', value: 1, value_type: 'integer' })).json().data;
    await api('PATCH', `/api/v1/catalog/products/${p.id}/metafields/${mf.id}`, { value: 2 });
    await api('DELETE', `/api/v1/catalog/products/${p.id}/metafields/${mf.id}`);
    const metaEvents = await outbox(mf.id);
    expect(metaEvents.map((e) => e.type)).toEqual(['products.metafield.created', 'products.metafield.updated', 'products.metafield.deleted']);
    expect(metaEvents[1].data).toMatchObject({ namespace: 'a', key: 'b', value: '2', value_type: 'integer', product_id: p.id });

    // A refused write publishes nothing.
    const refused = await api('POST', '/api/v1/catalog/brands', { name: 'x', logo_media_id: '00000000-0000-4000-8000-000000000009' });
    expect(refused.statusCode).toBe(422);
    const rows = await t.app.orm.em.getConnection().execute<{ n: number }[]>(`select count(*)::int as n from core_outbox where type = 'products.brand.created' and data->>'name' = 'x'`);
    expect(rows[0].n).toBe(0);
  });
});

describe('SQL statements per request: collections, brands, suppliers', () => {
  let full: string;
  beforeAll(async () => {
    const api = (method: 'POST', url: string, payload: unknown) => t.request({ method, url, headers: shop.headers(), payload: payload as never });
    const products = (await t.request({ method: 'GET', url: '/api/v1/catalog/products?limit=30', headers: shop.headers() })).json().data;
    for (let i = 0; i < 30; i++) {
      const c = (await api('POST', '/api/v1/catalog/collections', { title: `Budget collection ${i}` })).json().data;
      if (i === 0) full = c.id;
      await api('POST', `/api/v1/catalog/collections/${c.id}/products`, { product_id: products[i % products.length].id });
      await api('POST', '/api/v1/catalog/brands', { name: `Budget brand ${i}` });
      await api('POST', '/api/v1/catalog/suppliers', { name: `Budget supplier ${i}` });
    }
    for (const p of products.slice(1, 30)) await api('POST', `/api/v1/catalog/collections/${full}/products`, { product_id: p.id });
  });

  const count = (url: string) => t.countQueries(() => t.request({ method: 'GET', url, headers: shop.headers() }));

  it('lists a page of collections with product_count in 3, whatever the page size or sort', async () => {
    for (const qs of ['limit=25', 'limit=2', 'limit=100&sort=-product_count', 'limit=25&sort=title']) {
      const { count: n, result } = await count(`/api/v1/catalog/collections?${qs}`);
      expect(result.statusCode).toBe(200);
      // BEGIN with the tenant context, the page, COMMIT
      expect(n, qs).toBe(3);
    }
  });

  it("lists a page of a collection's products (title, handle, first price) in 4", async () => {
    for (const qs of ['limit=25', 'limit=5']) {
      const { count: n, result } = await count(`/api/v1/catalog/collections/${full}/products?${qs}`);
      expect(result.json().data.length).toBeGreaterThan(0);
      // BEGIN with the tenant context, the collection, the page, COMMIT
      expect(n, qs).toBe(4);
    }
    const first = (await count(`/api/v1/catalog/collections/${full}/products?limit=25`)).result.json();
    const { count: n } = await count(`/api/v1/catalog/collections/${full}/products?limit=25&cursor=${encodeURIComponent(first.meta.pagination.cursor)}`);
    expect(n).toBe(4);
  });

  it('lists brands with product_count in 4 and suppliers with total in 4', async () => {
    for (const qs of ['limit=25', 'limit=3']) {
      // BEGIN with the tenant context, the page, the counts of the page, COMMIT
      expect((await count(`/api/v1/catalog/brands?${qs}`)).count, qs).toBe(4);
      // BEGIN with the tenant context, the page, the total, COMMIT
      expect((await count(`/api/v1/catalog/suppliers?${qs}`)).count, qs).toBe(4);
    }
  });

  it('adds a product to a collection in at most 9', async () => {
    const c = (await t.request({ method: 'POST', url: '/api/v1/catalog/collections', headers: shop.headers(), payload: { title: 'Budget add' } })).json().data;
    const p = (await t.request({ method: 'GET', url: '/api/v1/catalog/products?limit=1', headers: shop.headers() })).json().data[0];
    const { count: n, result } = await t.countQueries(() =>
      t.request({ method: 'POST', url: `/api/v1/catalog/collections/${c.id}/products`, headers: shop.headers(), payload: { product_id: p.id } }));
    expect(result.statusCode).toBe(201);
    expect(n).toBeLessThanOrEqual(9);
  });
});
