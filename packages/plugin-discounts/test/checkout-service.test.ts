import { randomUUID } from 'node:crypto';
import { Database } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Discounts } from '../src/index.js';
import { caller, COUPONS, createCollection, createCoupon, createProduct, discountsApp, type Caller } from './helpers.js';

let t: TestApp;
let shop: TestTenant;
let api: Caller;
let db: Database;
let discounts: Discounts;
beforeAll(async () => {
  t = await discountsApp();
  shop = await t.createTenant();
  api = caller(t, shop);
  db = t.app.container.resolve(Database);
  discounts = t.app.container.resolve(Discounts);
});
afterAll(async () => t?.close());

const inShop = <T>(work: Parameters<Database['tenant']>[0]) => db.tenant(work, shop.id) as Promise<T>;
const usesOf = async (id: string) => (await api('GET', `${COUPONS}/${id}`)).json().data.uses_count as number;

describe('Discounts in the checkout’s own transaction', () => {
  it('apply computes the discount from the lines and records it with the order', async () => {
    const scarf = await createProduct(api, 'Scarf');
    const c = await createCoupon(api, { value: 2500, applicable_to: 'products', applicable_ids: [scarf.id] });
    const order = randomUUID();
    const applied = await inShop<{ discountAmount: number; coupon: Record<string, unknown>; redemption: { orderId: string; amount: number } }>((tx) =>
      discounts.apply(tx, {
        code: c.code.toLowerCase(),
        orderAmount: 9000,
        currency: 'USD',
        customerEmail: 'Dora@example.com',
        orderId: order,
        items: [{ productId: scarf.id, quantity: 3, unitPrice: 1000 }, { productId: randomUUID(), quantity: 1, unitPrice: 6000 }],
      }),
    );
    expect(applied.discountAmount).toBe(750);
    // The coupon handed back is the row as the increment left it, typed as the entity says.
    expect(applied.coupon).toMatchObject({ id: c.id, usesCount: 1, value: 2500, minOrderAmount: 0, applicableIds: [scarf.id], isActive: true });
    expect(applied.coupon.updatedAt).toBeInstanceOf(Date);
    expect(applied.redemption).toMatchObject({ orderId: order, amount: 750, customerEmail: 'dora@example.com' });
    expect((await api('GET', `${COUPONS}/${c.id}/redemptions`)).json().data).toMatchObject([{ order_id: order, amount: 750 }]);
  });

  it('a use rolls back with the order that made it: no use, no redemption, no event', async () => {
    const c = await createCoupon(api, { max_uses: 1 });
    const order = randomUUID();
    await expect(
      inShop(async (tx) => {
        await discounts.apply(tx, { code: c.code, orderAmount: 1000, orderId: order });
        throw new Error('payment declined');
      }),
    ).rejects.toThrow('payment declined');
    expect(await usesOf(c.id)).toBe(0);
    expect((await api('GET', `${COUPONS}/${c.id}/redemptions`)).json().data).toEqual([]);
    const events = await t.app.orm.em.getConnection().execute(`select 1 from core_outbox where type = 'discounts.coupon.applied' and data->>'order_id' = ?`, [order]);
    expect(events).toHaveLength(0);
    // The one use it may have is still there for the next order.
    await inShop((tx) => discounts.apply(tx, { code: c.code, orderAmount: 1000, orderId: randomUUID() }));
    expect(await usesOf(c.id)).toBe(1);
  });

  it('apply refuses with 422 COUPON_INVALID and the reason, and leaves the coupon untouched', async () => {
    const c = await createCoupon(api, { min_order_amount: 5000, max_uses_per_customer: 1 });
    const refuse = (check: Record<string, unknown>) => inShop((tx) => discounts.apply(tx, { code: c.code, orderAmount: 6000, customerId: randomUUID(), ...check }));
    await expect(refuse({ orderAmount: 4000 })).rejects.toMatchObject({ status: 422, code: 'COUPON_INVALID', details: [{ reason: 'min_order_amount_not_met' }] });
    await expect(refuse({ customerId: null })).rejects.toMatchObject({ details: [{ reason: 'customer_required' }] });
    await expect(refuse({ code: 'NOPE' })).rejects.toMatchObject({ details: [{ reason: 'not_found' }] });
    await expect(refuse({ currency: 'EUR' })).rejects.toMatchObject({ details: [{ reason: 'currency_mismatch' }] });
    expect(await usesOf(c.id)).toBe(0);
  });

  it('validate follows collections in the caller’s transaction and changes nothing', async () => {
    const p = await createProduct(api, 'Wool');
    const collection = await createCollection(api, 'Knits', [p.id]);
    const c = await createCoupon(api, { value: 1000, applicable_to: 'collections', applicable_ids: [collection.id] });
    const seen = await inShop<{ valid: boolean; discountAmount: number; reason: string | null }>(async (tx) => {
      const verdict = await discounts.validate(tx, { code: c.code, orderAmount: 5000, items: [{ productId: p.id, quantity: 5, unitPrice: 1000 }] });
      return { valid: verdict.valid, discountAmount: verdict.discountAmount, reason: verdict.reason };
    });
    expect(seen).toEqual({ valid: true, discountAmount: 500, reason: null });
    expect(await usesOf(c.id)).toBe(0);
  });
});

describe('the API description', () => {
  it('lists every discounts path in /openapi.json', async () => {
    const res = await t.request({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const paths = Object.keys(res.json().paths).filter((p) => p.includes('/discounts/'));
    expect(paths.sort()).toEqual([
      '/api/v1/discounts/coupons',
      '/api/v1/discounts/coupons/code/{code}',
      '/api/v1/discounts/coupons/validate',
      '/api/v1/discounts/coupons/{id}',
      '/api/v1/discounts/coupons/{id}/apply',
      '/api/v1/discounts/coupons/{id}/redemptions',
      '/api/v1/discounts/volume',
      '/api/v1/discounts/volume/{id}',
    ]);
  });
});
