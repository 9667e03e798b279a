import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, createCustomer, createProduct, MISSING, placeOrder, registerCustomer, REVIEWS, reviewsApp } from './helpers.js';

let t: TestApp;
let shop: TestTenant;
let admin: ReturnType<typeof caller>;

const SETTINGS = '/admin/settings/reviews';
const DEFAULTS = { enabled: true, visible: true, auto_approve: false, auto_approve_min_rating: 1, verified_purchases_only: false };
const productSettings = (id: string) => `/admin/catalog/products/${id}/review-settings`;

beforeAll(async () => {
  t = await reviewsApp();
  shop = await t.createTenant();
  admin = caller(t, shop);
});
afterAll(async () => t?.close());

/** A store of its own, for tests that change the store's settings. */
async function freshStore() {
  const tenant = await t.createTenant();
  return { tenant, admin: caller(t, tenant), storefront: caller(t, tenant, tenant.storefrontToken) };
}

describe('the store settings', () => {
  it('starts with the defaults and changes one field at a time, typed', async () => {
    const { admin } = await freshStore();
    expect((await admin('GET', SETTINGS)).json()).toEqual({ data: DEFAULTS });
    const changes: Array<[string, string, unknown]> = [
      ['enabled', 'false', false],
      ['visible', ' false ', false],
      ['auto_approve', 'true', true],
      ['auto_approve_min_rating', '4', 4],
      ['verified_purchases_only', 'true', true],
    ];
    for (const [field, value, typed] of changes) {
      const res = await admin('POST', SETTINGS, { field, value });
      expect(res.statusCode).toBe(200);
      expect(res.json().data[field]).toBe(typed);
    }
    expect((await admin('GET', SETTINGS)).json().data).toEqual({ enabled: false, visible: false, auto_approve: true, auto_approve_min_rating: 4, verified_purchases_only: true });
    expect((await admin('POST', SETTINGS, { field: 'enabled', value: 'true' })).json().data.enabled).toBe(true);
  });

  it.each([
    ['an unknown field', { field: 'colour', value: 'true' }, 'body.field', 'There is no review setting of this name'],
    ['a boolean that is not true or false', { field: 'auto_approve', value: 'yes' }, 'body.value', 'The setting auto_approve takes true or false'],
    ['a boolean in capitals', { field: 'enabled', value: 'TRUE' }, 'body.value', 'The setting enabled takes true or false'],
    ['a rating of 0', { field: 'auto_approve_min_rating', value: '0' }, 'body.value', 'The setting auto_approve_min_rating takes a rating from 1 to 5'],
    ['a rating of 6', { field: 'auto_approve_min_rating', value: '6' }, 'body.value', 'The setting auto_approve_min_rating takes a rating from 1 to 5'],
    ['a rating of 4.5', { field: 'auto_approve_min_rating', value: '4.5' }, 'body.value', 'The setting auto_approve_min_rating takes a rating from 1 to 5'],
    ['a value that is not a string', { field: 'enabled', value: true }, 'body.value', undefined],
    ['no value', { field: 'enabled' }, 'body.value', undefined],
    ['no field', { value: 'true' }, 'body.field', undefined],
    ['an extra key', { field: 'enabled', value: 'true', scope: 'all' }, 'body', undefined],
  ])('refuses %s with 400 VALIDATION_ERROR and changes nothing', async (_name, body, path, message) => {
    const res = await admin('POST', SETTINGS, body);
    expect(res.statusCode).toBe(400);
    const { error } = res.json();
    expect(error.code).toBe('VALIDATION_ERROR');
    if (message) expect(error.message).toBe(message);
    expect(JSON.stringify(error.details)).toContain(path);
    expect((await admin('GET', SETTINGS)).json().data).toEqual(DEFAULTS);
  });

  const XSS = ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', "true' onmouseover='alert(1)", 'javascript:alert(1)'];
  it.each(XSS)('never stores or repeats markup sent as a setting: %s', async (attack) => {
    for (const body of [{ field: 'auto_approve', value: attack }, { field: attack, value: 'true' }]) {
      const res = await admin('POST', SETTINGS, body);
      expect(res.statusCode).toBe(400);
      expect(res.body).not.toContain(attack);
      expect(res.body).not.toMatch(/<[a-zA-Z]/);
      const product = await createProduct(t, shop);
      const override = await admin('POST', productSettings(product.id), body);
      expect(override.statusCode).toBe(400);
      expect(override.body).not.toContain(attack);
    }
    const removed = await admin('DELETE', `${productSettings(MISSING)}/${encodeURIComponent(attack)}`);
    expect(removed.statusCode).toBe(400);
    expect(removed.body).not.toContain(attack);
    expect((await admin('GET', SETTINGS)).json().data).toEqual(DEFAULTS);
  });

  it('is for admin keys only', async () => {
    const customer = await registerCustomer(t, shop);
    for (const token of [shop.storefrontToken, customer.token]) {
      expect((await caller(t, shop, token)('GET', SETTINGS)).statusCode).toBe(403);
      expect((await caller(t, shop, token)('POST', SETTINGS, { field: 'enabled', value: 'false' })).statusCode).toBe(403);
    }
    expect((await t.request({ method: 'GET', url: SETTINGS, headers: { 'x-tenant-id': shop.id } })).statusCode).toBe(401);
    expect((await admin('GET', SETTINGS)).json().data.enabled).toBe(true);
  });

  it("are each store's own", async () => {
    const a = await freshStore();
    const b = await freshStore();
    await a.admin('POST', SETTINGS, { field: 'auto_approve', value: 'true' });
    expect((await b.admin('GET', SETTINGS)).json().data.auto_approve).toBe(false);
  });
});

