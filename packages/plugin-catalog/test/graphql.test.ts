import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import catalog from '../src/index.js';

let t: TestApp;
let shop: TestTenant;
const ids: string[] = [];
beforeAll(async () => {
  t = await createTestApp({ plugins: [catalog] });
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

  it('loads variants of a whole page in one statement (no N+1)', async () => {
    await gql('{ apiVersion }'); // warm the token cache
    const { count, statements } = await t.countQueries(() => gql(`{ products(limit: 50) { edges { node { ${FIELDS} } } } }`));
    // BEGIN, tenant context, products page, variants of the page, COMMIT
    expect(statements.filter((s) => /catalog_variant/.test(s))).toHaveLength(1);
    expect(count).toBeLessThanOrEqual(5);
  });
});
