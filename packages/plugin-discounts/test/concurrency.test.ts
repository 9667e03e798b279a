import { randomUUID } from 'node:crypto';
import { Database, isAppError } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Discounts } from '../src/index.js';
import { caller, COUPONS, createCoupon, discountsApp, type Caller } from './helpers.js';

let t: TestApp;
let shop: TestTenant;
let api: Caller;
beforeAll(async () => {
  // Enough connections for the applies to really run side by side.
  t = await discountsApp({ DATABASE_POOL_MAX: '16' });
  shop = await t.createTenant();
  api = caller(t, shop);
});
afterAll(async () => t?.close());

const apply = (id: string, payload: Record<string, unknown> = {}) => api('POST', `${COUPONS}/${id}/apply`, { discount_amount: 100, ...payload });

async function redemptionRows(couponId: string) {
  return t.app.orm.em
    .getConnection()
    .execute<Array<{ customer_id: string | null; order_id: string | null }>>('select customer_id, order_id from discounts_redemption where coupon_id = ?', [couponId]);
}

function tally(responses: Array<{ statusCode: number; json(): any }>) {
  const ok = responses.filter((r) => r.statusCode === 200);
  const refused = responses.filter((r) => r.statusCode !== 200);
  return { ok, refused, reasons: [...new Set(refused.map((r) => `${r.statusCode} ${r.json().error.code} ${r.json().error.details[0]?.reason ?? ''}`.trim()))] };
}

describe('max_uses under concurrency', () => {
  it('30 applies at once on a coupon with max_uses 7: exactly 7 succeed and 7 uses are recorded', async () => {
    const coupon = await createCoupon(api, { max_uses: 7 });
    const responses = await Promise.all(Array.from({ length: 30 }, (_, i) => apply(coupon.id, { order_id: randomUUID(), customer_id: randomUUID(), discount_amount: 100 + i })));
    const { ok, refused, reasons } = tally(responses);
    expect(ok).toHaveLength(7);
    expect(refused).toHaveLength(23);
    expect(reasons).toEqual(['422 COUPON_INVALID usage_limit_reached']);
    expect(ok.map((r) => r.json().uses_count).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7]);

    const read = (await api('GET', `${COUPONS}/${coupon.id}`)).json().data;
    expect(read).toMatchObject({ uses_count: 7, status: 'exhausted' });
    expect(await redemptionRows(coupon.id)).toHaveLength(7);
    const listed = (await api('GET', `${COUPONS}/${coupon.id}/redemptions?limit=100`)).json().data;
    expect(listed.map((r: { id: string }) => r.id).sort()).toEqual(ok.map((r) => r.json().redemption_id).sort());
  });

  it('holds for the checkout path too: Discounts.apply in the caller’s transactions', async () => {
    const coupon = await createCoupon(api, { type: 'fixed_amount', value: 500, max_uses: 4 });
    const db = t.app.container.resolve(Database);
    const discounts = t.app.container.resolve(Discounts);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, () =>
        db.tenant((tx) => discounts.apply(tx, { code: coupon.code.toLowerCase(), orderAmount: 2000, orderId: randomUUID(), customerEmail: `${randomUUID()}@example.com` }), shop.id),
      ),
    );
    const fulfilled = outcomes.filter((o) => o.status === 'fulfilled');
    const rejected = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(fulfilled).toHaveLength(4);
    expect(fulfilled.every((o) => o.value.discountAmount === 500)).toBe(true);
    expect(rejected.every((o) => isAppError(o.reason) && o.reason.code === 'COUPON_INVALID' && o.reason.details[0].reason === 'usage_limit_reached')).toBe(true);
    expect(await redemptionRows(coupon.id)).toHaveLength(4);
  });
});

describe('max_uses_per_customer under concurrency', () => {
  it('20 applies at once by one customer on a coupon limited to 2 per customer: exactly 2 succeed', async () => {
    const coupon = await createCoupon(api, { max_uses_per_customer: 2 });
    const customer = randomUUID();
    const responses = await Promise.all(Array.from({ length: 20 }, () => apply(coupon.id, { customer_id: customer, order_id: randomUUID() })));
    const { ok, reasons } = tally(responses);
    expect(ok).toHaveLength(2);
    expect(reasons).toEqual(['422 COUPON_INVALID customer_usage_limit_reached']);
    expect(await redemptionRows(coupon.id)).toHaveLength(2);
    // Another customer is not held back by the first one's uses.
    expect((await apply(coupon.id, { customer_id: randomUUID() })).statusCode).toBe(200);
  });

  it('counts a customer by e-mail whatever its case, and by id or e-mail when both are sent', async () => {
    const coupon = await createCoupon(api, { max_uses_per_customer: 1 });
    const responses = await Promise.all(
      ['Ana@Example.com', 'ana@example.com', 'ANA@EXAMPLE.COM', ' ana@example.com'].map((email) => apply(coupon.id, { customer_email: email.trim() })),
    );
    expect(tally(responses).ok).toHaveLength(1);
    const id = randomUUID();
    expect((await apply(coupon.id, { customer_id: id })).statusCode).toBe(200);
    const both = await apply(coupon.id, { customer_id: randomUUID(), customer_email: 'ana@example.com' });
    expect(both.json().error.details[0].reason).toBe('customer_usage_limit_reached');
  });

  it('with both limits: 10 customers trying 3 times each on max_uses 5 and 1 per customer → 5 uses by 5 different customers', async () => {
    const coupon = await createCoupon(api, { max_uses: 5, max_uses_per_customer: 1 });
    const customers = Array.from({ length: 10 }, () => randomUUID());
    const responses = await Promise.all(customers.flatMap((c) => [1, 2, 3].map(() => apply(coupon.id, { customer_id: c }))));
    const { ok, reasons } = tally(responses);
    expect(ok).toHaveLength(5);
    expect(reasons.every((r) => ['422 COUPON_INVALID customer_usage_limit_reached', '422 COUPON_INVALID usage_limit_reached'].includes(r))).toBe(true);
    expect(reasons).toContain('422 COUPON_INVALID usage_limit_reached');
    const rows = await redemptionRows(coupon.id);
    expect(rows).toHaveLength(5);
    expect(new Set(rows.map((r) => r.customer_id)).size).toBe(5);
  });
});

describe('one order, one use', () => {
  it('10 applies at once for the same order: 1 succeeds, the rest are 409 COUPON_ALREADY_APPLIED', async () => {
    const coupon = await createCoupon(api);
    const order = randomUUID();
    const responses = await Promise.all(Array.from({ length: 10 }, () => apply(coupon.id, { order_id: order })));
    const { ok, reasons } = tally(responses);
    expect(ok).toHaveLength(1);
    expect(reasons).toEqual(['409 COUPON_ALREADY_APPLIED']);
    expect((await api('GET', `${COUPONS}/${coupon.id}`)).json().data.uses_count).toBe(1);
  });
});
