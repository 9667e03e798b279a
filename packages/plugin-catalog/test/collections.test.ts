import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, catalogApp, createProduct, MISSING } from './helpers.js';

let t: TestApp;
let shop: TestTenant;
let api: ReturnType<typeof caller>;
let store: ReturnType<typeof caller>;
beforeAll(async () => {
  t = await catalogApp();
  shop = await t.createTenant();
  api = caller(t, shop);
  store = caller(t, shop, shop.storefrontToken);
});
afterAll(async () => t?.close());

const BASE = '/api/v1/catalog/collections';
const create = async (payload: Record<string, unknown>) => {
  const res = await api('POST', BASE, payload);
  if (res.statusCode !== 201) throw new Error(`collection not created: ${res.body}`);
  return res.json().data;
};
const titles = (res: { json(): { data: Array<{ title: string }> } }) => res.json().data.map((c) => c.title);

describe('POST /catalog/collections', () => {
  it('creates with defaults, a slug from the title and the next position', async () => {
    const res = await api('POST', BASE, { title: 'Summer Sale!', description: 'Hot', seo_title: 'Sale', seo_description: 'Cheap things' });
    expect(res.statusCode).toBe(201);
    const c = res.json().data;
    expect(c).toMatchObject({
      title: 'Summer Sale!', slug: 'summer-sale', description: 'Hot', status: 'active', sort_order: 'manual',
      seo_title: 'Sale', seo_description: 'Cheap things', image_media_id: null, image_url: null, product_count: 0,
    });
    expect(c.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(c.created_at)).not.toBeNaN();
    const next = await create({ title: 'Summer Sale!', status: 'draft', sort_order: '-created_at' });
    expect(next).toMatchObject({ slug: 'summer-sale-2', status: 'draft', sort_order: '-created_at', position: c.position + 1 });
    expect((await create({ title: 'Summer Sale!', slug: '' })).slug).toBe('summer-sale-3');
  });

  it('gives collections created at once from one title each its own slug', async () => {
    const made = await Promise.all(Array.from({ length: 5 }, () => api('POST', BASE, { title: 'Winter Sale' })));
    expect(made.map((res) => res.statusCode)).toEqual(Array(5).fill(201));
    expect(made.map((res) => res.json().data.slug).sort()).toEqual(['winter-sale', 'winter-sale-2', 'winter-sale-3', 'winter-sale-4', 'winter-sale-5']);
  });

  it('keeps an explicit slug, refuses a taken one with 409 and a malformed one with 400', async () => {
    expect((await create({ title: 'Winter', slug: 'cold-days' })).slug).toBe('cold-days');
    const taken = await api('POST', BASE, { title: 'Other', slug: 'cold-days' });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().error).toMatchObject({ code: 'CONFLICT', details: [{ path: 'body.slug' }] });
    const bad = await api('POST', BASE, { title: 'Other', slug: 'Cold Days' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.details[0].path).toBe('body.slug');
  });

  it.each([
    [{}, 'body.title'],
    [{ title: '' }, 'body.title'],
    [{ title: 42 }, 'body.title'],
    [{ title: 'x', status: 'hidden' }, 'body.status'],
    [{ title: 'x', sort_order: 'price' }, 'body.sort_order'],
    [{ title: 'x', image_media_id: 'not-a-uuid' }, 'body.image_media_id'],
    [{ title: 'x', position: 3 }, 'body'],
    [{ title: 'x', colour: 'red' }, 'body'],
  ])('refuses %j (%s)', async (payload, path) => {
    const res = await api('POST', BASE, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
    expect(res.json().error.details.map((d: { path: string }) => d.path).join(' ')).toContain(path);
  });

  it('refuses a cover that is not an uploaded media file of the store (422 MEDIA_NOT_FOUND)', async () => {
    const res = await api('POST', BASE, { title: 'Covered', image_media_id: MISSING });
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ code: 'MEDIA_NOT_FOUND', details: [{ path: 'body.image_media_id' }] });
  });

  it('needs an admin key', async () => {
    const res = await store('POST', BASE, { title: 'Nope' });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('FORBIDDEN');
  });
});

