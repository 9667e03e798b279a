import { Database, OutboxRelay } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Discounts } from '../src/index.js';
import { caller, createProduct, discountsApp, MISSING, VOLUME, type Caller } from './helpers.js';

let t: TestApp;
let shop: TestTenant;
let api: Caller;
let store: Caller;
beforeAll(async () => {
  t = await discountsApp();
  shop = await t.createTenant({ currency: 'PEN' });
  api = caller(t, shop);
  store = caller(t, shop, shop.storefrontToken);
});
afterAll(async () => t?.close());

const tier = async (productId: string, minQuantity: number, value: number, extra: Record<string, unknown> = {}) => {
  const res = await api('POST', VOLUME, { product_id: productId, min_quantity: minQuantity, type: 'percentage', value, ...extra });
  if (res.statusCode !== 201) throw new Error(`tier not created: ${res.body}`);
  return res.json() as { id: string };
};

describe('POST /discounts/volume', () => {
  it('adds a percentage tier to a product and answers the bare tier', async () => {
    const p = await createProduct(api);
    const res = await api('POST', VOLUME, { product_id: p.id, min_quantity: 10, type: 'percentage', value: 500 });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).not.toHaveProperty('data');
    expect(body).toEqual({ id: expect.any(String), product_id: p.id, min_quantity: 10, type: 'percentage', value: 500, currency: 'PEN', amounts: {}, created_at: expect.any(String), updated_at: expect.any(String) });
    const implicit = await api('POST', VOLUME, { product_id: p.id, min_quantity: 20, value: 800, currency: 'USD' });
    expect(implicit.json()).toMatchObject({ type: 'percentage', currency: 'USD' });
  });

  it('keeps a product’s tiers strictly increasing: one per quantity (409), more off for more units (422)', async () => {
    const p = await createProduct(api);
    await tier(p.id, 10, 500);
    await tier(p.id, 50, 1500);
    const same = await api('POST', VOLUME, { product_id: p.id, min_quantity: 10, type: 'percentage', value: 700 });
    expect(same.statusCode).toBe(409);
    expect(same.json().error).toMatchObject({ code: 'CONFLICT', details: [{ path: 'body.min_quantity' }] });
    for (const [minQuantity, value] of [[20, 500], [20, 400], [20, 1500], [5, 500], [5, 600], [60, 1500], [100, 1000]]) {
      const res = await api('POST', VOLUME, { product_id: p.id, min_quantity: minQuantity, type: 'percentage', value });
      expect(res.statusCode, `${minQuantity}@${value}`).toBe(422);
      expect(res.json().error).toMatchObject({ code: 'VOLUME_TIERS_NOT_INCREASING', details: [{ path: 'body.value' }] });
    }
    const between = await api('POST', VOLUME, { product_id: p.id, min_quantity: 20, type: 'percentage', value: 1000 });
    expect(between.statusCode).toBe(201);
    await tier(p.id, 2, 100);
    await tier(p.id, 1000, 10_000);
    const listed = (await api('GET', `${VOLUME}?filter[product_id]=${p.id}&sort=min_quantity`)).json().data;
    expect(listed.map((x: { min_quantity: number; value: number }) => [x.min_quantity, x.value])).toEqual([[2, 100], [10, 500], [20, 1000], [50, 1500], [1000, 10_000]]);
  });

  it('lets only one of two tiers that contradict each other in at once', async () => {
    const p = await createProduct(api);
    const [a, b] = await Promise.all([
      api('POST', VOLUME, { product_id: p.id, min_quantity: 10, type: 'percentage', value: 800 }),
      api('POST', VOLUME, { product_id: p.id, min_quantity: 20, type: 'percentage', value: 300 }),
    ]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([201, 422]);
    expect((await api('GET', `${VOLUME}?filter[product_id]=${p.id}`)).json().data).toHaveLength(1);
  });

  it.each([
    [{ min_quantity: 2, value: 100 }, 'body.product_id'],
    [{ product_id: 'x', min_quantity: 2, value: 100 }, 'body.product_id'],
    [{ product_id: MISSING, value: 100 }, 'body.min_quantity'],
    [{ product_id: MISSING, min_quantity: 0, value: 100 }, 'body.min_quantity'],
    [{ product_id: MISSING, min_quantity: 2.5, value: 100 }, 'body.min_quantity'],
    [{ product_id: MISSING, min_quantity: 2 }, 'body.value'],
    [{ product_id: MISSING, min_quantity: 2, value: 0 }, 'body.value'],
    [{ product_id: MISSING, min_quantity: 2, value: 10_001 }, 'body.value'],
    [{ product_id: MISSING, min_quantity: 2, value: 12.5 }, 'body.value'],
    [{ product_id: MISSING, min_quantity: 2, value: 100, type: 'tiered' }, 'body.type'],
    [{ product_id: MISSING, min_quantity: 2, value: 100, amounts: { USD: 50 } }, 'body.amounts'],
    [{ product_id: MISSING, min_quantity: 2, value: 100, currency: 'pen' }, 'body.currency'],
    [{ product_id: MISSING, min_quantity: 2, value: 100, max_quantity: 9 }, 'body'],
  ])('refuses %j with 400 (%s)', async (payload, path) => {
    const res = await api('POST', VOLUME, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
    expect(res.json().error.details.map((d: { path: string }) => d.path).join(' ')).toContain(path);
  });

  it('refuses a product the store does not have (422 PRODUCT_NOT_FOUND)', async () => {
    const res = await api('POST', VOLUME, { product_id: MISSING, min_quantity: 2, type: 'percentage', value: 100 });
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ code: 'PRODUCT_NOT_FOUND', details: [{ path: 'body.product_id' }] });
  });

  it('needs an admin key', async () => {
    const p = await createProduct(api);
    expect((await store('POST', VOLUME, { product_id: p.id, min_quantity: 2, value: 100 })).statusCode).toBe(403);
  });
});

