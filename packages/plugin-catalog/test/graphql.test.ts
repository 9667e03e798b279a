import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogApp } from './helpers.js';

let t: TestApp;
let shop: TestTenant;
const ids: string[] = [];
beforeAll(async () => {
  t = await catalogApp();
  shop = await t.createTenant();
  for (const [i, status] of ['active', 'draft', 'active', 'active'].entries()) {
    const res = await t.request({
      method: 'POST', url: '/api/v1/catalog/products', headers: shop.headers(),
      payload: { title: `Poncho ${i}`, status, description_html: `<p>${i}</p>`, images: [{ url: `https://img.example.com/${i}.jpg`, alt_text: `Poncho ${i}` }], variants: [{ title: 'One', price: 1000 + i, compare_at_price: 2000, inventory_quantity: i }] },
    });
    ids.push(res.json().data.id);
  }
});
afterAll(async () => t?.close());

const gql = (query: string, variables: Record<string, unknown> = {}, token = shop.storefrontToken) =>
  t.request({ method: 'POST', url: '/graphql', headers: shop.headers(token), payload: { query, variables } }).then((r) => r.json());

const FIELDS = 'id title handle descriptionHtml variants { id title price compareAtPrice inventoryQuantity } images { url altText } collections { id title }';

describe('GraphQL products', () => {
  it('reads one product with the specification’s fields', async () => {
    const res = await gql(`query($id: ID!) { product(id: $id) { ${FIELDS} } }`, { id: ids[0] });
    expect(res.errors).toBeUndefined();
    expect(res.data.product).toMatchObject({
      id: ids[0], title: 'Poncho 0', handle: 'poncho-0', descriptionHtml: '<p>0</p>',
      variants: [{ title: 'One', price: 1000, compareAtPrice: 2000, inventoryQuantity: 0 }],
      images: [{ url: 'https://img.example.com/0.jpg', altText: 'Poncho 0' }],
      collections: [],
    });
  });

  it('lists a connection of active products for the storefront, newest first, paged by endCursor', async () => {
    const first = await gql(`{ products(limit: 2) { edges { node { title } cursor } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`);
    expect(first.data.products.edges.map((e: { node: { title: string } }) => e.node.title)).toEqual(['Poncho 3', 'Poncho 2']);
    expect(first.data.products.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const next = await gql(`query($c: String) { products(limit: 2, cursor: $c) { edges { node { title } } pageInfo { hasNextPage } } }`, { c: first.data.products.pageInfo.endCursor });
    expect(next.data.products.edges.map((e: { node: { title: string } }) => e.node.title)).toEqual(['Poncho 0']);
    expect(next.data.products.pageInfo.hasNextPage).toBe(false);
  });

  it('filters by status (admins see drafts; the storefront never does)', async () => {
    const admin = await gql('{ products(filter: {status: draft}) { edges { node { title } } } }', {}, shop.adminToken);
    expect(admin.data.products.edges.map((e: { node: { title: string } }) => e.node.title)).toEqual(['Poncho 1']);
    const store = await gql('{ products(filter: {status: draft}) { edges { node { title } } } }');
    expect(store.data.products.edges).toEqual([]);
    const hidden = await gql(`{ product(id: "${ids[1]}") { id } }`);
    expect(hidden.errors[0].extensions.code).toBe('RESOURCE_NOT_FOUND');
  });

  it('answers VALIDATION_ERROR for bad arguments and UNAUTHENTICATED without a token', async () => {
    expect((await gql('{ products(limit: 0) { edges { cursor } } }')).errors[0].extensions.code).toBe('VALIDATION_ERROR');
    expect((await gql('{ product(id: "nope") { id } }')).errors[0].extensions.code).toBe('VALIDATION_ERROR');
    expect((await gql('{ products(filter: {status: sold}) { edges { cursor } } }')).errors[0].extensions.code).toBe('VALIDATION_ERROR');
    const anon = await t.request({ method: 'POST', url: '/graphql', headers: { 'x-tenant-id': shop.id }, payload: { query: '{ products { edges { cursor } } }' } });
    expect(anon.json().errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('loads variants and collections of a whole page in one statement each (no N+1)', async () => {
    await gql('{ apiVersion }'); // warm the token cache
    const { count, statements } = await t.countQueries(() => gql(`{ products(limit: 50) { edges { node { ${FIELDS} } } } }`));
    // BEGIN with the tenant context, products page, variants of the page, COMMIT; then the batched
    // collections loader in a read of its own: BEGIN with the tenant context, collections, COMMIT
    expect(statements.filter((s) => /catalog_variant/.test(s))).toHaveLength(1);
    expect(statements.filter((s) => /catalog_collection_product/.test(s))).toHaveLength(1);
    expect(count).toBe(7);
  });
});

describe('GraphQL Product.collections', () => {
  it('comes from the collections the product is in; the storefront sees active collections only', async () => {
    const collection = async (title: string, status: string) =>
      (await t.request({ method: 'POST', url: '/api/v1/catalog/collections', headers: shop.headers(), payload: { title, status } })).json().data;
    const winter = await collection('Winter', 'active');
    const secret = await collection('Secret sale', 'draft');
    const gifts = await collection('Gifts', 'active');
    for (const [c, p] of [[winter, ids[0]], [secret, ids[0]], [gifts, ids[0]], [gifts, ids[2]]] as const) {
      const res = await t.request({ method: 'POST', url: `/api/v1/catalog/collections/${c.id}/products`, headers: shop.headers(), payload: { product_id: p } });
      expect(res.statusCode).toBe(201);
    }
    const query = `{ products(limit: 10) { edges { node { id collections { id title } } } } }`;
    const byId = (res: { data: { products: { edges: Array<{ node: { id: string; collections: unknown[] } }> } } }) =>
      Object.fromEntries(res.data.products.edges.map((e) => [e.node.id, e.node.collections]));

    const store = byId(await gql(query));
    expect(store[ids[0]]).toEqual([{ id: winter.id, title: 'Winter' }, { id: gifts.id, title: 'Gifts' }]);
    expect(store[ids[2]]).toEqual([{ id: gifts.id, title: 'Gifts' }]);
    expect(store[ids[3]]).toEqual([]);
    const admin = byId(await gql(query, {}, shop.adminToken));
    expect(admin[ids[0]]).toEqual([{ id: winter.id, title: 'Winter' }, { id: secret.id, title: 'Secret sale' }, { id: gifts.id, title: 'Gifts' }]);
    const one = await gql(`query($id: ID!) { product(id: $id) { collections { title } } }`, { id: ids[2] });
    expect(one.data.product.collections).toEqual([{ title: 'Gifts' }]);
  });
});
