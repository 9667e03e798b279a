import { randomUUID } from 'node:crypto';
import { AccessTokens, Database } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, code, COUPONS, createCollection, createCoupon, createProduct, discountsApp, hours, MISSING, type Caller } from './helpers.js';

let t: TestApp;
let shop: TestTenant;
let api: Caller;
let store: Caller;
let scarf: { id: string };
let hat: { id: string };
let poncho: { id: string };
beforeAll(async () => {
  t = await discountsApp();
  shop = await t.createTenant({ currency: 'USD' });
  api = caller(t, shop);
  store = caller(t, shop, shop.storefrontToken);
  scarf = await createProduct(api, 'Scarf', 1000);
  hat = await createProduct(api, 'Hat', 5000);
  poncho = await createProduct(api, 'Poncho', 8000);
});
afterAll(async () => t?.close());

const validate = (payload: Record<string, unknown>, as: Caller = store) => as('POST', `${COUPONS}/validate`, payload);
const verdict = async (payload: Record<string, unknown>) => {
  const res = await validate(payload);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { valid: boolean; discount_amount: number; reason: string; message: string; coupon_id: string | null };
};
const apply = (id: string, payload: Record<string, unknown> = {}) => api('POST', `${COUPONS}/${id}/apply`, { discount_amount: 100, ...payload });

describe('POST /discounts/coupons/validate: what a coupon gives', () => {
  it('a percentage in basis points of the order amount, rounded down; answers the bare result', async () => {
    const c = await createCoupon(api, { value: 1000 }); // 10.00%
    const res = await validate({ code: c.code.toLowerCase(), order_amount: 12345 });
    expect(res.json()).toEqual({ valid: true, discount_amount: 1234, reason: '', message: 'The coupon applies', coupon_id: c.id });
    const odd = await createCoupon(api, { value: 1550 }); // 15.50% of 999 = 154.845
    expect((await verdict({ code: odd.code, order_amount: 999 })).discount_amount).toBe(154);
    const tiny = await createCoupon(api, { value: 1 }); // 0.01% of 9999 = 0.9999
    expect(await verdict({ code: tiny.code, order_amount: 9999 })).toMatchObject({ valid: true, discount_amount: 0 });
    const all = await createCoupon(api, { value: 10000 });
    expect((await verdict({ code: all.code, order_amount: 4321 })).discount_amount).toBe(4321);
  });

  it('a fixed amount, never more than the order amount', async () => {
    const c = await createCoupon(api, { type: 'fixed_amount', value: 500 });
    expect((await verdict({ code: c.code, order_amount: 2000 })).discount_amount).toBe(500);
    expect((await verdict({ code: c.code, order_amount: 300 })).discount_amount).toBe(300);
    expect(await verdict({ code: c.code, order_amount: 0 })).toMatchObject({ valid: true, discount_amount: 0 });
  });

  it('nothing below the minimum order amount', async () => {
    const c = await createCoupon(api, { type: 'fixed_amount', value: 700, min_order_amount: 5000 });
    expect(await verdict({ code: c.code, order_amount: 4999 })).toMatchObject({ valid: false, discount_amount: 0, reason: 'min_order_amount_not_met', coupon_id: c.id });
    expect(await verdict({ code: c.code, order_amount: 5000 })).toMatchObject({ valid: true, discount_amount: 700 });
  });

  it('nothing before starts_at or from expires_at on', async () => {
    const future = await createCoupon(api, { starts_at: hours(2) });
    expect(await verdict({ code: future.code, order_amount: 1000 })).toMatchObject({ valid: false, reason: 'not_started', message: 'The coupon is not valid yet' });
    const past = await createCoupon(api, { starts_at: hours(-5), expires_at: hours(-1) });
    expect(await verdict({ code: past.code, order_amount: 1000 })).toMatchObject({ valid: false, reason: 'expired' });
    const open = await createCoupon(api, { starts_at: hours(-1), expires_at: hours(1) });
    expect(await verdict({ code: open.code, order_amount: 1000 })).toMatchObject({ valid: true, discount_amount: 100 });
    // Moving the dates changes the answer.
    await api('PATCH', `${COUPONS}/${past.id}`, { expires_at: hours(3) });
    expect((await verdict({ code: past.code, order_amount: 1000 })).valid).toBe(true);
  });

  it('nothing from a paused coupon, an unknown code or another currency', async () => {
    const c = await createCoupon(api);
    await api('PATCH', `${COUPONS}/${c.id}`, { is_active: false });
    expect(await verdict({ code: c.code, order_amount: 1000 })).toMatchObject({ valid: false, reason: 'inactive' });
    expect(await verdict({ code: 'NO-SUCH-CODE', order_amount: 1000 })).toEqual({ valid: false, discount_amount: 0, reason: 'not_found', message: 'No coupon has this code', coupon_id: null });
    expect(await verdict({ code: 'not even a code!', order_amount: 1000 })).toMatchObject({ valid: false, reason: 'not_found' });
    const usd = await createCoupon(api, { type: 'fixed_amount', value: 100, currency: 'USD' });
    expect(await verdict({ code: usd.code, order_amount: 1000, currency: 'EUR' })).toMatchObject({ valid: false, reason: 'currency_mismatch' });
    expect((await verdict({ code: usd.code, order_amount: 1000, currency: 'USD' })).valid).toBe(true);
  });

  it('nothing once max_uses is reached', async () => {
    const c = await createCoupon(api, { max_uses: 2 });
    for (let i = 0; i < 2; i++) {
      expect((await verdict({ code: c.code, order_amount: 1000 })).valid).toBe(true);
      expect((await apply(c.id)).statusCode).toBe(200);
    }
    expect(await verdict({ code: c.code, order_amount: 1000 })).toMatchObject({ valid: false, reason: 'usage_limit_reached' });
  });

  it('nothing for a customer who used up max_uses_per_customer; others and unnamed shoppers still see it', async () => {
    const c = await createCoupon(api, { max_uses_per_customer: 1 });
    const ana = randomUUID();
    expect((await apply(c.id, { customer_id: ana })).statusCode).toBe(200);
    expect(await verdict({ code: c.code, order_amount: 1000, customer_id: ana })).toMatchObject({ valid: false, reason: 'customer_usage_limit_reached' });
    expect((await verdict({ code: c.code, order_amount: 1000, customer_id: randomUUID() })).valid).toBe(true);
    expect((await verdict({ code: c.code, order_amount: 1000 })).valid).toBe(true);
    expect((await apply(c.id, { customer_email: 'Bea@Example.com' })).statusCode).toBe(200);
    expect((await verdict({ code: c.code, order_amount: 1000, customer_email: 'bea@example.com' })).reason).toBe('customer_usage_limit_reached');
  });
});

