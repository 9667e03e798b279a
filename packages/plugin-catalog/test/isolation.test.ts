import { Database } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Product, Variant } from '../src/index.js';
import { catalogApp } from './helpers.js';

let t: TestApp;
let a: TestTenant;
let b: TestTenant;
let bProduct: { id: string; variants: Array<{ id: string }> };
beforeAll(async () => {
  t = await catalogApp();
  a = await t.createTenant({ name: 'A' });
  b = await t.createTenant({ name: 'B' });
  await t.request({ method: 'POST', url: '/api/v1/catalog/products', headers: a.headers(), payload: { title: 'A thing', handle: 'shared', variants: [{ title: 'x', sku: 'SAME', price: 1 }] } });
  const res = await t.request({ method: 'POST', url: '/api/v1/catalog/products', headers: b.headers(), payload: { title: 'B secret', handle: 'shared', variants: [{ title: 'x', sku: 'SAME', price: 2 }] } });
  expect(res.statusCode).toBe(201); // handles and SKUs are unique per tenant, not across tenants
  bProduct = res.json().data;
});
afterAll(async () => t?.close());

describe("with tenant A's key, nothing of tenant B", () => {
  const asA = (method: 'GET' | 'PATCH' | 'DELETE' | 'POST', url: string, payload?: unknown) =>
    t.request({ method, url, headers: a.headers(), payload: payload as never });

  it('can be listed or searched', async () => {
    const titles = (await asA('GET', '/api/v1/catalog/products?limit=100')).json().data.map((p: { title: string }) => p.title);
    expect(titles).toEqual(['A thing']);
    expect((await asA('GET', '/api/v1/catalog/products?q=secret')).json().data).toEqual([]);
  });

  it('can be read, changed or deleted', async () => {
    const url = `/api/v1/catalog/products/${bProduct.id}`;
    expect((await asA('GET', url)).statusCode).toBe(404);
    expect((await asA('PATCH', url, { title: 'hacked' })).statusCode).toBe(404);
    expect((await asA('DELETE', url)).statusCode).toBe(404);
    expect((await asA('POST', `${url}/variants`, { title: 'y', price: 0 })).statusCode).toBe(404);
    expect((await asA('PATCH', `${url}/variants/${bProduct.variants[0].id}`, { price: 0 })).statusCode).toBe(404);
    expect((await asA('DELETE', `${url}/variants/${bProduct.variants[0].id}`)).statusCode).toBe(404);
    const still = await t.request({ method: 'GET', url, headers: b.headers() });
    expect(still.json().data).toMatchObject({ title: 'B secret', variants: [{ price: 2 }] });
  });

  it('can be reached with B in X-Tenant-ID', async () => {
    const res = await t.request({ method: 'GET', url: `/api/v1/catalog/products/${bProduct.id}`, headers: { authorization: `Bearer ${a.adminToken}`, 'x-tenant-id': b.id } });
    expect(res.statusCode).toBe(403);
  });

  it('can be read by GraphQL', async () => {
    const gql = (query: string) => t.request({ method: 'POST', url: '/graphql', headers: a.headers(a.storefrontToken), payload: { query } });
    const one = (await gql(`{ product(id: "${bProduct.id}") { id title } }`)).json();
    expect(one.data.product).toBeNull();
    expect(one.errors[0].extensions).toEqual({ code: 'RESOURCE_NOT_FOUND', path: ['product'] });
    const list = (await gql('{ products(limit: 100) { edges { node { title } } } }')).json();
    expect(list.data.products.edges.map((e: { node: { title: string } }) => e.node.title)).toEqual(['A thing']);
  });

  it('is visible even with the ORM tenant filter switched off: row-level security holds', async () => {
    const db = t.app.container.resolve(Database);
    const seen = await db.tenant(async ({ em }) => ({
      products: await em.find(Product, {}, { filters: false }),
      variants: await em.find(Variant, {}, { filters: false }),
      byId: await em.findOne(Product, { id: bProduct.id }, { filters: false }),
      updated: await em.nativeUpdate(Product, { id: bProduct.id }, { title: 'hacked' }, { filters: false }),
      deleted: await em.nativeDelete(Variant, { productId: bProduct.id }, { filters: false }),
    }), a.id);
    expect(seen.products.map((p) => p.title)).toEqual(['A thing']);
    expect(seen.variants.every((v) => v.tenantId === a.id)).toBe(true);
    expect(seen.byId).toBeNull();
    expect(seen.updated).toBe(0);
    expect(seen.deleted).toBe(0);
    const still = await t.request({ method: 'GET', url: `/api/v1/catalog/products/${bProduct.id}`, headers: b.headers() });
    expect(still.json().data.title).toBe('B secret');
  });
});

