import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, createCustomer, createProduct, REVIEWS, reviewsApp } from './helpers.js';

/**
 * The rating is a summary row moved in each moderation's transaction. Under many moderations at
 * once (approvals, and removals of approved reviews, of the same product) it must equal what the
 * reviews themselves say.
 */

let t: TestApp;
let shop: TestTenant;
let admin: ReturnType<typeof caller>;

beforeAll(async () => {
  t = await reviewsApp();
  shop = await t.createTenant();
  admin = caller(t, shop);
});
afterAll(async () => t?.close());

async function reviewsOf(productId: string, count: number): Promise<Array<{ id: string; rating: number }>> {
  const created: Array<{ id: string; rating: number }> = [];
  for (let i = 0; i < count; i++) {
    const rating = (i % 5) + 1;
    const res = await admin('POST', REVIEWS, { product_id: productId, customer_id: await createCustomer(t, shop), rating });
    created.push({ id: res.json().data.id, rating });
  }
  return created;
}

/** What the reviews table says, counted by the database. */
async function truth(productId: string) {
  const [row] = await t.app.orm.em.getConnection().execute<Array<{ total: string; sum: string | null }>>(
    `select count(*) as total, sum(rating) as sum from reviews_review where tenant_id = ? and product_id = ? and status = 'approved'`,
    [shop.id, productId],
  );
  const total = Number(row.total);
  return { total, avg: total === 0 ? 0 : Math.round((Number(row.sum) / total) * 100) / 100 };
}

describe('the rating under concurrent moderation', () => {
  it('counts every one of 40 approvals sent at once', async () => {
    const product = await createProduct(t, shop);
    const reviews = await reviewsOf(product.id, 40);
    const answers = await Promise.all(reviews.map((r) => admin('POST', `/admin/reviews/${r.id}/approve`)));
    expect(answers.map((a) => a.statusCode)).toEqual(reviews.map(() => 200));
    const summary = (await admin('GET', `${REVIEWS}/products/${product.id}/rating`)).json();
    expect(summary).toEqual({ product_id: product.id, avg_rating: 3, total_reviews: 40 });
    expect(await truth(product.id)).toEqual({ total: 40, avg: 3 });
  });

  it('counts each review once when the same approval is sent many times at once (one 200, the rest 409)', async () => {
    const product = await createProduct(t, shop);
    const [review] = await reviewsOf(product.id, 1);
    const answers = await Promise.all(Array.from({ length: 8 }, () => admin('POST', `/admin/reviews/${review.id}/approve`)));
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    expect((await admin('GET', `${REVIEWS}/products/${product.id}/rating`)).json()).toMatchObject({ total_reviews: 1, avg_rating: 1 });
  });

  it('stays exact under approvals, unapprovals, rejections and deletions mixed at once', async () => {
    const product = await createProduct(t, shop);
    const reviews = await reviewsOf(product.id, 30);
    // The first 15 approved beforehand; then each review gets one move, all at once.
    await Promise.all(reviews.slice(0, 15).map((r) => admin('POST', `/admin/reviews/${r.id}/approve`)));
    const moves = reviews.map((r, i) => {
      if (i < 5) return admin('POST', `/admin/reviews/${r.id}/unapprove`);
      if (i < 10) return admin('POST', `/admin/reviews/${r.id}/reject`);
      if (i < 15) return admin('DELETE', `/admin/reviews/${r.id}`);
      if (i < 25) return admin('POST', `/admin/reviews/${r.id}/approve`);
      return admin('POST', `/admin/reviews/${r.id}/reject`);
    });
    const answers = await Promise.all(moves);
    expect(answers.every((a) => a.statusCode === 200 || a.statusCode === 204)).toBe(true);
    const expected = await truth(product.id);
    expect(expected.total).toBe(10);
    const summary = (await admin('GET', `${REVIEWS}/products/${product.id}/rating`)).json();
    expect(summary).toEqual({ product_id: product.id, avg_rating: expected.avg, total_reviews: expected.total });
  });
});