describe('validate: coupons limited to products or collections', () => {
  it('discounts the lines of the listed products only, never more than they cost', async () => {
    const pct = await createCoupon(api, { value: 2000, applicable_to: 'products', applicable_ids: [scarf.id] });
    const items = [
      { product_id: scarf.id, quantity: 2, unit_price: 1000 },
      { product_id: hat.id, quantity: 1, unit_price: 5000 },
    ];
    expect(await verdict({ code: pct.code, order_amount: 7000, items })).toMatchObject({ valid: true, discount_amount: 400 });
    const fixed = await createCoupon(api, { type: 'fixed_amount', value: 5000, applicable_to: 'products', applicable_ids: [scarf.id] });
    expect((await verdict({ code: fixed.code, order_amount: 7000, items })).discount_amount).toBe(2000);
    // The eligible subtotal never exceeds the order amount.
    expect((await verdict({ code: fixed.code, order_amount: 1500, items })).discount_amount).toBe(1500);
  });

  it('refuses an order of products outside the list', async () => {
    const c = await createCoupon(api, { applicable_to: 'products', applicable_ids: [scarf.id] });
    expect(await verdict({ code: c.code, order_amount: 5000, items: [{ product_id: hat.id, quantity: 1, unit_price: 5000 }] })).toMatchObject({ valid: false, reason: 'not_applicable', discount_amount: 0 });
    expect(await verdict({ code: c.code, order_amount: 5000, product_ids: [hat.id, MISSING] })).toMatchObject({ valid: false, reason: 'not_applicable' });
  });

  it('with product_ids only: the whole order when every product is eligible; asks for items when some are not', async () => {
    const c = await createCoupon(api, { value: 1000, applicable_to: 'products', applicable_ids: [scarf.id, hat.id] });
    expect(await verdict({ code: c.code, order_amount: 6000, product_ids: [scarf.id, hat.id, scarf.id] })).toMatchObject({ valid: true, discount_amount: 600 });
    expect(await verdict({ code: c.code, order_amount: 14000, product_ids: [scarf.id, poncho.id] })).toMatchObject({ valid: false, reason: 'items_required' });
    expect(await verdict({ code: c.code, order_amount: 6000 })).toMatchObject({ valid: false, reason: 'items_required' });
    // Items win over product_ids.
    expect((await verdict({ code: c.code, order_amount: 9000, product_ids: [poncho.id], items: [{ product_id: hat.id, quantity: 1, unit_price: 5000 }, { product_id: poncho.id, quantity: 1, unit_price: 4000 }] })).discount_amount).toBe(500);
  });

  it('follows the collections as they are when asked', async () => {
    const winter = await createCollection(api, `Winter ${code()}`, [scarf.id, hat.id]);
    const c = await createCoupon(api, { value: 5000, applicable_to: 'collections', applicable_ids: [winter.id] });
    const items = [
      { product_id: scarf.id, quantity: 1, unit_price: 1000 },
      { product_id: poncho.id, quantity: 1, unit_price: 8000 },
    ];
    expect(await verdict({ code: c.code, order_amount: 9000, items })).toMatchObject({ valid: true, discount_amount: 500 });
    expect((await api('DELETE', `/api/v1/catalog/collections/${winter.id}/products/${scarf.id}`)).statusCode).toBe(204);
    expect(await verdict({ code: c.code, order_amount: 9000, items })).toMatchObject({ valid: false, reason: 'not_applicable' });
    expect((await verdict({ code: c.code, order_amount: 5000, product_ids: [hat.id] })).discount_amount).toBe(2500);
  });
});