describe("a product's overrides", () => {
  it('override the store, show what applies and which fields the product sets, and come off again', async () => {
    const product = await createProduct(t, shop);
    expect((await admin('GET', productSettings(product.id))).json().data).toEqual({ product_id: product.id, settings: DEFAULTS, overrides: {} });
    const set = await admin('POST', productSettings(product.id), { field: 'auto_approve', value: 'true' });
    expect(set.statusCode).toBe(200);
    expect(set.json().data).toEqual({ product_id: product.id, settings: { ...DEFAULTS, auto_approve: true }, overrides: { auto_approve: true } });
    await admin('POST', productSettings(product.id), { field: 'auto_approve_min_rating', value: '5' });
    await admin('POST', productSettings(product.id), { field: 'auto_approve_min_rating', value: '3' });
    expect((await admin('GET', productSettings(product.id))).json().data.overrides).toEqual({ auto_approve: true, auto_approve_min_rating: 3 });
    // Another product keeps the store's settings.
    const other = await createProduct(t, shop);
    expect((await admin('GET', productSettings(other.id))).json().data.settings).toEqual(DEFAULTS);

    const removed = await admin('DELETE', `${productSettings(product.id)}/auto_approve`);
    expect(removed.statusCode).toBe(204);
    expect((await admin('GET', productSettings(product.id))).json().data).toEqual({ product_id: product.id, settings: { ...DEFAULTS, auto_approve_min_rating: 3 }, overrides: { auto_approve_min_rating: 3 } });
    const again = await admin('DELETE', `${productSettings(product.id)}/auto_approve`);
    expect(again.statusCode).toBe(404);
    expect(again.json().error.code).toBe('REVIEW_SETTING_OVERRIDE_NOT_FOUND');
    expect((await admin('DELETE', `${productSettings(product.id)}/colour`)).json().error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'params.field' }] });
  });

  it('an override wins over a later change of the store setting', async () => {
    const mine = await freshStore();
    const product = await createProduct(t, mine.tenant);
    await mine.admin('POST', productSettings(product.id), { field: 'visible', value: 'true' });
    await mine.admin('POST', SETTINGS, { field: 'visible', value: 'false' });
    expect((await mine.admin('GET', productSettings(product.id))).json().data.settings.visible).toBe(true);
    expect((await mine.admin('GET', SETTINGS)).json().data.visible).toBe(false);
  });

  it('answer an unknown product, or another store\'s, with 404 PRODUCT_NOT_FOUND', async () => {
    const other = await t.createTenant();
    const theirs = await createProduct(t, other);
    for (const id of [MISSING, theirs.id]) {
      for (const [method, url, body] of [
        ['GET', productSettings(id), undefined],
        ['POST', productSettings(id), { field: 'enabled', value: 'false' }],
        ['DELETE', `${productSettings(id)}/enabled`, undefined],
        ['GET', `${productSettings(id)}-panel`, undefined],
      ] as const) {
        const res = await admin(method, url, body);
        expect(res.statusCode, `${method} ${url}`).toBe(404);
        expect(res.json().error.code).toBe('PRODUCT_NOT_FOUND');
      }
    }
    expect((await caller(t, other)('GET', productSettings(theirs.id))).json().data.overrides).toEqual({});
    expect((await admin('GET', productSettings('not-a-uuid'))).statusCode).toBe(400);
  });
});

