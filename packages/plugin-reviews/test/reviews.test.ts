import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, createProduct, MISSING, outbox, placeOrder, registerCustomer, REVIEWS, reviewsApp, type ProductRef } from './helpers.js';

let t: TestApp;
let shop: TestTenant;
let admin: ReturnType<typeof caller>;
let product: ProductRef;

beforeAll(async () => {
  t = await reviewsApp();
  shop = await t.createTenant();
  admin = caller(t, shop);
  product = await createProduct(t, shop);
});
afterAll(async () => t?.close());

describe('POST /api/v1/reviews', () => {
  it('creates a pending review as the signed-in customer, with the created event', async () => {
    const ana = await registerCustomer(t, shop);
    const res = await caller(t, shop, ana.token)('POST', REVIEWS, { product_id: product.id, customer_id: ana.id, rating: 5, title: 'Warm', body: 'Lovely wool.\nWould buy again.' });
    expect(res.statusCode).toBe(201);
    const review = res.json().data;
    expect(review).toMatchObject({ product_id: product.id, customer_id: ana.id, order_id: null, verified_purchase: false, author_name: 'Ana M.', rating: 5, title: 'Warm', body: 'Lovely wool.\nWould buy again.', status: 'pending', moderated_at: null });
    const [event] = await outbox(t, 'reviews.review.created', review.id);
    expect(event).toMatchObject({ tenant_id: shop.id, source: '/qhatu/reviews', data: { id: review.id, product_id: product.id, rating: 5, status: 'pending', verified_purchase: false } });
  });
});