describe('GET and DELETE /discounts/volume', () => {
  let listing: Caller;
  let listingStore: Caller;
  let ids: string[];
  let productId: string;
  beforeAll(async () => {
    const tenant = await t.createTenant();
    listing = caller(t, tenant);
    listingStore = caller(t, tenant, tenant.storefrontToken);
    const [p, q] = [await createProduct(listing, 'P'), await createProduct(listing, 'Q')];
    productId = p.id;
    ids = [];
    for (const [product, min, value] of [[p.id, 5, 100], [q.id, 5, 200], [p.id, 10, 300]] as const) {
      ids.push((await listing('POST', VOLUME, { product_id: product, min_quantity: min, type: 'percentage', value })).json().id);
    }
  });

  it('lists the store’s tiers newest first, pages them, filters by product; storefront keys may read', async () => {
    const all = (await listing('GET', VOLUME)).json();
    expect(all.data.map((x: { id: string }) => x.id)).toEqual([...ids].reverse());
    expect(all.meta.pagination).toEqual({ cursor: null, has_next: false, limit: 25 });
    const first = (await listing('GET', `${VOLUME}?limit=2`)).json();
    expect(first.meta.pagination.has_next).toBe(true);
    const rest = (await listing('GET', `${VOLUME}?limit=2&cursor=${first.meta.pagination.cursor}`)).json();
    expect([...first.data, ...rest.data].map((x: { id: string }) => x.id)).toEqual([...ids].reverse());
    expect((await listing('GET', `${VOLUME}?filter[product_id]=${productId}&sort=min_quantity`)).json().data.map((x: { value: number }) => x.value)).toEqual([100, 300]);
    expect((await listing('GET', `${VOLUME}?limit=500`)).json().meta.pagination.limit).toBe(100);
    expect((await listingStore('GET', VOLUME)).json().data).toHaveLength(3);
    for (const qs of ['?filter[product_id]=x', '?filter[sku]=x', '?sort=value', '?limit=-1']) {
      expect((await listing('GET', `${VOLUME}${qs}`)).statusCode, qs).toBe(400);
    }
  });

  it('deletes a tier (204), then 404; malformed ids are 400; storefront keys may not delete', async () => {
    const id = ids[1];
    const forbidden = await listingStore('DELETE', `${VOLUME}/${id}`);
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().error.code).toBe('FORBIDDEN');
    const del = await listing('DELETE', `${VOLUME}/${id}`);
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    const again = await listing('DELETE', `${VOLUME}/${id}`);
    expect(again.statusCode).toBe(404);
    expect(again.json().error.code).toBe('VOLUME_DISCOUNT_NOT_FOUND');
    expect((await listing('DELETE', `${VOLUME}/nope`)).statusCode).toBe(400);
    expect((await listing('GET', VOLUME)).json().data).toHaveLength(2);
  });
});