describe('validate: input and access', () => {
  it.each([
    [{ order_amount: 100 }, 'body.code'],
    [{ code: 'X' }, 'body.order_amount'],
    [{ code: 'X', order_amount: -1 }, 'body.order_amount'],
    [{ code: 'X', order_amount: 10.5 }, 'body.order_amount'],
    [{ code: 'X', order_amount: '100' }, 'body.order_amount'],
    [{ code: 'X', order_amount: 100, customer_id: 'ana' }, 'body.customer_id'],
    [{ code: 'X', order_amount: 100, customer_email: 'not-an-email' }, 'body.customer_email'],
    [{ code: 'X', order_amount: 100, product_ids: ['nope'] }, 'body.product_ids.0'],
    [{ code: 'X', order_amount: 100, product_ids: Array.from({ length: 501 }, () => MISSING) }, 'body.product_ids'],
    [{ code: 'X', order_amount: 100, items: [{ product_id: MISSING, quantity: 0, unit_price: 1 }] }, 'body.items.0.quantity'],
    [{ code: 'X', order_amount: 100, items: [{ product_id: MISSING, quantity: 1, unit_price: -1 }] }, 'body.items.0.unit_price'],
    [{ code: 'X', order_amount: 100, items: [{ product_id: MISSING, quantity: 1 }] }, 'body.items.0.unit_price'],
    [{ code: 'X', order_amount: 100, currency: 'usd' }, 'body.currency'],
    [{ code: 'X', order_amount: 100, coupon_id: MISSING }, 'body'],
  ])('refuses %j with 400 (%s)', async (payload, path) => {
    const res = await validate(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
    expect(res.json().error.details.map((d: { path: string }) => d.path).join(' ')).toContain(path);
  });

  it('is open to storefront keys and customers, and a customer validates for itself only', async () => {
    const c = await createCoupon(api, { max_uses_per_customer: 1 });
    const me = randomUUID();
    expect((await apply(c.id, { customer_id: me })).statusCode).toBe(200);
    const db = t.app.container.resolve(Database);
    const token = await db.platform(async (tx) => {
      const issued = await t.app.container.resolve(AccessTokens).issue(tx, { tenantId: shop.id, kind: 'customer', subjectId: me });
      await tx.em.flush();
      return issued.token;
    });
    const asCustomer = caller(t, shop, token);
    // The customer's own uses count even when it names nobody.
    expect((await validate({ code: c.code, order_amount: 1000 }, asCustomer)).json()).toMatchObject({ valid: false, reason: 'customer_usage_limit_reached' });
    expect((await validate({ code: c.code, order_amount: 1000, customer_id: me }, asCustomer)).statusCode).toBe(200);
    const other = await validate({ code: c.code, order_amount: 1000, customer_id: randomUUID() }, asCustomer);
    expect(other.statusCode).toBe(403);
    expect(other.json().error.code).toBe('FORBIDDEN');
    expect((await t.request({ method: 'POST', url: `${COUPONS}/validate`, headers: { 'x-tenant-id': shop.id }, payload: { code: c.code, order_amount: 1 } })).statusCode).toBe(401);
    // A customer may not record uses.
    expect((await asCustomer('POST', `${COUPONS}/${c.id}/apply`, { discount_amount: 1 })).statusCode).toBe(403);
  });
});

describe('POST /discounts/coupons/:id/apply', () => {
  const outbox = (couponId: string) =>
    t.app.orm.em
      .getConnection()
      .execute<Array<{ type: string; data: Record<string, unknown> }>>(`select type, data from core_outbox where data->>'coupon_id' = ? or data->>'id' = ? order by occurred_at`, [couponId, couponId]);

  it('records a use with its customer, order and amount, raises uses_count and announces discounts.coupon.applied', async () => {
    const c = await createCoupon(api, { type: 'fixed_amount', value: 800, currency: 'USD' });
    const customer = randomUUID();
    const order = randomUUID();
    const res = await apply(c.id, { customer_id: customer, customer_email: 'Cleo@Example.com', order_id: order, discount_amount: 800 });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({ success: true, redemption_id: expect.any(String), uses_count: 1 });
    expect((await api('GET', `${COUPONS}/${c.id}`)).json().data.uses_count).toBe(1);
    const [use] = (await api('GET', `${COUPONS}/${c.id}/redemptions`)).json().data;
    expect(use).toEqual({ id: body.redemption_id, coupon_id: c.id, customer_id: customer, customer_email: 'cleo@example.com', order_id: order, amount: 800, currency: 'USD', created_at: expect.any(String), released_at: null });

    const events = await outbox(c.id);
    expect(events.map((e) => e.type)).toEqual(['discounts.coupon.created', 'discounts.coupon.applied']);
    expect(events[1].data).toEqual({ id: body.redemption_id, coupon_id: c.id, code: c.code, order_id: order, customer_id: customer, amount: 800, currency: 'USD' });
    await api('PATCH', `${COUPONS}/${c.id}`, { value: 900 });
    await api('DELETE', `${COUPONS}/${c.id}`);
    expect((await outbox(c.id)).map((e) => e.type)).toEqual(['discounts.coupon.created', 'discounts.coupon.applied', 'discounts.coupon.updated', 'discounts.coupon.deleted']);
  });

  it('does the work once for a repeated Idempotency-Key', async () => {
    const c = await createCoupon(api);
    const send = () => t.request({ method: 'POST', url: `${COUPONS}/${c.id}/apply`, headers: { ...shop.headers(), 'idempotency-key': `apply-${c.id}` }, payload: { discount_amount: 40 } });
    const first = await send();
    const second = await send();
    expect(second.json()).toEqual(first.json());
    expect((await api('GET', `${COUPONS}/${c.id}`)).json().data.uses_count).toBe(1);
  });

  it('refuses a coupon that is not usable now with 422 COUPON_INVALID and the reason', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ starts_at: hours(1) }, 'not_started'],
      [{ starts_at: hours(-2), expires_at: hours(-1) }, 'expired'],
      [{ max_uses_per_customer: 3 }, 'customer_required'],
    ];
    for (const [fields, reason] of cases) {
      const c = await createCoupon(api, fields);
      const res = await apply(c.id);
      expect(res.statusCode, reason).toBe(422);
      expect(res.json().error).toMatchObject({ code: 'COUPON_INVALID', details: [{ reason, coupon_id: c.id }] });
    }
    const paused = await createCoupon(api);
    await api('PATCH', `${COUPONS}/${paused.id}`, { is_active: false });
    expect((await apply(paused.id)).json().error.details[0].reason).toBe('inactive');
    expect((await api('GET', `${COUPONS}/${paused.id}`)).json().data.uses_count).toBe(0);
  });

  it('refuses more than a fixed coupon gives, and a second use by the same order (409)', async () => {
    const c = await createCoupon(api, { type: 'fixed_amount', value: 500 });
    const high = await apply(c.id, { discount_amount: 501 });
    expect(high.statusCode).toBe(422);
    expect(high.json().error).toMatchObject({ code: 'COUPON_INVALID', details: [{ reason: 'discount_amount_too_high', maximum: 500 }] });
    const order = randomUUID();
    expect((await apply(c.id, { order_id: order, discount_amount: 500 })).statusCode).toBe(200);
    const again = await apply(c.id, { order_id: order, discount_amount: 500 });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toMatchObject({ code: 'COUPON_ALREADY_APPLIED', details: [{ path: 'body.order_id' }] });
    expect((await apply(c.id, { order_id: randomUUID(), discount_amount: 0 })).json().uses_count).toBe(2);
  });

  it.each([
    [{}, 'body.discount_amount'],
    [{ discount_amount: -1 }, 'body.discount_amount'],
    [{ discount_amount: 1.5 }, 'body.discount_amount'],
    [{ discount_amount: 1, customer_id: 'x' }, 'body.customer_id'],
    [{ discount_amount: 1, order_id: 12 }, 'body.order_id'],
    [{ discount_amount: 1, customer_email: 'nope' }, 'body.customer_email'],
    [{ discount_amount: 1, code: 'X' }, 'body'],
  ])('refuses %j with 400 (%s)', async (payload, path) => {
    const c = await createCoupon(api);
    const res = await api('POST', `${COUPONS}/${c.id}/apply`, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details.map((d: { path: string }) => d.path).join(' ')).toContain(path);
    expect((await api('GET', `${COUPONS}/${c.id}`)).json().data.uses_count).toBe(0);
  });

  it('answers 404 for unknown coupons, 400 for malformed ids, 403 for storefront keys', async () => {
    const missing = await apply(MISSING);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('COUPON_NOT_FOUND');
    expect((await apply('abc')).statusCode).toBe(400);
    const c = await createCoupon(api);
    expect((await store('POST', `${COUPONS}/${c.id}/apply`, { discount_amount: 1 })).statusCode).toBe(403);
    expect((await api('GET', `${COUPONS}/${c.id}`)).json().data.uses_count).toBe(0);
  });
});