describe("with tenant A's key, none of tenant B's collections, suppliers, brands, downloads or metafields", () => {
  const asA = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    t.request({ method, url, headers: a.headers(), payload: payload as never });
  const asB = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    t.request({ method, url, headers: b.headers(), payload: payload as never });
  const C = '/api/v1/catalog';
  let bc: { id: string };
  let ac: { id: string };
  let aProduct: { id: string };
  let bs: { id: string };
  let bb: { id: string };
  let bd: { id: string };
  let bm: { id: string };
  beforeAll(async () => {
    // Slugs and supplier codes are unique per tenant, not across tenants.
    ac = (await asA('POST', `${C}/collections`, { title: 'A picks', slug: 'picks' })).json().data;
    bc = (await asB('POST', `${C}/collections`, { title: 'B secret picks', slug: 'picks' })).json().data;
    expect(bc.id).toBeDefined();
    await asB('POST', `${C}/collections/${bc.id}/products`, { product_id: bProduct.id });
    await asA('POST', `${C}/suppliers`, { name: 'A supplier', code: 'S1' });
    bs = (await asB('POST', `${C}/suppliers`, { name: 'B supplier', code: 'S1' })).json().data;
    expect(bs.id).toBeDefined();
    await asA('POST', `${C}/brands`, { name: 'A brand', slug: 'house' });
    bb = (await asB('POST', `${C}/brands`, { name: 'B secret brand', slug: 'house' })).json().data;
    expect(bb.id).toBeDefined();
    bd = (await asB('POST', `${C}/products/${bProduct.id}/downloads`, { file_name: 'b.pdf', file_url: 'https://b.example/b.pdf' })).json().data;
    bm = (await asB('POST', `${C}/products/${bProduct.id}/metafields`, { namespace: 'b', key: 'secret', value: 'v', value_type: 'string' })).json().data;
    aProduct = (await asA('GET', `${C}/products?limit=1`)).json().data[0];
  });

  it('collections: list, read, change, delete, products', async () => {
    expect((await asA('GET', `${C}/collections?limit=100`)).json().data.map((c: { title: string }) => c.title)).toEqual(['A picks']);
    const url = `${C}/collections/${bc.id}`;
    expect((await asA('GET', url)).statusCode).toBe(404);
    expect((await asA('PUT', url, { title: 'hacked' })).statusCode).toBe(404);
    expect((await asA('DELETE', url)).statusCode).toBe(404);
    expect((await asA('GET', `${url}/products`)).statusCode).toBe(404);
    expect((await asA('POST', `${url}/products`, { product_id: aProduct.id })).statusCode).toBe(404);
    expect((await asA('DELETE', `${url}/products/${bProduct.id}`)).statusCode).toBe(404);
    const steal = await asA('POST', `${C}/collections/${ac.id}/products`, { product_id: bProduct.id });
    expect(steal.statusCode).toBe(422);
    expect(steal.json().error.code).toBe('PRODUCT_NOT_FOUND');
    const still = (await asB('GET', url)).json().data;
    expect(still).toMatchObject({ title: 'B secret picks', product_count: 1 });
    expect((await asB('GET', `${url}/products`)).json().data.map((e: { id: string }) => e.id)).toEqual([bProduct.id]);
  });

  it('suppliers: list (total included), read, change, delete, reference', async () => {
    const list = (await asA('GET', `${C}/suppliers`)).json();
    expect(list.data.map((s: { name: string }) => s.name)).toEqual(['A supplier']);
    expect(list.meta.pagination.total).toBe(1);
    const url = `${C}/suppliers/${bs.id}`;
    expect((await asA('GET', url)).statusCode).toBe(404);
    expect((await asA('PATCH', url, { name: 'hacked' })).statusCode).toBe(404);
    expect((await asA('DELETE', url)).statusCode).toBe(404);
    expect((await asA('PATCH', `${C}/products/${aProduct.id}`, { supplier_id: bs.id })).json().error.code).toBe('SUPPLIER_NOT_FOUND');
    expect((await asB('GET', url)).json().data.name).toBe('B supplier');
  });

  it('brands: list, search, read, change, delete, reference', async () => {
    expect((await asA('GET', `${C}/brands`)).json().data.map((x: { name: string }) => x.name)).toEqual(['A brand']);
    expect((await asA('GET', `${C}/brands?q=secret`)).json().data).toEqual([]);
    const url = `${C}/brands/${bb.id}`;
    expect((await asA('GET', url)).statusCode).toBe(404);
    expect((await asA('PUT', url, { name: 'hacked' })).statusCode).toBe(404);
    expect((await asA('DELETE', url)).statusCode).toBe(404);
    const res = await asA('POST', `${C}/products`, { title: 'x', brand_id: bb.id, variants: [{ title: 'a', price: 1 }] });
    expect(res.json().error.code).toBe('BRAND_NOT_FOUND');
    expect((await asB('GET', url)).json().data.name).toBe('B secret brand');
  });

  it('downloads and metafields: list, add, change, delete', async () => {
    for (const part of ['downloads', 'metafields']) {
      const base = `${C}/products/${bProduct.id}/${part}`;
      const id = part === 'downloads' ? bd.id : bm.id;
      expect((await asA('GET', base)).statusCode).toBe(404);
      const body = part === 'downloads' ? { file_name: 'x', file_url: 'https://x.example/x' } : { namespace: 'x', key: 'y', value: 'z', value_type: 'string' };
      expect((await asA('POST', base, body)).statusCode).toBe(404);
      expect((await asA('PATCH', `${base}/${id}`, part === 'downloads' ? { file_name: 'hacked' } : { value: 'hacked' })).statusCode).toBe(404);
      expect((await asA('DELETE', `${base}/${id}`)).statusCode).toBe(404);
      // Nor under A's own product.
      expect((await asA('DELETE', `${C}/products/${aProduct.id}/${part}/${id}`)).statusCode).toBe(404);
      const still = (await asB('GET', base)).json().data;
      expect(still.map((x: { id: string }) => x.id)).toEqual([id]);
    }
    expect((await asB('GET', `${C}/products/${bProduct.id}/metafields`)).json().data[0].value).toBe('v');
  });

  it('row-level security holds for the new tables with the ORM filter off', async () => {
    const db = t.app.container.resolve(Database);
    const counts = await db.tenant(async ({ em }) => {
      const out: Record<string, number> = {};
      for (const table of ['catalog_collection', 'catalog_collection_product', 'catalog_brand', 'catalog_supplier', 'catalog_product_download', 'catalog_product_metafield']) {
        const rows = await em.execute<{ n: number }[]>(`select count(*)::int as n from ${table} where tenant_id = ?`, [b.id]);
        out[table] = rows[0].n;
      }
      return out;
    }, a.id);
    expect(Object.values(counts)).toEqual([0, 0, 0, 0, 0, 0]);
    const rows = await t.app.orm.em.getConnection().execute<{ n: number }[]>('select count(*)::int as n from catalog_product_metafield where tenant_id = ?', [b.id]);
    expect(rows[0].n).toBe(1); // the owner sees it: the zero above is the policy's doing
  });
});
