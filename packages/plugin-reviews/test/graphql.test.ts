import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, createProduct, MISSING, placeOrder, registerCustomer, REVIEWS, reviewsApp, type ProductRef } from './helpers.js';

let t: TestApp;
let shop: TestTenant;
let product: ProductRef;

const CREATE = `mutation Create($input: CreateReviewInput!) { createReview(input: $input) { id rating status } }`;

function gql(headers: Record<string, string>, query: string, variables?: Record<string, unknown>) {
  return t.request({ method: 'POST', url: '/graphql', headers, payload: { query, variables } });
}

beforeAll(async () => {
  t = await reviewsApp();
  shop = await t.createTenant();
  product = await createProduct(t, shop);
});
afterAll(async () => t?.close());

describe('GraphQL createReview', () => {
  it("writes a pending review as the signed-in customer and answers id, rating and status", async () => {
    const ana = await registerCustomer(t, shop);
    const res = await gql(shop.headers(ana.token), CREATE, { input: { productId: product.id, rating: 5, title: '<b>Great</b>', body: 'Warm <script>alert(1)</script>and soft' } });
    expect(res.json().errors).toBeUndefined();
    const review = res.json().data.createReview;
    expect(review).toEqual({ id: expect.any(String), rating: 5, status: 'pending' });
    const stored = (await caller(t, shop)('GET', `/admin/reviews/${review.id}`)).json().data;
    expect(stored).toMatchObject({ customer_id: ana.id, product_id: product.id, title: 'Great', body: 'Warm and soft', status: 'pending' });
  });

  it('takes an orderId that proves the purchase', async () => {
    const ana = await registerCustomer(t, shop);
    const order = await placeOrder(t, shop, ana.email, [product.variantId]);
    const res = await gql(shop.headers(ana.token), `mutation($input: CreateReviewInput!) { createReview(input: $input) { id status verifiedPurchase } }`, {
      input: { productId: product.id, rating: 4, orderId: order.id },
    });
    expect(res.json().data.createReview).toMatchObject({ status: 'pending', verifiedPurchase: true });
  });

  it('is UNAUTHENTICATED without a customer: no token, a bad token, the storefront key, an admin key', async () => {
    const cases: Array<Record<string, string>> = [
      { 'x-tenant-id': shop.id },
      shop.headers('qhc_not-a-real-token'),
      shop.headers(shop.storefrontToken),
      shop.headers(),
    ];
    const pendingCount = async () => (await caller(t, shop)('GET', `/admin/reviews?filter[product_id]=${product.id}&limit=100`)).json().data.length;
    const before = await pendingCount();
    for (const headers of cases) {
      const res = await gql(headers, CREATE, { input: { productId: product.id, rating: 5 } });
      expect(res.json().data).toBeNull();
      expect(res.json().errors[0].extensions.code).toBe('UNAUTHENTICATED');
    }
    expect(await pendingCount()).toBe(before);
  });

  it.each([0, 6, -1, 100])('answers a rating of %s with VALIDATION_ERROR and writes nothing', async (rating) => {
    const ana = await registerCustomer(t, shop);
    const res = await gql(shop.headers(ana.token), CREATE, { input: { productId: product.id, rating } });
    expect(res.json().data).toBeNull();
    const [error] = res.json().errors;
    expect(error.extensions.code).toBe('VALIDATION_ERROR');
    expect(error.message).toContain('input.rating');
    expect((await caller(t, shop)('GET', `/admin/reviews?filter[customer_id]=${ana.id}`)).json().data).toEqual([]);
  });

  it('answers other bad input with VALIDATION_ERROR: a fractional rating, a product id that is no UUID, a missing rating', async () => {
    const ana = await registerCustomer(t, shop);
    for (const input of [{ productId: product.id, rating: 4.5 }, { productId: 'poncho', rating: 4 }, { productId: product.id }, { productId: product.id, rating: 4, title: 'x'.repeat(201) }]) {
      const res = await gql(shop.headers(ana.token), CREATE, { input });
      expect(res.json().errors[0].extensions.code, JSON.stringify(input)).toBe('VALIDATION_ERROR');
    }
  });

  it("answers a product the store does not have with RESOURCE_NOT_FOUND, and a second review with REVIEW_ALREADY_EXISTS", async () => {
    const ana = await registerCustomer(t, shop);
    const other = await t.createTenant();
    const theirs = await createProduct(t, other);
    for (const productId of [MISSING, theirs.id]) {
      const res = await gql(shop.headers(ana.token), CREATE, { input: { productId, rating: 5 } });
      expect(res.json().errors[0]).toMatchObject({ message: `Product ${productId} is not a product of this store`, extensions: { code: 'RESOURCE_NOT_FOUND' } });
    }
    expect((await gql(shop.headers(ana.token), CREATE, { input: { productId: product.id, rating: 5 } })).json().errors).toBeUndefined();
    const twice = await gql(shop.headers(ana.token), CREATE, { input: { productId: product.id, rating: 5 } });
    expect(twice.json().errors[0]).toMatchObject({ message: 'This customer has already reviewed this product', extensions: { code: 'REVIEW_ALREADY_EXISTS' } });
  });

  it('shows the review through REST once approved', async () => {
    const ana = await registerCustomer(t, shop);
    const fresh = await createProduct(t, shop);
    const { id } = (await gql(shop.headers(ana.token), CREATE, { input: { productId: fresh.id, rating: 3, body: 'Fine' } })).json().data.createReview;
    await caller(t, shop)('POST', `/admin/reviews/${id}/approve`);
    const listed = (await caller(t, shop, shop.storefrontToken)('GET', `${REVIEWS}/products/${fresh.id}`)).json().data;
    expect(listed.map((r: { id: string; body: string }) => [r.id, r.body])).toEqual([[id, 'Fine']]);
  });
});