describe('GET /discounts/coupons/:id/redemptions', () => {
  it('pages the uses of a coupon, newest first', async () => {
    const c = await createCoupon(api);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await apply(c.id, { discount_amount: i })).json().redemption_id);
    const first = (await api('GET', `${COUPONS}/${c.id}/redemptions?limit=2`)).json();
    expect(first.data.map((r: { id: string }) => r.id)).toEqual([ids[2], ids[1]]);
    const rest = (await api('GET', `${COUPONS}/${c.id}/redemptions?limit=2&cursor=${first.meta.pagination.cursor}`)).json();
    expect(rest.data.map((r: { id: string }) => r.id)).toEqual([ids[0]]);
    expect((await api('GET', `${COUPONS}/${c.id}/redemptions?sort=created_at`)).json().data.map((r: { amount: number }) => r.amount)).toEqual([0, 1, 2]);
  });

  it('answers 404, 400 and 403 as the other coupon routes do', async () => {
    expect((await api('GET', `${COUPONS}/${MISSING}/redemptions`)).json().error.code).toBe('COUPON_NOT_FOUND');
    expect((await api('GET', `${COUPONS}/x/redemptions`)).statusCode).toBe(400);
    const c = await createCoupon(api);
    expect((await api('GET', `${COUPONS}/${c.id}/redemptions?filter[customer]=x`)).statusCode).toBe(400);
    expect((await store('GET', `${COUPONS}/${c.id}/redemptions`)).statusCode).toBe(403);
  });
});
