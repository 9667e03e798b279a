import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, code, COUPONS, createCollection, createCoupon, createProduct, discountsApp, hours, MISSING, type Caller } from './helpers.js';

let t: TestApp;
let shop: TestTenant;
let api: Caller;
let store: Caller;
let productA: { id: string };
let productB: { id: string };
beforeAll(async () => {
  t = await discountsApp();
  shop = await t.createTenant({ currency: 'PEN' });
  api = caller(t, shop);
  store = caller(t, shop, shop.storefrontToken);
  productA = await createProduct(api, 'Alpaca scarf');
  productB = await createProduct(api, 'Wool hat');
});
afterAll(async () => t?.close());

const paths = (res: { json(): any }) => res.json().error.details.map((d: { path: string }) => d.path).join(' ');

describe('POST /discounts/coupons', () => {
  it('creates a percentage coupon with the defaults and answers the bare coupon', async () => {
    const res = await api('POST', COUPONS, { code: ' winter10 ', type: 'percentage', value: 1000 });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).not.toHaveProperty('data');
    expect(body).toMatchObject({
      code: 'WINTER10', type: 'percentage', value: 1000, currency: 'PEN', min_order_amount: 0, max_uses: null,
      max_uses_per_customer: null, applicable_to: 'all', applicable_ids: [], starts_at: null, expires_at: null,
      is_active: true, uses_count: 0, status: 'active', deleted_at: null,
    });
    expect(body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(body.created_at)).not.toBeNaN();
  });

  it('creates a fixed-amount coupon with every field of the specification', async () => {
    const payload = {
      code: 'Hats-5_OFF', type: 'fixed_amount', value: 500, currency: 'USD', min_order_amount: 2000, max_uses: 100, max_uses_per_customer: 1,
      applicable_to: 'products', applicable_ids: [productA.id, productB.id, productA.id], starts_at: hours(-1), expires_at: hours(24),
    };
    const res = await api('POST', COUPONS, payload);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ ...payload, code: 'HATS-5_OFF', applicable_ids: [productA.id, productB.id], status: 'active' });
  });

  it('takes collections of the store as targets, and 100.00% as the largest percentage', async () => {
    const collection = await createCollection(api, 'Winter', [productA.id]);
    const res = await api('POST', COUPONS, { code: code(), type: 'percentage', value: 10000, applicable_to: 'collections', applicable_ids: [collection.id] });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ value: 10000, applicable_to: 'collections', applicable_ids: [collection.id] });
  });

  it('keeps codes unique per store whatever their case (409), among coupons not deleted', async () => {
    const first = await createCoupon(api, { code: 'Unique1' });
    for (const again of ['UNIQUE1', 'unique1', ' Unique1']) {
      const res = await api('POST', COUPONS, { code: again, type: 'percentage', value: 100 });
      expect(res.statusCode, again).toBe(409);
      expect(res.json().error).toMatchObject({ code: 'CONFLICT', details: [{ path: 'body.code' }] });
    }
    expect((await api('DELETE', `${COUPONS}/${first.id}`)).statusCode).toBe(204);
    expect((await api('POST', COUPONS, { code: 'unique1', type: 'percentage', value: 100 })).statusCode).toBe(201);
  });

  it('gives the same 409 to one of two creates racing for a code', async () => {
    const raced = code('RACE');
    const results = await Promise.all([1, 2, 3].map(() => api('POST', COUPONS, { code: raced, type: 'percentage', value: 100 })));
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409, 409]);
    expect(results.filter((r) => r.statusCode === 409).every((r) => r.json().error.code === 'CONFLICT')).toBe(true);
  });

  it.each([
    [{ type: 'percentage', value: 100 }, 'body.code'],
    [{ code: 'X1', value: 100 }, 'body.type'],
    [{ code: 'X1', type: 'percentage' }, 'body.value'],
    [{ code: 'X1', type: 'bogus', value: 100 }, 'body.type'],
    [{ code: 'X1', type: 'percentage', value: 0 }, 'body.value'],
    [{ code: 'X1', type: 'percentage', value: 1.5 }, 'body.value'],
    [{ code: 'X1', type: 'percentage', value: '100' }, 'body.value'],
    [{ code: 'X1', type: 'percentage', value: 10001 }, 'body.value'],
    [{ code: 'SAVE 10', type: 'percentage', value: 100 }, 'body.code'],
    [{ code: 'ÑANDÚ', type: 'percentage', value: 100 }, 'body.code'],
    [{ code: '', type: 'percentage', value: 100 }, 'body.code'],
    [{ code: 'A'.repeat(65), type: 'percentage', value: 100 }, 'body.code'],
    [{ code: 42, type: 'percentage', value: 100 }, 'body.code'],
    [{ code: 'X1', type: 'fixed_amount', value: 100, currency: 'usd' }, 'body.currency'],
    [{ code: 'X1', type: 'percentage', value: 100, min_order_amount: -1 }, 'body.min_order_amount'],
    [{ code: 'X1', type: 'percentage', value: 100, max_uses: 0 }, 'body.max_uses'],
    [{ code: 'X1', type: 'percentage', value: 100, max_uses: 2.5 }, 'body.max_uses'],
    [{ code: 'X1', type: 'percentage', value: 100, max_uses_per_customer: -1 }, 'body.max_uses_per_customer'],
    [{ code: 'X1', type: 'percentage', value: 100, applicable_to: 'brands' }, 'body.applicable_to'],
    [{ code: 'X1', type: 'percentage', value: 100, applicable_to: 'products', applicable_ids: ['nope'] }, 'body.applicable_ids.0'],
    [{ code: 'X1', type: 'percentage', value: 100, applicable_to: 'products' }, 'body.applicable_ids'],
    [{ code: 'X1', type: 'percentage', value: 100, applicable_to: 'collections', applicable_ids: [] }, 'body.applicable_ids'],
    [{ code: 'X1', type: 'percentage', value: 100, applicable_ids: [MISSING] }, 'body.applicable_ids'],
    [{ code: 'X1', type: 'percentage', value: 100, starts_at: hours(5), expires_at: hours(1) }, 'body.expires_at'],
    [{ code: 'X1', type: 'percentage', value: 100, starts_at: '2030-01-01T00:00:00Z', expires_at: '2030-01-01T00:00:00Z' }, 'body.expires_at'],
    [{ code: 'X1', type: 'percentage', value: 100, starts_at: 'tomorrow' }, 'body.starts_at'],
    [{ code: 'X1', type: 'percentage', value: 100, is_active: false }, 'body'],
    [{ code: 'X1', type: 'percentage', value: 100, uses_count: 3 }, 'body'],
  ])('refuses %j with 400 (%s)', async (payload, path) => {
    const res = await api('POST', COUPONS, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
    expect(paths(res)).toContain(path);
  });

  it('refuses products and collections the store does not have (422), naming each', async () => {
    const other = await t.createTenant();
    const foreign = await createProduct(caller(t, other), 'Not yours');
    const res = await api('POST', COUPONS, { code: code(), type: 'percentage', value: 100, applicable_to: 'products', applicable_ids: [productA.id, MISSING, foreign.id] });
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({
      code: 'PRODUCT_NOT_FOUND',
      details: [{ path: 'body.applicable_ids.1', id: MISSING }, { path: 'body.applicable_ids.2', id: foreign.id }],
    });
    // A product id is not a collection id.
    const wrongKind = await api('POST', COUPONS, { code: code(), type: 'percentage', value: 100, applicable_to: 'collections', applicable_ids: [productA.id] });
    expect(wrongKind.statusCode).toBe(422);
    expect(wrongKind.json().error).toMatchObject({ code: 'COLLECTION_NOT_FOUND', details: [{ path: 'body.applicable_ids.0' }] });
  });

  it('needs an admin key, and a key at all', async () => {
    const res = await store('POST', COUPONS, { code: code(), type: 'percentage', value: 100 });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('FORBIDDEN');
    const anonymous = await t.request({ method: 'POST', url: COUPONS, headers: { 'x-tenant-id': shop.id }, payload: { code: code(), type: 'percentage', value: 100 } });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().error.code).toBe('UNAUTHENTICATED');
  });
});

