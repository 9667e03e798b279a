import { randomUUID } from 'node:crypto';
import { Database } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Discounts } from '../src/index.js';
import { caller, COUPONS, createCoupon, createProduct, discountsApp, VOLUME, type Caller } from './helpers.js';

/**
 * Coupons and volume tiers in the store's currencies (decision 0097): a store in soles that sells
 * in dollars at 0.27 (rounded to the cent) and in euros without a rate (only amounts set in them).
 */
let t: TestApp;
let shop: TestTenant;
let api: Caller;
let db: Database;
let discounts: Discounts;
beforeAll(async () => {
  t = await discountsApp();
  shop = await t.createTenant({ currency: 'PEN' });
  api = caller(t, shop);
  db = t.app.container.resolve(Database);
  discounts = t.app.container.resolve(Discounts);
  const set = await api('PUT', '/api/v1/currencies', { currencies: [{ code: 'USD', rate: '0.27' }, { code: 'EUR', rate: null }] });
  if (set.statusCode !== 200) throw new Error(`currencies not set: ${set.body}`);
});
afterAll(async () => t?.close());

const verdict = async (body: Record<string, unknown>) => {
  const res = await api('POST', `${COUPONS}/validate`, body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { valid: boolean; discount_amount: number; reason: string };
};
const inShop = <T>(work: Parameters<Database['tenant']>[0]) => db.tenant(work, shop.id) as Promise<T>;

describe('a fixed coupon in each currency', () => {
  it('gives the amount set for the order’s currency, its own value in soles', async () => {
    const c = await createCoupon(api, { type: 'fixed_amount', value: 2000, amounts: { USD: 500 } });
    expect(c).toMatchObject({ currency: 'PEN', value: 2000, amounts: { USD: 500 }, min_order_amounts: {} });
    expect(await verdict({ code: c.code, order_amount: 10000, currency: 'USD' })).toMatchObject({ valid: true, discount_amount: 500 });
    expect(await verdict({ code: c.code, order_amount: 10000, currency: 'PEN' })).toMatchObject({ valid: true, discount_amount: 2000 });
    expect(await verdict({ code: c.code, order_amount: 10000 })).toMatchObject({ valid: true, discount_amount: 2000 });
    // Never more than the order.
    expect(await verdict({ code: c.code, order_amount: 300, currency: 'USD' })).toMatchObject({ valid: true, discount_amount: 300 });
  });

  it('derives the amount by the store’s rate when none is set: S/ 20.00 × 0.27 = $5.40', async () => {
    const c = await createCoupon(api, { type: 'fixed_amount', value: 2000 });
    expect(await verdict({ code: c.code, order_amount: 10000, currency: 'USD' })).toMatchObject({ valid: true, discount_amount: 540 });
    // A new rate reprices it at once.
    await api('PUT', '/api/v1/currencies', { currencies: [{ code: 'USD', rate: '0.3' }, { code: 'EUR', rate: null }] });
    expect(await verdict({ code: c.code, order_amount: 10000, currency: 'USD' })).toMatchObject({ valid: true, discount_amount: 600 });
    await api('PUT', '/api/v1/currencies', { currencies: [{ code: 'USD', rate: '0.27' }, { code: 'EUR', rate: null }] });
  });

  it('does not apply in a currency with no amount and no rate, nor in one the store does not sell in', async () => {
    const c = await createCoupon(api, { type: 'fixed_amount', value: 2000, amounts: { USD: 500 } });
    for (const currency of ['EUR', 'GBP']) {
      expect(await verdict({ code: c.code, order_amount: 10000, currency })).toMatchObject({ valid: false, discount_amount: 0, reason: 'currency_mismatch' });
    }
    await api('PATCH', `${COUPONS}/${c.id}`, { amounts: { USD: 500, EUR: 450 } });
    expect(await verdict({ code: c.code, order_amount: 10000, currency: 'EUR' })).toMatchObject({ valid: true, discount_amount: 450 });
  });

  it('a coupon in dollars is not derived into soles (only the default currency’s amounts are): set, it applies', async () => {
    const c = await createCoupon(api, { type: 'fixed_amount', value: 500, currency: 'USD' });
    expect(await verdict({ code: c.code, order_amount: 10000, currency: 'USD' })).toMatchObject({ valid: true, discount_amount: 500 });
    expect(await verdict({ code: c.code, order_amount: 10000, currency: 'PEN' })).toMatchObject({ valid: false, reason: 'currency_mismatch' });
    const patched = await api('PATCH', `${COUPONS}/${c.id}`, { amounts: { PEN: 1800 } });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(await verdict({ code: c.code, order_amount: 10000, currency: 'PEN' })).toMatchObject({ valid: true, discount_amount: 1800 });
  });
});

describe('a percentage coupon in each currency', () => {
  it('applies in every currency of the store, its minimum converted by the rate (S/ 100.00 → $27.00)', async () => {
    const c = await createCoupon(api, { type: 'percentage', value: 1000, min_order_amount: 10000 });
    expect(await verdict({ code: c.code, order_amount: 2699, currency: 'USD' })).toMatchObject({ valid: false, reason: 'min_order_amount_not_met' });
    expect(await verdict({ code: c.code, order_amount: 2700, currency: 'USD' })).toMatchObject({ valid: true, discount_amount: 270 });
    expect(await verdict({ code: c.code, order_amount: 9999, currency: 'PEN' })).toMatchObject({ valid: false, reason: 'min_order_amount_not_met' });
    // Euros have no rate: the minimum cannot be known there, unless it is set.
    expect(await verdict({ code: c.code, order_amount: 99999, currency: 'EUR' })).toMatchObject({ valid: false, reason: 'currency_mismatch' });
    await api('PATCH', `${COUPONS}/${c.id}`, { min_order_amounts: { EUR: 2500, USD: 3000 } });
    expect(await verdict({ code: c.code, order_amount: 2500, currency: 'EUR' })).toMatchObject({ valid: true, discount_amount: 250 });
    expect(await verdict({ code: c.code, order_amount: 2999, currency: 'USD' })).toMatchObject({ valid: false, reason: 'min_order_amount_not_met' });
    expect(await verdict({ code: c.code, order_amount: 3000, currency: 'USD' })).toMatchObject({ valid: true, discount_amount: 300 });
  });

  it('without a minimum applies in a currency without a rate too, never in one the store does not sell in', async () => {
    const c = await createCoupon(api, { type: 'percentage', value: 2500 });
    expect(await verdict({ code: c.code, order_amount: 1000, currency: 'EUR' })).toMatchObject({ valid: true, discount_amount: 250 });
    expect(await verdict({ code: c.code, order_amount: 1000, currency: 'GBP' })).toMatchObject({ valid: false, reason: 'currency_mismatch' });
  });
});

describe('using a coupon in a currency', () => {
  it('records the use in the order’s currency, at most the coupon’s amount in it', async () => {
    const c = await createCoupon(api, { type: 'fixed_amount', value: 2000 });
    const tooMuch = await api('POST', `${COUPONS}/${c.id}/apply`, { discount_amount: 541, currency: 'USD' });
    expect(tooMuch.statusCode).toBe(422);
    expect(tooMuch.json().error).toMatchObject({ code: 'COUPON_INVALID', details: [{ reason: 'discount_amount_too_high', maximum: 540 }] });
    const used = await api('POST', `${COUPONS}/${c.id}/apply`, { discount_amount: 540, currency: 'USD' });
    expect(used.statusCode, used.body).toBe(200);
    const [use] = (await api('GET', `${COUPONS}/${c.id}/redemptions`)).json().data;
    expect(use).toMatchObject({ amount: 540, currency: 'USD' });
  });

  it('refuses with 422 COUPON_INVALID (currency_mismatch) a currency the coupon has no amount in, over HTTP and in the checkout’s transaction; nothing is used', async () => {
    const c = await createCoupon(api, { type: 'fixed_amount', value: 2000, amounts: { USD: 500 } });
    const refused = await api('POST', `${COUPONS}/${c.id}/apply`, { discount_amount: 100, currency: 'EUR' });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error).toMatchObject({ code: 'COUPON_INVALID', details: [{ reason: 'currency_mismatch', path: 'body.currency', currency: 'EUR', coupon_id: c.id }] });
    await expect(inShop((tx) => discounts.apply(tx, { code: c.code, orderAmount: 10000, currency: 'EUR', orderId: randomUUID() }))).rejects.toMatchObject({
      status: 422,
      code: 'COUPON_INVALID',
      details: [{ reason: 'currency_mismatch', currency: 'EUR' }],
    });
    expect((await api('GET', `${COUPONS}/${c.id}`)).json().data.uses_count).toBe(0);
    const applied = await inShop<{ discountAmount: number; redemption: { currency: string } }>((tx) => discounts.apply(tx, { code: c.code, orderAmount: 10000, currency: 'USD', orderId: randomUUID() }));
    expect(applied).toMatchObject({ discountAmount: 500, redemption: { currency: 'USD' } });
  });
});

