import { Database } from '@qhatu/core';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import catalog, { Product, Variant } from '../src/index.js';

let t: TestApp;
let a: TestTenant;
let b: TestTenant;
let bProduct: { id: string; variants: Array<{ id: string }> };
beforeAll(async () => {
  t = await createTestApp({ plugins: [catalog] });
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
