import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, createCustomer, createProduct, MISSING, outbox, registerCustomer, REVIEWS, reviewsApp, type ProductRef } from './helpers.js';

let t: TestApp;
let shop: TestTenant;
let admin: ReturnType<typeof caller>;
let storefront: ReturnType<typeof caller>;

beforeAll(async () => {
  t = await reviewsApp();
  shop = await t.createTenant();
  admin = caller(t, shop);
  storefront = caller(t, shop, shop.storefrontToken);
});
afterAll(async () => t?.close());

/** A pending review of `product` by a new customer. */
async function pending(product: ProductRef, rating = 4): Promise<string> {
  const res = await admin('POST', REVIEWS, { product_id: product.id, customer_id: await createCustomer(t, shop), rating, title: `Rated ${rating}` });
  if (res.statusCode !== 201) throw new Error(res.body);
  return res.json().data.id;
}

const rating = async (productId: string) => (await storefront('GET', `${REVIEWS}/products/${productId}/rating`)).json();
const move = (id: string, action: string) => admin('POST', `/admin/reviews/${id}/${action}`);

describe('moderation', () => {
  it('approve, unapprove, reject and approve again; each move its event; the rating follows', async () => {
    const product = await createProduct(t, shop);
    const id = await pending(product, 4);
    expect(await rating(product.id)).toEqual({ product_id: product.id, avg_rating: 0, total_reviews: 0 });

    const approved = await move(id, 'approve');
    expect(approved.statusCode).toBe(200);
    expect(approved.json().data).toMatchObject({ id, status: 'approved' });
    expect(approved.json().data.moderated_at).not.toBeNull();
    expect(await rating(product.id)).toEqual({ product_id: product.id, avg_rating: 4, total_reviews: 1 });

    const back = await move(id, 'unapprove');
    expect(back.json().data.status).toBe('pending');
    expect(await rating(product.id)).toEqual({ product_id: product.id, avg_rating: 0, total_reviews: 0 });

    expect((await move(id, 'reject')).json().data.status).toBe('rejected');
    expect((await move(id, 'approve')).json().data.status).toBe('approved');
    expect((await move(id, 'reject')).json().data.status).toBe('rejected');
    expect(await rating(product.id)).toMatchObject({ total_reviews: 0 });

    for (const [type, count] of [['approved', 2], ['unapproved', 1], ['rejected', 2]] as const) {
      const events = await outbox(t, `reviews.review.${type}`, id);
      expect(events).toHaveLength(count);
      expect(events[0]).toMatchObject({ tenant_id: shop.id, source: '/qhatu/reviews', data: { id, product_id: product.id, rating: 4 } });
    }
    expect((await outbox(t, 'reviews.review.approved', id))[0].data.status).toBe('approved');
  });

  it.each([
    ['approve', 'approved', 'Cannot approve a review that is approved'],
    ['unapprove', 'pending', 'Cannot unapprove a review that is pending'],
    ['reject', 'rejected', 'Cannot reject a review that is rejected'],
    ['unapprove', 'rejected', 'Cannot unapprove a review that is rejected'],
  ])('refuses %s of a review that is %s with 409 INVALID_STATE_TRANSITION', async (action, state, message) => {
    const product = await createProduct(t, shop);
    const id = await pending(product);
    if (state === 'approved') await move(id, 'approve');
    if (state === 'rejected') await move(id, 'reject');
    const res = await move(id, action);
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({ code: 'INVALID_STATE_TRANSITION', message });
    expect((await admin('GET', `/admin/reviews/${id}`)).json().data.status).toBe(state);
  });

  it('rating averages the approved reviews only, to two decimals', async () => {
    const product = await createProduct(t, shop);
    const ids = [await pending(product, 5), await pending(product, 4), await pending(product, 5), await pending(product, 1)];
    for (const id of ids.slice(0, 3)) await move(id, 'approve');
    await move(ids[3], 'reject');
    expect(await rating(product.id)).toEqual({ product_id: product.id, avg_rating: 4.67, total_reviews: 3 });
  });

  it('DELETE removes a review in any state (204); an approved one leaves the rating; the deleted event', async () => {
    const product = await createProduct(t, shop);
    const kept = await pending(product, 2);
    const gone = await pending(product, 5);
    const waiting = await pending(product, 3);
    await move(kept, 'approve');
    await move(gone, 'approve');
    expect(await rating(product.id)).toMatchObject({ avg_rating: 3.5, total_reviews: 2 });
    const res = await admin('DELETE', `/admin/reviews/${gone}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(await rating(product.id)).toEqual({ product_id: product.id, avg_rating: 2, total_reviews: 1 });
    expect((await admin('DELETE', `/admin/reviews/${waiting}`)).statusCode).toBe(204);
    expect(await rating(product.id)).toMatchObject({ total_reviews: 1 });
    expect((await admin('GET', `/admin/reviews/${gone}`)).statusCode).toBe(404);
    const again = await admin('DELETE', `/admin/reviews/${gone}`);
    expect(again.statusCode).toBe(404);
    expect(again.json().error.code).toBe('REVIEW_NOT_FOUND');
    const [event] = await outbox(t, 'reviews.review.deleted', gone);
    expect(event.data).toMatchObject({ id: gone, product_id: product.id, status: 'approved' });
    expect(typeof event.data.deleted_at).toBe('string');
  });

  it("a deleted product's reviews and rating go with it", async () => {
    const product = await createProduct(t, shop);
    const id = await pending(product, 5);
    await move(id, 'approve');
    await admin('POST', `/admin/catalog/products/${product.id}/review-settings`, { field: 'visible', value: 'false' });
    expect((await admin('DELETE', `/api/v1/catalog/products/${product.id}`)).statusCode).toBe(204);
    expect((await admin('GET', `/admin/reviews/${id}`)).statusCode).toBe(404);
    expect((await admin('GET', `/admin/reviews?filter[product_id]=${product.id}`)).json().data).toEqual([]);
    expect((await admin('GET', `${REVIEWS}/products/${product.id}/rating`)).statusCode).toBe(404);
  });

  it('answers an unknown review with 404 REVIEW_NOT_FOUND and a malformed id with 400', async () => {
    for (const action of ['approve', 'reject', 'unapprove']) {
      const res = await move(MISSING, action);
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('REVIEW_NOT_FOUND');
      expect((await move('not-a-uuid', action)).json().error.code).toBe('VALIDATION_ERROR');
    }
    expect((await admin('DELETE', '/admin/reviews/not-a-uuid')).statusCode).toBe(400);
  });

  it('is for admin keys only', async () => {
    const product = await createProduct(t, shop);
    const id = await pending(product);
    const customer = await registerCustomer(t, shop);
    for (const token of [shop.storefrontToken, customer.token]) {
      for (const [method, url] of [['POST', `/admin/reviews/${id}/approve`], ['DELETE', `/admin/reviews/${id}`], ['GET', `/admin/reviews/${id}`], ['GET', '/admin/reviews']] as const) {
        const res = await caller(t, shop, token)(method, url);
        expect(res.statusCode).toBe(403);
        expect(res.json().error.code).toBe('FORBIDDEN');
      }
    }
    const none = await t.request({ method: 'POST', url: `/admin/reviews/${id}/approve`, headers: { 'x-tenant-id': shop.id } });
    expect(none.statusCode).toBe(401);
    expect((await admin('GET', `/admin/reviews/${id}`)).json().data.status).toBe('pending');
  });
});

describe("a product's reviews", () => {
  it('lists approved reviews to the storefront, newest first, a page at a time', async () => {
    const product = await createProduct(t, shop);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await pending(product, 5));
    for (const id of ids.slice(0, 4)) await move(id, 'approve');
    const first = await storefront('GET', `${REVIEWS}/products/${product.id}?limit=3`);
    expect(first.statusCode).toBe(200);
    const page1 = first.json();
    expect(page1.data).toHaveLength(3);
    expect(page1.meta.pagination).toMatchObject({ has_next: true, limit: 3 });
    const second = (await storefront('GET', `${REVIEWS}/products/${product.id}?limit=3&cursor=${page1.meta.pagination.cursor}`)).json();
    expect(second.data).toHaveLength(1);
    expect(second.meta.pagination).toMatchObject({ has_next: false, cursor: null });
    const listed = [...page1.data, ...second.data].map((r: { id: string }) => r.id);
    expect(listed).toEqual(ids.slice(0, 4).reverse());
    const oldest = (await storefront('GET', `${REVIEWS}/products/${product.id}?sort=created_at`)).json().data.map((r: { id: string }) => r.id);
    expect(oldest).toEqual(ids.slice(0, 4));
  });

  it('shows pending and rejected reviews to admin keys only', async () => {
    const product = await createProduct(t, shop);
    const waiting = await pending(product);
    const refused = await pending(product);
    await move(refused, 'reject');
    expect((await admin('GET', `${REVIEWS}/products/${product.id}?status=pending`)).json().data.map((r: { id: string }) => r.id)).toEqual([waiting]);
    expect((await admin('GET', `${REVIEWS}/products/${product.id}?status=rejected`)).json().data.map((r: { id: string }) => r.id)).toEqual([refused]);
    expect((await admin('GET', `${REVIEWS}/products/${product.id}`)).json().data).toEqual([]);
    const customer = await registerCustomer(t, shop);
    for (const token of [shop.storefrontToken, customer.token]) {
      for (const status of ['pending', 'rejected']) {
        const res = await caller(t, shop, token)('GET', `${REVIEWS}/products/${product.id}?status=${status}`);
        expect(res.statusCode).toBe(403);
        expect(res.json().error.code).toBe('FORBIDDEN');
      }
    }
  });

  it('answers a bad query with 400 and an unknown or unlisted product with 404', async () => {
    const product = await createProduct(t, shop);
    for (const query of ['status=deleted', 'limit=0', 'limit=abc', 'cursor=%%%', 'sort=rating', 'filter[status]=approved']) {
      const res = await storefront('GET', `${REVIEWS}/products/${product.id}?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
    expect((await storefront('GET', `${REVIEWS}/products/${product.id}?limit=500`)).json().meta.pagination.limit).toBe(100);
    for (const url of [`${REVIEWS}/products/${MISSING}`, `${REVIEWS}/products/${MISSING}/rating`]) {
      const res = await storefront('GET', url);
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('PRODUCT_NOT_FOUND');
    }
    const draft = await createProduct(t, shop, { status: 'draft' });
    expect((await storefront('GET', `${REVIEWS}/products/${draft.id}`)).statusCode).toBe(404);
    expect((await storefront('GET', `${REVIEWS}/products/${draft.id}/rating`)).statusCode).toBe(404);
    expect((await admin('GET', `${REVIEWS}/products/${draft.id}/rating`)).statusCode).toBe(200);
    expect((await storefront('GET', `${REVIEWS}/products/not-a-uuid`)).statusCode).toBe(400);
  });

  it('GET /admin/reviews: the moderation queue by status, product and customer', async () => {
    const product = await createProduct(t, shop);
    const a = await pending(product);
    const b = await pending(product);
    await move(b, 'approve');
    const queue = (await admin('GET', `/admin/reviews?filter[status]=pending&filter[product_id]=${product.id}`)).json();
    expect(queue.data.map((r: { id: string }) => r.id)).toEqual([a]);
    const all = (await admin('GET', `/admin/reviews?filter[product_id]=${product.id}&sort=created_at`)).json();
    expect(all.data.map((r: { id: string }) => r.id)).toEqual([a, b]);
    expect((await admin('GET', '/admin/reviews?filter[status]=gone')).statusCode).toBe(400);
  });

  it('reads a page and its rating within a statement budget', async () => {
    const product = await createProduct(t, shop);
    for (let i = 0; i < 3; i++) await move(await pending(product, 3), 'approve');
    await storefront('GET', `${REVIEWS}/products/${product.id}`); // the key's lookup is cached from here on
    const page = await t.countQueries(() => storefront('GET', `${REVIEWS}/products/${product.id}`));
    expect(page.result.json().data).toHaveLength(3);
    // The catalog's product read (one round trip: begin, the product with its variants, commit), then ours (begin, settings, page, commit).
    expect(page.count).toBe(5);
    const summary = await t.countQueries(() => storefront('GET', `${REVIEWS}/products/${product.id}/rating`));
    expect(summary.result.json()).toMatchObject({ avg_rating: 3, total_reviews: 3 });
    expect(summary.count).toBe(5);
    // Admins skip the settings.
    await admin('GET', `${REVIEWS}/products/${product.id}/rating`);
    expect((await t.countQueries(() => admin('GET', `${REVIEWS}/products/${product.id}/rating`))).count).toBe(4);
  });
});

describe('tenant isolation', () => {
  it("another store's reviews, products and customers are unknown", async () => {
    const other = await t.createTenant();
    const otherAdmin = caller(t, other);
    const product = await createProduct(t, shop);
    const id = await pending(product, 5);
    await move(id, 'approve');
    const theirCustomer = await registerCustomer(t, other);
    const theirProduct = await createProduct(t, other);

    for (const action of ['approve', 'reject', 'unapprove']) {
      const res = await otherAdmin('POST', `/admin/reviews/${id}/${action}`);
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('REVIEW_NOT_FOUND');
    }
    expect((await otherAdmin('DELETE', `/admin/reviews/${id}`)).statusCode).toBe(404);
    expect((await otherAdmin('GET', `/admin/reviews/${id}`)).statusCode).toBe(404);
    expect((await otherAdmin('GET', '/admin/reviews')).json().data).toEqual([]);
    expect((await otherAdmin('GET', `${REVIEWS}/products/${product.id}`)).statusCode).toBe(404);
    expect((await otherAdmin('GET', `${REVIEWS}/products/${product.id}/rating`)).statusCode).toBe(404);

    // References in a body: another store's product or customer is a 422 like any unknown one.
    const ourCustomer = await registerCustomer(t, shop);
    const crossProduct = await admin('POST', REVIEWS, { product_id: theirProduct.id, customer_id: ourCustomer.id, rating: 5 });
    expect(crossProduct.statusCode).toBe(422);
    expect(crossProduct.json().error.code).toBe('PRODUCT_NOT_FOUND');
    const crossCustomer = await admin('POST', REVIEWS, { product_id: product.id, customer_id: theirCustomer.id, rating: 5 });
    expect(crossCustomer.statusCode).toBe(422);
    expect(crossCustomer.json().error.code).toBe('CUSTOMER_NOT_FOUND');
    // A customer token of the other store is refused here.
    const crossToken = await caller(t, shop, theirCustomer.token)('POST', REVIEWS, { product_id: product.id, customer_id: theirCustomer.id, rating: 5 });
    expect(crossToken.statusCode).toBe(403);
    expect(crossToken.json().error.message).toBe('The token does not belong to the tenant named in X-Tenant-ID');

    expect((await admin('GET', `/admin/reviews/${id}`)).json().data.status).toBe('approved');
    expect(await rating(product.id)).toMatchObject({ total_reviews: 1 });
  });
});