describe('amounts by currency when a coupon is written', () => {
  it('takes only the store’s currencies (422 CURRENCY_NOT_LISTED), not the coupon’s own, and only on fixed coupons (400)', async () => {
    const gbp = await api('POST', COUPONS, { code: `GBP${Date.now()}`, type: 'fixed_amount', value: 2000, amounts: { GBP: 400 } });
    expect(gbp.statusCode).toBe(422);
    expect(gbp.json().error).toMatchObject({ code: 'CURRENCY_NOT_LISTED', details: [{ path: 'body.amounts.GBP', currency: 'GBP', currencies: ['PEN', 'EUR', 'USD'] }] });
    const minimum = await api('POST', COUPONS, { code: `MIN${Date.now()}`, type: 'percentage', value: 100, min_order_amounts: { JPY: 400 } });
    expect(minimum.json().error).toMatchObject({ code: 'CURRENCY_NOT_LISTED', details: [{ path: 'body.min_order_amounts.JPY' }] });
    const own = await api('POST', COUPONS, { code: `OWN${Date.now()}`, type: 'fixed_amount', value: 2000, amounts: { PEN: 1000 } });
    expect(own.statusCode).toBe(400);
    expect(own.json().error.details[0].path).toBe('body.amounts.PEN');
    const percentage = await api('POST', COUPONS, { code: `PCT${Date.now()}`, type: 'percentage', value: 1000, amounts: { USD: 100 } });
    expect(percentage.statusCode).toBe(400);
    expect(percentage.json().error.details[0].path).toBe('body.amounts');
    for (const amounts of [{ usd: 1 }, { USD: 0 }, { USD: 1.5 }, { USD: '5' }, []]) {
      const res = await api('POST', COUPONS, { code: `BAD${Date.now()}`, type: 'fixed_amount', value: 2000, amounts });
      expect(res.statusCode, JSON.stringify(amounts)).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
    expect((await api('GET', `${COUPONS}?q=GBP`)).json().data).toEqual([]);
  });

  it('PATCH replaces the amounts; a coupon turned into a percentage drops them', async () => {
    const c = await createCoupon(api, { type: 'fixed_amount', value: 2000, amounts: { USD: 500, EUR: 450 } });
    const replaced = (await api('PATCH', `${COUPONS}/${c.id}`, { amounts: { EUR: 400 } })).json().data;
    expect(replaced.amounts).toEqual({ EUR: 400 });
    const percentage = (await api('PATCH', `${COUPONS}/${c.id}`, { type: 'percentage', value: 500 })).json().data;
    expect(percentage).toMatchObject({ type: 'percentage', amounts: {} });
    expect((await api('PATCH', `${COUPONS}/${c.id}`, { amounts: { USD: 1 } })).statusCode).toBe(400);
  });

  it('checks codes against the caller’s store: a currency another store sells in is not listed here', async () => {
    const other = await t.createTenant({ currency: 'USD' });
    await caller(t, other)('PUT', '/api/v1/currencies', { currencies: [{ code: 'GBP', rate: '0.8' }] });
    const res = await api('POST', COUPONS, { code: `OTHER${Date.now()}`, type: 'fixed_amount', value: 2000, amounts: { GBP: 400 } });
    expect(res.json().error).toMatchObject({ code: 'CURRENCY_NOT_LISTED' });
    const mine = await createCoupon(api, { type: 'fixed_amount', value: 2000, amounts: { USD: 500 } });
    expect((await caller(t, other)('POST', `${COUPONS}/validate`, { code: mine.code, order_amount: 1000, currency: 'USD' })).json()).toMatchObject({ valid: false, reason: 'not_found' });
  });

  it('validates in another currency with no more statements than in the coupon’s own (the currencies ride on the token)', async () => {
    const c = await createCoupon(api, { type: 'fixed_amount', value: 2000 });
    const count = (currency: string) => t.countQueries(() => api('POST', `${COUPONS}/validate`, { code: c.code, order_amount: 1000, currency }));
    const own = await count('PEN');
    const dollars = await count('USD');
    expect(dollars.result.json()).toMatchObject({ valid: true, discount_amount: 540 });
    expect(dollars.count, dollars.statements.join('\n')).toBe(own.count);
    expect(own.count).toBeLessThanOrEqual(3);
  });
});

describe('volume tiers in each currency', () => {
  const tier = async (productId: string, minQuantity: number, body: Record<string, unknown>) => {
    const res = await api('POST', VOLUME, { product_id: productId, min_quantity: minQuantity, ...body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  const quote = (productId: string, quantity: number, unitPrice: number, currency?: string) =>
    inShop<{ discountAmount: number; tier: { minQuantity: number } | null }>((tx) => discounts.volumeDiscountFor(tx, productId, quantity, unitPrice, currency));

  it('a fixed tier takes its amount off each unit: set, derived by the rate, or not at all in a currency without either', async () => {
    const p = await createProduct(api, 'Bulk coffee', 3000);
    const ten = await tier(p.id, 10, { type: 'fixed_amount', value: 100 }); // S/ 1.00 off each unit
    expect(ten).toMatchObject({ type: 'fixed_amount', value: 100, currency: 'PEN', amounts: {} });
    await tier(p.id, 20, { type: 'fixed_amount', value: 200, amounts: { USD: 60, EUR: 40 } });
    expect(await quote(p.id, 12, 3000, 'PEN')).toMatchObject({ discountAmount: 1200, tier: { minQuantity: 10 } });
    expect(await quote(p.id, 12, 3000)).toMatchObject({ discountAmount: 1200 }); // the store's currency when none is named
    expect(await quote(p.id, 12, 810, 'USD')).toMatchObject({ discountAmount: 12 * 27, tier: { minQuantity: 10 } });
    expect(await quote(p.id, 25, 810, 'USD')).toMatchObject({ discountAmount: 25 * 60, tier: { minQuantity: 20 } });
    expect(await quote(p.id, 25, 700, 'EUR')).toMatchObject({ discountAmount: 25 * 40, tier: { minQuantity: 20 } });
    // The 10-unit tier has no amount in euros and no rate to derive one: it gives nothing there.
    expect(await quote(p.id, 12, 700, 'EUR')).toEqual({ discountAmount: 0, tier: null });
    // Never more than the line.
    expect(await quote(p.id, 12, 50, 'PEN')).toMatchObject({ discountAmount: 600 });
  });

  it('a percentage tier applies whatever the currency', async () => {
    const p = await createProduct(api, 'Bulk tea', 3000);
    await tier(p.id, 5, { value: 1000 });
    expect(await quote(p.id, 5, 810, 'USD')).toMatchObject({ discountAmount: 405 });
    expect(await quote(p.id, 5, 700, 'EUR')).toMatchObject({ discountAmount: 350 });
  });

  it('counts a cart’s lines together in its currency', async () => {
    const p = await createProduct(api, 'Bulk cacao', 3000);
    await tier(p.id, 10, { type: 'fixed_amount', value: 100, amounts: { USD: 30 } });
    const lines = [{ productId: p.id, quantity: 6, unitPrice: 810 }, { productId: p.id, quantity: 4, unitPrice: 900 }];
    const quotes = await inShop<Array<{ discountAmount: number }>>((tx) => discounts.volumeDiscountsFor(tx, lines, undefined, 'USD'));
    expect(quotes.map((q) => q.discountAmount)).toEqual([180, 120]);
  });

  it('refuses amounts in a currency the store does not sell in (422), on percentage tiers (400), and tiers of mixed types (422)', async () => {
    const p = await createProduct(api, 'Bulk quinoa', 3000);
    const gbp = await api('POST', VOLUME, { product_id: p.id, min_quantity: 5, type: 'fixed_amount', value: 100, amounts: { GBP: 20 } });
    expect(gbp.statusCode).toBe(422);
    expect(gbp.json().error).toMatchObject({ code: 'CURRENCY_NOT_LISTED', details: [{ path: 'body.amounts.GBP' }] });
    const percentage = await api('POST', VOLUME, { product_id: p.id, min_quantity: 5, value: 100, amounts: { USD: 20 } });
    expect(percentage.statusCode).toBe(400);
    expect((await api('POST', VOLUME, { product_id: p.id, min_quantity: 5, type: 'fixed_amount', value: 20_000 })).statusCode).toBe(201);
    const mixed = await api('POST', VOLUME, { product_id: p.id, min_quantity: 10, value: 500 });
    expect(mixed.statusCode).toBe(422);
    expect(mixed.json().error).toMatchObject({ code: 'VOLUME_TIER_TYPE_MIXED', details: [{ path: 'body.type' }] });
    const smaller = await api('POST', VOLUME, { product_id: p.id, min_quantity: 10, type: 'fixed_amount', value: 10_000 });
    expect(smaller.json().error.code).toBe('VOLUME_TIERS_NOT_INCREASING');
    expect((await api('GET', `${VOLUME}?filter[product_id]=${p.id}`)).json().data).toHaveLength(1);
  });
});