describe('what the settings do', () => {
  it('enabled=false: no new reviews (422 REVIEWS_DISABLED), per store or per product', async () => {
    const s = await freshStore();
    const product = await createProduct(t, s.tenant);
    const customer = await createCustomer(t, s.tenant);
    await s.admin('POST', SETTINGS, { field: 'enabled', value: 'false' });
    const refused = await s.admin('POST', REVIEWS, { product_id: product.id, customer_id: customer, rating: 5 });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error).toMatchObject({ code: 'REVIEWS_DISABLED', message: 'This store does not take reviews of this product' });
    await s.admin('POST', productSettings(product.id), { field: 'enabled', value: 'true' });
    expect((await s.admin('POST', REVIEWS, { product_id: product.id, customer_id: customer, rating: 5 })).statusCode).toBe(201);
  });

  it('visible=false: the storefront sees no reviews and a zero rating; admins still see them', async () => {
    const s = await freshStore();
    const product = await createProduct(t, s.tenant);
    const created = await s.admin('POST', REVIEWS, { product_id: product.id, customer_id: await createCustomer(t, s.tenant), rating: 4 });
    await s.admin('POST', `/admin/reviews/${created.json().data.id}/approve`);
    await s.admin('POST', productSettings(product.id), { field: 'visible', value: 'false' });
    expect((await s.storefront('GET', `${REVIEWS}/products/${product.id}`)).json()).toEqual({ data: [], meta: { pagination: { cursor: null, has_next: false, limit: 25 } } });
    expect((await s.storefront('GET', `${REVIEWS}/products/${product.id}/rating`)).json()).toEqual({ product_id: product.id, avg_rating: 0, total_reviews: 0 });
    expect((await s.admin('GET', `${REVIEWS}/products/${product.id}`)).json().data).toHaveLength(1);
    expect((await s.admin('GET', `${REVIEWS}/products/${product.id}/rating`)).json()).toMatchObject({ avg_rating: 4, total_reviews: 1 });
    await s.admin('DELETE', `${productSettings(product.id)}/visible`);
    expect((await s.storefront('GET', `${REVIEWS}/products/${product.id}/rating`)).json()).toMatchObject({ total_reviews: 1 });
  });

  it('auto_approve approves at once from the minimum rating, with both events, and counts in the rating', async () => {
    const s = await freshStore();
    const product = await createProduct(t, s.tenant);
    await s.admin('POST', SETTINGS, { field: 'auto_approve', value: 'true' });
    await s.admin('POST', SETTINGS, { field: 'auto_approve_min_rating', value: '4' });
    const high = await s.admin('POST', REVIEWS, { product_id: product.id, customer_id: await createCustomer(t, s.tenant), rating: 4 });
    expect(high.json().data).toMatchObject({ status: 'approved' });
    expect(high.json().data.moderated_at).not.toBeNull();
    const low = await s.admin('POST', REVIEWS, { product_id: product.id, customer_id: await createCustomer(t, s.tenant), rating: 3 });
    expect(low.json().data.status).toBe('pending');
    expect((await s.storefront('GET', `${REVIEWS}/products/${product.id}/rating`)).json()).toEqual({ product_id: product.id, avg_rating: 4, total_reviews: 1 });
    const types = await t.app.orm.em.getConnection().execute<Array<{ type: string }>>(`select type from core_outbox where data->>'id' = ? order by occurred_at`, [high.json().data.id]);
    expect(types.map((e) => e.type).sort()).toEqual(['reviews.review.approved', 'reviews.review.created']);
  });

  it('verified_purchases_only: a review needs a paid order of the customer that holds the product', async () => {
    const s = await freshStore();
    const product = await createProduct(t, s.tenant);
    await s.admin('POST', SETTINGS, { field: 'verified_purchases_only', value: 'true' });
    const ana = await registerCustomer(t, s.tenant);
    const without = await caller(t, s.tenant, ana.token)('POST', REVIEWS, { product_id: product.id, customer_id: ana.id, rating: 5 });
    expect(without.statusCode).toBe(422);
    expect(without.json().error).toMatchObject({ code: 'VERIFIED_PURCHASE_REQUIRED', details: [{ path: 'body.order_id' }] });
    const order = await placeOrder(t, s.tenant, ana.email, [product.variantId]);
    const verified = await caller(t, s.tenant, ana.token)('POST', REVIEWS, { product_id: product.id, customer_id: ana.id, order_id: order.id, rating: 5 });
    expect(verified.statusCode).toBe(201);
    expect(verified.json().data.verified_purchase).toBe(true);
  });
});
