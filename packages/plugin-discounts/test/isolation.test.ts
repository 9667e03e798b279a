import { Database } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Coupon, Discounts, Redemption, VolumeDiscount } from '../src/index.js';
import { caller, COUPONS, createCoupon, createProduct, discountsApp, VOLUME, type Caller } from './helpers.js';

let t: TestApp;
let a: TestTenant;
let b: TestTenant;
let asA: Caller;
let asB: Caller;
let bCoupon: { id: string; code: string };
let bTier: { id: string };
let bProduct: { id: string };
beforeAll(async () => {
  t = await discountsApp();
  a = await t.createTenant({ name: 'A' });
  b = await t.createTenant({ name: 'B' });
  asA = caller(t, a);
  asB = caller(t, b);
  await createCoupon(asA, { code: 'SHARED' });
  bCoupon = await createCoupon(asB, { code: 'SHARED', max_uses: 1 }); // codes are unique per tenant, not across tenants
  bProduct = await createProduct(asB, 'B product');
  bTier = (await asB('POST', VOLUME, { product_id: bProduct.id, min_quantity: 2, value: 100 })).json();
  await asB('POST', `${COUPONS}/${bCoupon.id}/apply`, { discount_amount: 5 });
});
afterAll(async () => t?.close());

describe("with tenant A's key, nothing of tenant B's discounts", () => {
  it('can be listed or searched', async () => {
    const listed = (await asA('GET', `${COUPONS}?limit=100`)).json().data;
    expect(listed.map((c: { id: string }) => c.id)).not.toContain(bCoupon.id);
    expect(listed).toHaveLength(1);
    expect((await asA('GET', VOLUME)).json().data).toEqual([]);
    expect((await asA('GET', `${VOLUME}?filter[product_id]=${bProduct.id}`)).json().data).toEqual([]);
  });

  it('can be read, changed, deleted, used or have its uses listed', async () => {
    const url = `${COUPONS}/${bCoupon.id}`;
    for (const [method, path, payload] of [
      ['GET', url, undefined],
      ['PATCH', url, { value: 1 }],
      ['DELETE', url, undefined],
      ['POST', `${url}/apply`, { discount_amount: 1 }],
      ['GET', `${url}/redemptions`, undefined],
      ['DELETE', `${VOLUME}/${bTier.id}`, undefined],
    ] as const) {
      const res = await asA(method, path, payload);
      expect(res.statusCode, `${method} ${path}`).toBe(404);
    }
    const byCode = (await asA('GET', `${COUPONS}/code/shared`)).json().data;
    expect(byCode.id).not.toBe(bCoupon.id);
    const still = (await asB('GET', url)).json().data;
    expect(still).toMatchObject({ value: 1000, uses_count: 1, status: 'exhausted' });
    expect((await asB('GET', VOLUME)).json().data).toHaveLength(1);
  });

  it('is validated against A’s coupons only, and B’s products are not A’s targets', async () => {
    // B's SHARED is used up; A's SHARED still applies.
    expect((await asA('POST', `${COUPONS}/validate`, { code: 'shared', order_amount: 1000 })).json()).toMatchObject({ valid: true, discount_amount: 100 });
    expect((await asB('POST', `${COUPONS}/validate`, { code: 'shared', order_amount: 1000 })).json()).toMatchObject({ valid: false, reason: 'usage_limit_reached' });
    const res = await asA('POST', COUPONS, { code: 'TARGETS', type: 'percentage', value: 100, applicable_to: 'products', applicable_ids: [bProduct.id] });
    expect(res.statusCode).toBe(422);
    expect((await asA('POST', VOLUME, { product_id: bProduct.id, min_quantity: 2, value: 100 })).statusCode).toBe(422);
  });

  it('can be reached with B in X-Tenant-ID', async () => {
    const res = await t.request({ method: 'GET', url: `${COUPONS}/${bCoupon.id}`, headers: { authorization: `Bearer ${a.adminToken}`, 'x-tenant-id': b.id } });
    expect(res.statusCode).toBe(403);
  });

  it('is visible even with the ORM tenant filter switched off: row-level security holds', async () => {
    const db = t.app.container.resolve(Database);
    const seen = await db.tenant(async ({ em }) => ({
      coupons: await em.find(Coupon, {}, { filters: false }),
      redemptions: await em.find(Redemption, {}, { filters: false }),
      tiers: await em.find(VolumeDiscount, {}, { filters: false }),
    }), a.id);
    expect(seen.coupons.map((c) => c.tenantId)).toEqual([a.id]);
    expect(seen.redemptions).toEqual([]);
    expect(seen.tiers).toEqual([]);
  });

  it('is found by the Discounts service running for A', async () => {
    const db = t.app.container.resolve(Database);
    const discounts = t.app.container.resolve(Discounts);
    const found = await db.tenant((tx) => discounts.findByCode(tx, 'shared'), a.id);
    expect(found?.tenantId).toBe(a.id);
    await expect(db.tenant((tx) => discounts.recordUse(tx, bCoupon.id, { amount: 1 }), a.id)).rejects.toMatchObject({ code: 'COUPON_NOT_FOUND' });
  });
});