describe('GET /discounts/coupons', () => {
  let lister: Caller;
  const made: Record<string, { id: string; code: string }> = {};
  beforeAll(async () => {
    const tenant = await t.createTenant();
    lister = caller(t, tenant);
    made.active = await createCoupon(lister, { code: 'ACTIVE-SPRING', type: 'fixed_amount', value: 300 });
    made.scheduled = await createCoupon(lister, { code: 'SOON-SUMMER', starts_at: hours(24) });
    made.expired = await createCoupon(lister, { code: 'GONE-AUTUMN', starts_at: hours(-48), expires_at: hours(-24) });
    made.inactive = await createCoupon(lister, { code: 'PAUSED-WINTER' });
    await lister('PATCH', `${COUPONS}/${made.inactive.id}`, { is_active: false });
    made.exhausted = await createCoupon(lister, { code: 'USED-UP', max_uses: 1 });
    await lister('POST', `${COUPONS}/${made.exhausted.id}/apply`, { discount_amount: 1 });
    made.deleted = await createCoupon(lister, { code: 'DELETED-ONE' });
    await lister('DELETE', `${COUPONS}/${made.deleted.id}`);
  });
  const codes = async (qs: string) => {
    const res = await lister('GET', `${COUPONS}${qs}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data.map((c: { code: string }) => c.code);
  };

  it('lists the coupons that are not deleted, newest first, each with its status', async () => {
    const res = await lister('GET', COUPONS);
    expect(res.json().data.map((c: { code: string; status: string }) => [c.code, c.status])).toEqual([
      ['USED-UP', 'exhausted'], ['PAUSED-WINTER', 'inactive'], ['GONE-AUTUMN', 'expired'], ['SOON-SUMMER', 'scheduled'], ['ACTIVE-SPRING', 'active'],
    ]);
    expect(res.json().meta.pagination).toEqual({ cursor: null, has_next: false, limit: 25 });
  });

  it('filters by status, is_active, type and applicable_to, and searches the code with q', async () => {
    expect(await codes('?filter[status]=active')).toEqual(['ACTIVE-SPRING']);
    expect(await codes('?filter[status]=scheduled')).toEqual(['SOON-SUMMER']);
    expect(await codes('?filter[status]=expired')).toEqual(['GONE-AUTUMN']);
    expect(await codes('?filter[status]=inactive')).toEqual(['PAUSED-WINTER']);
    expect(await codes('?filter[status]=exhausted')).toEqual(['USED-UP']);
    expect(await codes('?filter[is_active]=false')).toEqual(['PAUSED-WINTER']);
    expect(await codes('?filter[is_active]=true')).toHaveLength(4);
    expect(await codes('?filter[type]=fixed_amount')).toEqual(['ACTIVE-SPRING']);
    expect(await codes('?filter[applicable_to]=products')).toEqual([]);
    expect(await codes('?q=summer')).toEqual(['SOON-SUMMER']);
    expect(await codes('?q=-')).toHaveLength(5);
    expect(await codes('?q=_')).toEqual([]);
    expect(await codes('?q=deleted')).toEqual([]);
    expect(await codes('?q=%25')).toEqual([]);
  });

  it('pages with opaque cursors and sorts by code', async () => {
    const first = (await lister('GET', `${COUPONS}?limit=2&sort=code`)).json();
    expect(first.data.map((c: { code: string }) => c.code)).toEqual(['ACTIVE-SPRING', 'GONE-AUTUMN']);
    expect(first.meta.pagination).toMatchObject({ has_next: true, limit: 2 });
    const second = (await lister('GET', `${COUPONS}?limit=2&sort=code&cursor=${first.meta.pagination.cursor}`)).json();
    expect(second.data.map((c: { code: string }) => c.code)).toEqual(['PAUSED-WINTER', 'SOON-SUMMER']);
    const third = (await lister('GET', `${COUPONS}?limit=2&sort=code&cursor=${second.meta.pagination.cursor}`)).json();
    expect(third.data.map((c: { code: string }) => c.code)).toEqual(['USED-UP']);
    expect(third.meta.pagination).toMatchObject({ cursor: null, has_next: false });
    expect(await codes('?sort=-code&limit=1')).toEqual(['USED-UP']);
  });

  it('clamps the limit at 100 and refuses bad query parameters', async () => {
    expect((await lister('GET', `${COUPONS}?limit=1000`)).json().meta.pagination.limit).toBe(100);
    for (const qs of ['?limit=0', '?limit=abc', '?filter[status]=deleted', '?filter[colour]=red', '?colour=red', '?sort=value', '?cursor=nonsense', '?filter[is_active]=yes', `?q=${'x'.repeat(201)}`]) {
      const res = await lister('GET', `${COUPONS}${qs}`);
      expect(res.statusCode, qs).toBe(400);
      expect(res.json().error.code, qs).toBe('VALIDATION_ERROR');
    }
  });

  it('needs an admin key', async () => {
    expect((await store('GET', COUPONS)).statusCode).toBe(403);
  });
});

describe('GET /discounts/coupons/:id and /coupons/code/:code', () => {
  it('reads a coupon by id (wrapped in data) and by its code in any case', async () => {
    const c = await createCoupon(api, { code: 'ReadMe2' });
    const byId = await api('GET', `${COUPONS}/${c.id}`);
    expect(byId.statusCode).toBe(200);
    expect(byId.json().data).toEqual(c);
    for (const asked of ['README2', 'readme2', 'ReadMe2', '%20readme2%20']) {
      const res = await api('GET', `${COUPONS}/code/${asked}`);
      expect(res.statusCode, asked).toBe(200);
      expect(res.json().data.id).toBe(c.id);
    }
  });

  it('answers 404 COUPON_NOT_FOUND for unknown ids and codes, 400 for malformed ones', async () => {
    expect((await api('GET', `${COUPONS}/${MISSING}`)).json().error.code).toBe('COUPON_NOT_FOUND');
    expect((await api('GET', `${COUPONS}/code/NOPE-NOTHING`)).statusCode).toBe(404);
    expect((await api('GET', `${COUPONS}/code/has%20space`)).json().error.code).toBe('COUPON_NOT_FOUND');
    const bad = await api('GET', `${COUPONS}/not-a-uuid`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('VALIDATION_ERROR');
    expect((await api('GET', `${COUPONS}/code/${'A'.repeat(65)}`)).statusCode).toBe(400);
  });

  it('need an admin key', async () => {
    const c = await createCoupon(api);
    expect((await store('GET', `${COUPONS}/${c.id}`)).statusCode).toBe(403);
    expect((await store('GET', `${COUPONS}/code/${c.code}`)).statusCode).toBe(403);
  });
});

describe('PATCH /discounts/coupons/:id', () => {
  it('changes only the fields sent', async () => {
    const c = await createCoupon(api, { code: code(), value: 1500, min_order_amount: 1000, max_uses: 10 });
    const expires = hours(72);
    const res = await api('PATCH', `${COUPONS}/${c.id}`, { value: 2000, min_order_amount: 5000, expires_at: expires });
    expect(res.statusCode).toBe(200);
    const patched = res.json().data;
    expect(patched).toEqual({ ...c, value: 2000, min_order_amount: 5000, expires_at: expires, updated_at: patched.updated_at });
    expect(Date.parse(patched.updated_at)).toBeGreaterThanOrEqual(Date.parse(c.updated_at as string));
    const same = await api('PATCH', `${COUPONS}/${c.id}`, {});
    expect(same.json().data).toMatchObject({ value: 2000, min_order_amount: 5000, max_uses: 10 });
  });

  it('clears optional limits and dates with null, renames the code (normalised), pauses and resumes', async () => {
    const c = await createCoupon(api, { max_uses: 5, max_uses_per_customer: 1, starts_at: hours(-1), expires_at: hours(1) });
    const newCode = code('renamed').toLowerCase();
    const res = await api('PATCH', `${COUPONS}/${c.id}`, { code: newCode, max_uses: null, max_uses_per_customer: null, starts_at: null, expires_at: null, is_active: false });
    expect(res.json().data).toMatchObject({ code: newCode.toUpperCase(), max_uses: null, max_uses_per_customer: null, starts_at: null, expires_at: null, is_active: false, status: 'inactive' });
    expect((await api('PATCH', `${COUPONS}/${c.id}`, { is_active: true })).json().data.status).toBe('active');
    expect((await api('GET', `${COUPONS}/code/${newCode}`)).json().data.id).toBe(c.id);
  });

  it('checks the rules on the coupon as it will be', async () => {
    const fixed = await createCoupon(api, { type: 'fixed_amount', value: 50_000, starts_at: hours(10) });
    const url = `${COUPONS}/${fixed.id}`;
    const toPercent = await api('PATCH', url, { type: 'percentage' });
    expect(toPercent.statusCode).toBe(400);
    expect(paths(toPercent)).toContain('body.value');
    expect((await api('PATCH', url, { type: 'percentage', value: 2500 })).json().data).toMatchObject({ type: 'percentage', value: 2500 });
    const early = await api('PATCH', url, { expires_at: hours(5) });
    expect(early.statusCode).toBe(400);
    expect(paths(early)).toContain('body.expires_at');
    const toProducts = await api('PATCH', url, { applicable_to: 'products' });
    expect(toProducts.statusCode).toBe(400);
    expect(paths(toProducts)).toContain('body.applicable_ids');
    const unknown = await api('PATCH', url, { applicable_to: 'products', applicable_ids: [MISSING] });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().error.code).toBe('PRODUCT_NOT_FOUND');
    expect((await api('PATCH', url, { applicable_to: 'products', applicable_ids: [productB.id] })).json().data).toMatchObject({ applicable_to: 'products', applicable_ids: [productB.id] });
    // Back to all: the ids go with it.
    expect((await api('PATCH', url, { applicable_to: 'all' })).json().data).toMatchObject({ applicable_to: 'all', applicable_ids: [] });
    const idsForAll = await api('PATCH', url, { applicable_ids: [productA.id] });
    expect(idsForAll.statusCode).toBe(400);
    expect((await api('GET', url)).json().data).toMatchObject({ type: 'percentage', value: 2500, applicable_to: 'all' });
  });

  it('refuses a code another coupon has (409), and max_uses below the uses already made (409)', async () => {
    const taken = await createCoupon(api);
    const c = await createCoupon(api, { max_uses: 5 });
    const clash = await api('PATCH', `${COUPONS}/${c.id}`, { code: taken.code.toLowerCase() });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().error.details[0].path).toBe('body.code');
    expect((await api('PATCH', `${COUPONS}/${c.id}`, { code: c.code.toLowerCase() })).statusCode).toBe(200);
    for (let i = 0; i < 3; i++) await api('POST', `${COUPONS}/${c.id}/apply`, { discount_amount: 10 });
    const below = await api('PATCH', `${COUPONS}/${c.id}`, { max_uses: 2 });
    expect(below.statusCode).toBe(409);
    expect(below.json().error.details[0].path).toBe('body.max_uses');
    expect((await api('PATCH', `${COUPONS}/${c.id}`, { max_uses: 3 })).json().data).toMatchObject({ max_uses: 3, uses_count: 3, status: 'exhausted' });
  });

  it.each([
    [{ uses_count: 0 }, 'body'],
    [{ value: -5 }, 'body.value'],
    [{ is_active: 'no' }, 'body.is_active'],
    [{ expires_at: 'soon' }, 'body.expires_at'],
    [{ applicable_ids: 'x' }, 'body.applicable_ids'],
    [{ code: 'two words' }, 'body.code'],
  ])('refuses %j with 400 (%s)', async (payload, path) => {
    const c = await createCoupon(api);
    const res = await api('PATCH', `${COUPONS}/${c.id}`, payload);
    expect(res.statusCode).toBe(400);
    expect(paths(res)).toContain(path);
  });

  it('answers 404 for unknown coupons, 400 for malformed ids, 403 for storefront keys', async () => {
    expect((await api('PATCH', `${COUPONS}/${MISSING}`, { value: 5 })).json().error.code).toBe('COUPON_NOT_FOUND');
    expect((await api('PATCH', `${COUPONS}/42`, { value: 5 })).statusCode).toBe(400);
    const c = await createCoupon(api);
    expect((await store('PATCH', `${COUPONS}/${c.id}`, { value: 5 })).statusCode).toBe(403);
    expect((await api('GET', `${COUPONS}/${c.id}`)).json().data.value).toBe(c.value);
  });
});

describe('DELETE /discounts/coupons/:id', () => {
  it('soft-deletes: gone from lists, codes, validation and changes; still readable by id with its uses', async () => {
    const c = await createCoupon(api, { code: code('BYE') });
    const used = await api('POST', `${COUPONS}/${c.id}/apply`, { discount_amount: 25, order_id: MISSING });
    expect(used.statusCode).toBe(200);
    const del = await api('DELETE', `${COUPONS}/${c.id}`);
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');

    const read = await api('GET', `${COUPONS}/${c.id}`);
    expect(read.statusCode).toBe(200);
    expect(read.json().data).toMatchObject({ id: c.id, is_active: false, status: 'deleted', uses_count: 1 });
    expect(Date.parse(read.json().data.deleted_at)).not.toBeNaN();
    const listed = (await api('GET', `${COUPONS}?limit=100`)).json().data.map((x: { id: string }) => x.id);
    expect(listed).not.toContain(c.id);
    expect((await api('GET', `${COUPONS}/code/${c.code}`)).statusCode).toBe(404);
    const validated = (await api('POST', `${COUPONS}/validate`, { code: c.code, order_amount: 1000 })).json();
    expect(validated).toMatchObject({ valid: false, discount_amount: 0, reason: 'not_found', coupon_id: null });
    expect((await api('POST', `${COUPONS}/${c.id}/apply`, { discount_amount: 1 })).statusCode).toBe(404);
    expect((await api('PATCH', `${COUPONS}/${c.id}`, { value: 1 })).statusCode).toBe(404);
    expect((await api('DELETE', `${COUPONS}/${c.id}`)).statusCode).toBe(404);
    const uses = (await api('GET', `${COUPONS}/${c.id}/redemptions`)).json().data;
    expect(uses).toMatchObject([{ coupon_id: c.id, order_id: MISSING, amount: 25 }]);
  });

  it('answers 404 for unknown coupons, 400 for malformed ids, 403 for storefront keys', async () => {
    expect((await api('DELETE', `${COUPONS}/${MISSING}`)).json().error.code).toBe('COUPON_NOT_FOUND');
    expect((await api('DELETE', `${COUPONS}/x`)).statusCode).toBe(400);
    const c = await createCoupon(api);
    expect((await store('DELETE', `${COUPONS}/${c.id}`)).statusCode).toBe(403);
    expect((await api('GET', `${COUPONS}/${c.id}`)).json().data.status).toBe('active');
  });
});
