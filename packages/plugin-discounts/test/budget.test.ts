import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, COUPONS, createCoupon, createProduct, discountsApp, type Caller } from './helpers.js';

let t: TestApp;
let shop: TestTenant;
let api: Caller;
beforeAll(async () => {
  t = await discountsApp();
  shop = await t.createTenant();
  api = caller(t, shop);
  await api('GET', COUPONS); // the token is cached from here on
});
afterAll(async () => t?.close());

const count = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
  t.countQueries(() => t.request({ method, url, headers: shop.headers(), payload: payload as never }));

describe('SQL statements per request (hot paths of the cart and checkout)', () => {
  it('validates a coupon for everyone in 3: BEGIN with the tenant context, coupon, COMMIT', async () => {
    const c = await createCoupon(api);
    const { count: n, statements, result } = await count('POST', `${COUPONS}/validate`, { code: c.code, order_amount: 1000 });
    expect(result.json().valid).toBe(true);
    expect(n, statements.join('\n')).toBeLessThanOrEqual(3);
  });

  it('validates a per-customer collection coupon in 5 (its uses, the collection memberships)', async () => {
    const p = await createProduct(api);
    const coll = (await api('POST', '/api/v1/catalog/collections', { title: 'Budget' })).json().data;
    await api('POST', `/api/v1/catalog/collections/${coll.id}/products`, { product_id: p.id });
    const c = await createCoupon(api, { applicable_to: 'collections', applicable_ids: [coll.id], max_uses_per_customer: 2 });
    const { count: n, statements, result } = await count('POST', `${COUPONS}/validate`, {
      code: c.code, order_amount: 1000, customer_email: 'a@b.co', items: [{ product_id: p.id, quantity: 1, unit_price: 1000 }],
    });
    expect(result.json()).toMatchObject({ valid: true, discount_amount: 100 });
    expect(n, statements.join('\n')).toBeLessThanOrEqual(5);
  });

  it('applies a coupon in at most 7: lock, order check, conditional increment, redemption and event', async () => {
    const c = await createCoupon(api, { max_uses: 10 });
    const { count: n, statements, result } = await count('POST', `${COUPONS}/${c.id}/apply`, { discount_amount: 10, order_id: '00000000-0000-4000-8000-00000000000a' });
    expect(result.statusCode).toBe(200);
    expect(statements.some((s) => /for update/i.test(s))).toBe(true);
    expect(statements.some((s) => /uses_count = uses_count \+ 1/.test(s))).toBe(true);
    expect(n, statements.join('\n')).toBeLessThanOrEqual(7);
  });
});