describe('GET, PUT and DELETE /catalog/collections/:id', () => {
  it('reads, replaces (absent fields reset, slug and position kept) and deletes', async () => {
    const c = await create({ title: 'Ponchos', description: 'Warm', seo_title: 'Ponchos!', sort_order: '-created_at' });
    const url = `${BASE}/${c.id}`;
    const read = await api('GET', url);
    expect(read.statusCode).toBe(200);
    expect(read.json().data).toEqual(c);

    const put = await api('PUT', url, { title: 'Wool ponchos', status: 'draft' });
    expect(put.statusCode).toBe(200);
    expect(put.json().data).toMatchObject({
      id: c.id, title: 'Wool ponchos', slug: 'ponchos', status: 'draft', sort_order: 'manual', description: null, seo_title: null, position: c.position, created_at: c.created_at,
    });
    const moved = await api('PUT', url, { title: 'Wool ponchos', slug: '', position: 40 });
    expect(moved.json().data).toMatchObject({ slug: 'wool-ponchos', position: 40, status: 'active' });
    const renamed = await api('PUT', url, { title: 'Wool ponchos', slug: 'wool-ponchos' });
    expect(renamed.json().data.slug).toBe('wool-ponchos');

    const del = await api('DELETE', url);
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    const gone = await api('GET', url);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().error.code).toBe('COLLECTION_NOT_FOUND');
    expect((await api('DELETE', url)).statusCode).toBe(404);
    expect((await api('PUT', url, { title: 'x' })).statusCode).toBe(404);
  });

  it('refuses a PUT with a taken slug, without a title, or with a bad position', async () => {
    await create({ title: 'Taken', slug: 'taken-slug' });
    const c = await create({ title: 'Free' });
    const url = `${BASE}/${c.id}`;
    const taken = await api('PUT', url, { title: 'Free', slug: 'taken-slug' });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().error.details[0].path).toBe('body.slug');
    for (const body of [{ slug: 'x' }, { title: 'x', position: -1 }, { title: 'x', position: 1.5 }, { title: 'x', position: '2' }]) {
      const res = await api('PUT', url, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    expect((await api('GET', url)).json().data.slug).toBe('free');
  });

  it('answers 400 for malformed ids', async () => {
    for (const [method, url] of [
      ['GET', `${BASE}/42`], ['PUT', `${BASE}/42`], ['DELETE', `${BASE}/42`], ['GET', `${BASE}/42/products`],
      ['POST', `${BASE}/42/products`], ['DELETE', `${BASE}/${MISSING}/products/nope`],
    ] as const) {
      const res = await api(method, url, method === 'PUT' || method === 'POST' ? { title: 'x', product_id: MISSING } : undefined);
      expect(res.statusCode, `${method} ${url}`).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
  });
});

describe('GET /catalog/collections', () => {
  let other: TestTenant;
  let list: (qs: string, token?: string) => ReturnType<TestApp['request']>;
  beforeAll(async () => {
    other = await t.createTenant();
    const as = caller(t, other);
    const made: Array<{ id: string }> = [];
    for (const [title, status] of [['Bravo', 'active'], ['Alpha', 'draft'], ['Delta', 'active'], ['Charlie', 'active']] as const) {
      made.push((await as('POST', BASE, { title, status })).json().data);
    }
    // Delta gets two products, Bravo one: product_count drives one of the sorts.
    for (const [collection, n] of [[made[2], 2], [made[0], 1]] as const) {
      for (let i = 0; i < n; i++) {
        const p = await createProduct(t, other);
        await as('POST', `${BASE}/${collection.id}/products`, { product_id: p.id });
      }
    }
    list = (qs, token) => t.request({ method: 'GET', url: `${BASE}?${qs}`, headers: other.headers(token) });
  });

  it('lists newest first by default, sorts by title, position and product_count both ways', async () => {
    expect(titles(await list(''))).toEqual(['Charlie', 'Delta', 'Alpha', 'Bravo']);
    expect(titles(await list('sort=title'))).toEqual(['Alpha', 'Bravo', 'Charlie', 'Delta']);
    expect(titles(await list('sort=-title'))).toEqual(['Delta', 'Charlie', 'Bravo', 'Alpha']);
    expect(titles(await list('sort=position'))).toEqual(['Bravo', 'Alpha', 'Delta', 'Charlie']);
    expect(titles(await list('sort=-position'))).toEqual(['Charlie', 'Delta', 'Alpha', 'Bravo']);
    expect(titles(await list('sort=created_at'))).toEqual(['Bravo', 'Alpha', 'Delta', 'Charlie']);
    const byCount = (await list('sort=-product_count')).json().data;
    expect(byCount.map((c: { title: string; product_count: number }) => [c.title, c.product_count]).slice(0, 2)).toEqual([['Delta', 2], ['Bravo', 1]]);
    expect(titles(await list('sort=product_count')).slice(2)).toEqual(['Bravo', 'Delta']);
  });

  it('filters by status; storefront keys see active collections only', async () => {
    expect(titles(await list('filter[status]=draft'))).toEqual(['Alpha']);
    expect(titles(await list('filter[status]=active&sort=title'))).toEqual(['Bravo', 'Charlie', 'Delta']);
    expect(titles(await list('sort=title', other.storefrontToken))).toEqual(['Bravo', 'Charlie', 'Delta']);
    expect((await list('filter[status]=draft', other.storefrontToken)).json().data).toEqual([]);
  });

  it('pages by cursor with limit (default 25, clamped at 100)', async () => {
    const first = (await list('limit=3&sort=title')).json();
    expect(first.data.map((c: { title: string }) => c.title)).toEqual(['Alpha', 'Bravo', 'Charlie']);
    expect(first.meta.pagination).toMatchObject({ has_next: true, limit: 3 });
    const second = (await list(`limit=3&sort=title&cursor=${encodeURIComponent(first.meta.pagination.cursor)}`)).json();
    expect(second.data.map((c: { title: string }) => c.title)).toEqual(['Delta']);
    expect(second.meta.pagination).toEqual({ cursor: null, has_next: false, limit: 3 });
    // A cursor on product_count, a sort key that moves, still pages without repeats.
    const a = (await list('limit=2&sort=-product_count')).json();
    const b = (await list(`limit=2&sort=-product_count&cursor=${encodeURIComponent(a.meta.pagination.cursor)}`)).json();
    expect(new Set([...a.data, ...b.data].map((c: { id: string }) => c.id)).size).toBe(4);
    expect((await list('')).json().meta.pagination.limit).toBe(25);
    expect((await list('limit=1000')).json().meta.pagination.limit).toBe(100);
  });

  it.each(['filter[title]=x', 'filter[status]=archived', 'sort=price', 'sort=-slug', 'limit=0', 'limit=ten', 'q=bravo', 'cursor=%%%'])('answers 400 for %s', async (qs) => {
    const res = await list(qs);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
  });

  it('refuses a cursor made for another sort', async () => {
    const first = (await list('limit=1&sort=title')).json();
    const res = await list(`limit=1&sort=position&cursor=${encodeURIComponent(first.meta.pagination.cursor)}`);
    expect(res.statusCode).toBe(400);
  });
});

describe('products in a collection', () => {
  it('adds products, refuses duplicates, unknown products and bad input, and counts them', async () => {
    const c = await create({ title: 'Members' });
    const p = await createProduct(t, shop, { title: 'Member one' });
    const url = `${BASE}/${c.id}/products`;
    const added = await api('POST', url, { product_id: p.id });
    expect(added.statusCode).toBe(201);
    expect(added.json().data).toMatchObject({ collection_id: c.id, product_id: p.id, position: 0 });
    expect(added.json().data.id).toMatch(/^[0-9a-f-]{36}$/);

    const twice = await api('POST', url, { product_id: p.id });
    expect(twice.statusCode).toBe(409);
    expect(twice.json().error.code).toBe('PRODUCT_ALREADY_IN_COLLECTION');
    const unknown = await api('POST', url, { product_id: MISSING });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().error).toMatchObject({ code: 'PRODUCT_NOT_FOUND', details: [{ path: 'body.product_id' }] });
    const noCollection = await api('POST', `${BASE}/${MISSING}/products`, { product_id: p.id });
    expect(noCollection.statusCode).toBe(404);
    expect(noCollection.json().error.code).toBe('COLLECTION_NOT_FOUND');
    for (const body of [{}, { product_id: 'abc' }, { product_id: p.id, position: -1 }, { product_id: p.id, position: 'first' }, { product_id: p.id, extra: 1 }]) {
      const res = await api('POST', url, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
    expect((await store('POST', url, { product_id: p.id })).statusCode).toBe(403);
    expect((await api('GET', `${BASE}/${c.id}`)).json().data.product_count).toBe(1);
  });

  it('lists entries {id, title, slug, price, currency, position}: manual by position then added time, paged', async () => {
    const c = await create({ title: 'Manual order' });
    const url = `${BASE}/${c.id}/products`;
    const p1 = await createProduct(t, shop, { title: 'First made', variants: [{ title: 'a', price: 300 }, { title: 'b', price: 100 }] });
    const p2 = await createProduct(t, shop, { title: 'Second made', variants: [{ title: 'a', price: 200 }] });
    const p3 = await createProduct(t, shop, { title: 'Third made', variants: [{ title: 'a', price: 50 }] });
    const p4 = await createProduct(t, shop, { title: 'Fourth made', variants: [{ title: 'a', price: 75 }] });
    await api('POST', url, { product_id: p2.id }); // position 0
    await api('POST', url, { product_id: p1.id, position: 5 });
    await api('POST', url, { product_id: p3.id, position: 0 }); // same position as p2, added later
    await api('POST', url, { product_id: p4.id }); // after the last: 6

    const all = (await api('GET', url)).json();
    expect(all.data).toEqual([
      { id: p2.id, title: 'Second made', slug: p2.handle, price: 200, currency: 'USD', position: 0 },
      { id: p3.id, title: 'Third made', slug: p3.handle, price: 50, currency: 'USD', position: 0 },
      { id: p1.id, title: 'First made', slug: p1.handle, price: 300, currency: 'USD', position: 5 },
      { id: p4.id, title: 'Fourth made', slug: p4.handle, price: 75, currency: 'USD', position: 6 },
    ]);
    expect(all.meta.pagination).toEqual({ cursor: null, has_next: false, limit: 25 });

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await api('GET', `${url}?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      seen.push(...body.data.map((e: { id: string }) => e.id));
      cursor = body.meta.pagination.cursor;
      expect(body.meta.pagination.has_next).toBe(cursor !== null);
    } while (cursor);
    expect(seen).toEqual([p2.id, p3.id, p1.id, p4.id]);

    // Newest product first once the collection sorts by -created_at; an old cursor no longer fits.
    const manualCursor = (await api('GET', `${url}?limit=1`)).json().meta.pagination.cursor;
    await api('PUT', `${BASE}/${c.id}`, { title: 'Manual order', sort_order: '-created_at' });
    const newest = (await api('GET', `${url}?limit=2`)).json();
    expect(newest.data.map((e: { id: string }) => e.id)).toEqual([p4.id, p3.id]);
    const rest = (await api('GET', `${url}?limit=2&cursor=${encodeURIComponent(newest.meta.pagination.cursor)}`)).json();
    expect(rest.data.map((e: { id: string }) => e.id)).toEqual([p2.id, p1.id]);
    expect(rest.meta.pagination.has_next).toBe(false);
    expect((await api('GET', `${url}?cursor=${encodeURIComponent(manualCursor)}`)).statusCode).toBe(400);

    for (const qs of ['limit=0', 'limit=x', 'sort=title', 'filter[status]=active', 'cursor=bm9wZQ']) {
      expect((await api('GET', `${url}?${qs}`)).statusCode, qs).toBe(400);
    }
    expect((await api('GET', `${url}?limit=500`)).json().meta.pagination.limit).toBe(100);
    expect((await api('GET', `${BASE}/${MISSING}/products`)).statusCode).toBe(404);
  });

  it('shows storefront keys active products of active collections only', async () => {
    const c = await create({ title: 'Mixed' });
    const active = await createProduct(t, shop, { title: 'On sale' });
    const draft = await createProduct(t, shop, { title: 'Secret', status: 'draft' });
    for (const p of [active, draft]) await api('POST', `${BASE}/${c.id}/products`, { product_id: p.id });
    expect((await api('GET', `${BASE}/${c.id}/products`)).json().data).toHaveLength(2);
    const seen = (await store('GET', `${BASE}/${c.id}/products`)).json().data;
    expect(seen.map((e: { title: string }) => e.title)).toEqual(['On sale']);

    const hidden = await create({ title: 'Hidden', status: 'draft' });
    expect((await store('GET', `${BASE}/${hidden.id}`)).statusCode).toBe(404);
    expect((await store('GET', `${BASE}/${hidden.id}/products`)).statusCode).toBe(404);
    expect((await api('GET', `${BASE}/${hidden.id}`)).statusCode).toBe(200);
  });

  it('removes a product from a collection (204), then 404', async () => {
    const c = await create({ title: 'Removal' });
    const p = await createProduct(t, shop);
    await api('POST', `${BASE}/${c.id}/products`, { product_id: p.id });
    const url = `${BASE}/${c.id}/products/${p.id}`;
    expect((await store('DELETE', url)).statusCode).toBe(403);
    const del = await api('DELETE', url);
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    const again = await api('DELETE', url);
    expect(again.statusCode).toBe(404);
    expect(again.json().error.code).toBe('PRODUCT_NOT_IN_COLLECTION');
    expect((await api('DELETE', `${BASE}/${MISSING}/products/${p.id}`)).json().error.code).toBe('COLLECTION_NOT_FOUND');
    expect((await api('GET', `${BASE}/${c.id}`)).json().data.product_count).toBe(0);
    expect((await api('GET', `/api/v1/catalog/products/${p.id}`)).statusCode).toBe(200);
  });
});

describe('deleting', () => {
  it('a product takes it out of every collection and their product_count follows', async () => {
    const [c1, c2] = [await create({ title: 'Keeps one' }), await create({ title: 'Keeps none' })];
    const doomed = await createProduct(t, shop, { title: 'Doomed' });
    const kept = await createProduct(t, shop, { title: 'Kept' });
    for (const [c, p] of [[c1, doomed], [c1, kept], [c2, doomed]] as const) await api('POST', `${BASE}/${c.id}/products`, { product_id: p.id });
    expect((await api('GET', `${BASE}/${c1.id}`)).json().data.product_count).toBe(2);

    expect((await api('DELETE', `/api/v1/catalog/products/${doomed.id}`)).statusCode).toBe(204);
    expect((await api('GET', `${BASE}/${c1.id}`)).json().data.product_count).toBe(1);
    expect((await api('GET', `${BASE}/${c2.id}`)).json().data.product_count).toBe(0);
    expect((await api('GET', `${BASE}/${c1.id}/products`)).json().data.map((e: { title: string }) => e.title)).toEqual(['Kept']);
    expect((await api('GET', `${BASE}/${c2.id}/products`)).json().data).toEqual([]);
  });

  it('a collection keeps its products', async () => {
    const c = await create({ title: 'Short-lived' });
    const p = await createProduct(t, shop, { title: 'Survivor' });
    await api('POST', `${BASE}/${c.id}/products`, { product_id: p.id });
    expect((await api('DELETE', `${BASE}/${c.id}`)).statusCode).toBe(204);
    expect((await api('GET', `/api/v1/catalog/products/${p.id}`)).json().data.title).toBe('Survivor');
    const rows = await t.app.orm.em.getConnection().execute('select count(*)::int as n from catalog_collection_product where collection_id = ?', [c.id]);
    expect(rows[0].n).toBe(0);
  });
});