describe('Discounts.volumeDiscountFor and volumeDiscountsFor (for the cart)', () => {
  let db: Database;
  let discounts: Discounts;
  let product: { id: string };
  let plain: { id: string };
  beforeAll(async () => {
    db = t.app.container.resolve(Database);
    discounts = t.app.container.resolve(Discounts);
    product = await createProduct(api, 'Bulk yarn', 999);
    plain = await createProduct(api, 'No tiers', 999);
    await tier(product.id, 10, 500); // 5.00% from 10 units
    await tier(product.id, 25, 1250); // 12.50% from 25 units
  });
  const inShop = <T>(work: Parameters<Database['tenant']>[0]) => db.tenant(work, shop.id) as Promise<T>;

  it('gives the highest tier the quantity reaches, on the line total, rounded down', async () => {
    const quote = (quantity: number, unitPrice = 999) => inShop<{ discountAmount: number; tier: { minQuantity: number } | null }>((tx) => discounts.volumeDiscountFor(tx, product.id, quantity, unitPrice));
    expect(await quote(9)).toEqual({ discountAmount: 0, tier: null });
    const ten = await quote(10); // 5% of 9990 = 499.5
    expect(ten.discountAmount).toBe(499);
    expect(ten.tier?.minQuantity).toBe(10);
    expect((await quote(24)).discountAmount).toBe(1198); // 5% of 23976 = 1198.8
    const bulk = await quote(25, 1000); // 12.5% of 25000
    expect(bulk).toMatchObject({ discountAmount: 3125, tier: { minQuantity: 25 } });
    expect((await quote(1_000_000, 2_147_483_647)).discountAmount).toBe(Math.floor((1_000_000 * 2_147_483_647 * 1250) / 10_000));
    expect(await inShop((tx) => discounts.volumeDiscountFor(tx, plain.id, 500, 999))).toEqual({ discountAmount: 0, tier: null });
  });

  it('counts the lines of one product together (its variants), each line discounted on its own total', async () => {
    const quotes = await inShop<Array<{ discountAmount: number; tier: unknown }>>((tx) =>
      discounts.volumeDiscountsFor(tx, [
        { productId: product.id, quantity: 6, unitPrice: 1000 },
        { productId: plain.id, quantity: 30, unitPrice: 1000 },
        { productId: product.id, quantity: 4, unitPrice: 2000 },
      ]),
    );
    expect(quotes.map((q) => q.discountAmount)).toEqual([300, 0, 400]);
    expect(await inShop((tx) => discounts.volumeDiscountsFor(tx, []))).toEqual([]);
  });

  it('sees only the tiers of the tenant it runs for', async () => {
    const other = await t.createTenant();
    expect(await db.tenant((tx) => discounts.volumeDiscountFor(tx, product.id, 100, 1000), other.id)).toEqual({ discountAmount: 0, tier: null });
  });
});

describe('events and the catalog', () => {
  const outbox = (sql: string, params: unknown[]) => t.app.orm.em.getConnection().execute<Array<{ id: string; type: string; data: Record<string, unknown> }>>(sql, params);

  it('announces tiers created and deleted through the outbox', async () => {
    const p = await createProduct(api);
    const created = await tier(p.id, 3, 300);
    await api('DELETE', `${VOLUME}/${created.id}`);
    const events = await outbox(`select type, data from core_outbox where data->>'id' = ? order by occurred_at`, [created.id]);
    expect(events.map((e) => e.type)).toEqual(['discounts.volume_discount.created', 'discounts.volume_discount.deleted']);
    expect(events[0].data).toEqual({ id: created.id, product_id: p.id, min_quantity: 3, type: 'percentage', value: 300, currency: 'PEN' });
  });

  it('drops the tiers of a product the catalog deleted, once the event is relayed', async () => {
    const gone = await createProduct(api, 'Discontinued');
    const kept = await createProduct(api, 'Kept');
    await tier(gone.id, 2, 100);
    await tier(gone.id, 4, 200);
    await tier(kept.id, 2, 100);
    expect((await api('DELETE', `/api/v1/catalog/products/${gone.id}`)).statusCode).toBe(204);
    const [deleted] = await outbox(`select id from core_outbox where type = 'products.product.deleted' and data->>'id' = ?`, [gone.id]);
    expect(await t.app.container.resolve(OutboxRelay).dispatch([deleted.id])).toBe(1);
    expect((await api('GET', `${VOLUME}?filter[product_id]=${gone.id}`)).json().data).toEqual([]);
    expect((await api('GET', `${VOLUME}?filter[product_id]=${kept.id}`)).json().data).toHaveLength(1);
  });
});
