import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogApp } from './helpers.js';

let t: TestApp;
let shop: TestTenant;
beforeAll(async () => {
  t = await catalogApp();
  shop = await t.createTenant({ currency: 'PEN' });
});
afterAll(async () => t?.close());

const create = (payload: unknown, tenant = shop) =>
  t.request({ method: 'POST', url: '/api/v1/catalog/products', headers: tenant.headers(), payload: payload as never });
const tshirt = (over: Record<string, unknown> = {}) => ({
  title: 'Alpaca T-shirt',
  description_html: '<p>Soft</p>',
  tags: ['alpaca', 'summer', 'alpaca'],
  images: [{ url: 'https://cdn.example.com/a.jpg', alt_text: 'Front' }],
  variants: [
    { title: 'S', sku: `TS-S-${Math.random().toString(36).slice(2, 8)}`, price: 4990, inventory_quantity: 3 },
    { title: 'M', price: 5290, compare_at_price: 5990, weight_grams: 180 },
  ],
  ...over,
});

describe('POST /api/v1/catalog/products', () => {
  it('creates a product with variants, defaults and a handle from the title', async () => {
    const res = await create(tshirt());
    expect(res.statusCode).toBe(201);
    const p = res.json().data;
    expect(p).toMatchObject({ title: 'Alpaca T-shirt', handle: 'alpaca-t-shirt', status: 'active', description_html: '<p>Soft</p>', tags: ['alpaca', 'summer'], brand_id: null });
    expect(p.images).toEqual([expect.objectContaining({ url: 'https://cdn.example.com/a.jpg', alt_text: 'Front', media_id: null, position: 0 })]);
    expect(p.variants).toHaveLength(2);
    expect(p.variants[0]).toMatchObject({ product_id: p.id, title: 'S', price: 4990, currency: 'PEN', inventory_quantity: 3, requires_shipping: true, taxable: true, position: 0 });
    expect(p.variants[1]).toMatchObject({ title: 'M', sku: null, price: 5290, compare_at_price: 5990, weight_grams: 180, inventory_quantity: 0 });
    const again = await create(tshirt());
    expect(again.json().data.handle).toBe('alpaca-t-shirt-2');
  });

  it.each([
    [{ variants: [{ title: 'x', price: 1 }] }, 'body.title'],
    [{ title: 'x' }, 'body.variants'],
    [{ title: 'x', variants: [] }, 'body.variants'],
    [{ title: 'x', variants: [{ title: 'x', price: 10.5 }] }, 'body.variants.0.price'],
    [{ title: 'x', variants: [{ title: 'x', price: -1 }] }, 'body.variants.0.price'],
    [{ title: 'x', variants: [{ title: 'x', price: '100' }] }, 'body.variants.0.price'],
    [{ title: 'x', status: 'gone', variants: [{ title: 'x', price: 1 }] }, 'body.status'],
    [{ title: 'x', handle: 'Not A Handle', variants: [{ title: 'x', price: 1 }] }, 'body.handle'],
    [{ title: 'x', brand_id: 'nope', variants: [{ title: 'x', price: 1 }] }, 'body.brand_id'],
    [{ title: 'x', images: [{ alt_text: 'no source' }], variants: [{ title: 'x', price: 1 }] }, 'body.images.0'],
    [{ title: 'x', variants: [{ title: 'x', price: 1, colour: 'red' }] }, 'body.variants.0'],
  ])('refuses %j (%s)', async (payload, path) => {
    const res = await create(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
    expect(res.json().error.details.map((d: { path: string }) => d.path).join(' ')).toContain(path);
  });

  it('refuses a taken handle and a taken SKU with 409, writing nothing', async () => {
    const first = (await create(tshirt({ handle: 'poncho', variants: [{ title: 'One', sku: 'PONCHO-1', price: 100 }] }))).json().data;
    const handle = await create(tshirt({ handle: 'poncho' }));
    expect(handle.statusCode).toBe(409);
    const sku = await create(tshirt({ title: 'Poncho twin', handle: 'poncho-twin', variants: [{ title: 'One', sku: 'PONCHO-1', price: 100 }] }));
    expect(sku.statusCode).toBe(409);
    expect(sku.json().error).toEqual({
      code: 'CONFLICT',
      message: 'The SKU "PONCHO-1" is taken by another variant',
      details: [{ path: 'body.variants.0.sku', message: 'is taken' }],
    });
    const second = await create(tshirt({ title: 'Poncho pair', handle: 'poncho-pair', variants: [{ title: 'A', sku: 'PAIR-A', price: 100 }, { title: 'B', sku: 'PONCHO-1', price: 100 }] }));
    expect(second.json().error.details).toEqual([{ path: 'body.variants.1.sku', message: 'is taken' }]);
    const added = await t.request({ method: 'POST', url: `/api/v1/catalog/products/${first.id}/variants`, headers: shop.headers(), payload: { title: 'Two', sku: 'PONCHO-1', price: 100 } });
    expect(added.statusCode).toBe(409);
    expect(added.json().error.details).toEqual([{ path: 'body.sku', message: 'is taken' }]);
    const list = await t.request({ method: 'GET', url: '/api/v1/catalog/products?filter[handle]=poncho-twin', headers: shop.headers() });
    expect(list.json().data).toEqual([]);
    expect(first.handle).toBe('poncho');
  });

  it('names the keys a variant allows when it is sent one it does not know', async () => {
    const res = await create(tshirt({ variants: [{ title: 'One', price: 100, colour: 'red' }] }));
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details[0]).toMatchObject({ path: 'body.variants.0' });
    expect(res.json().error.details[0].message).toMatch(/^Unrecognized key "colour"; allowed keys: title, sku, price, /);
  });

  it('gives products created at once from one title each its own handle; one explicit handle goes to one of them', async () => {
    const made = await Promise.all(Array.from({ length: 6 }, () => create(tshirt({ title: 'Llama Beanie', tags: [], images: [], variants: [{ title: 'One', price: 100 }] }))));
    expect(made.map((res) => res.statusCode)).toEqual(Array(6).fill(201));
    expect(made.map((res) => res.json().data.handle).sort()).toEqual(['llama-beanie', 'llama-beanie-2', 'llama-beanie-3', 'llama-beanie-4', 'llama-beanie-5', 'llama-beanie-6']);

    const same = await Promise.all(Array.from({ length: 4 }, () => create(tshirt({ handle: 'vicuna-scarf', tags: [], images: [], variants: [{ title: 'One', price: 100 }] }))));
    expect(same.map((res) => res.statusCode).sort()).toEqual([201, 409, 409, 409]);
    for (const res of same.filter((r) => r.statusCode === 409)) {
      expect(res.json().error).toMatchObject({ code: 'CONFLICT', message: 'The handle "vicuna-scarf" is taken', details: [{ path: 'body.handle', message: 'is taken' }] });
    }
  });

  it('gives one handle to one of two products renamed to it at once; the other gets the precise 409', async () => {
    const a = (await create(tshirt({ title: 'Race A', tags: [], images: [], variants: [{ title: 'One', price: 100 }] }))).json().data;
    const b = (await create(tshirt({ title: 'Race B', tags: [], images: [], variants: [{ title: 'One', price: 100 }] }))).json().data;
    const rename = (id: string) => t.request({ method: 'PATCH', url: `/api/v1/catalog/products/${id}`, headers: shop.headers(), payload: { handle: 'race-winner' } });
    const both = await Promise.all([rename(a.id), rename(b.id)]);
    expect(both.map((res) => res.statusCode).sort()).toEqual([200, 409]);
    expect(both.find((res) => res.statusCode === 409)!.json().error).toMatchObject({ message: 'The handle "race-winner" is taken', details: [{ path: 'body.handle', message: 'is taken' }] });
  });

  it('refuses a repeated SKU inside one request and an unknown media file', async () => {
    const twice = await create(tshirt({ variants: [{ title: 'a', sku: 'DUP', price: 1 }, { title: 'b', sku: 'DUP', price: 1 }] }));
    expect(twice.statusCode).toBe(400);
    const media = await create(tshirt({ images: [{ media_id: '00000000-0000-4000-8000-000000000001' }] }));
    expect(media.statusCode).toBe(422);
    expect(media.json().error.code).toBe('MEDIA_NOT_FOUND');
  });

  it('needs an admin key: storefront keys are 403', async () => {
    const res = await create(tshirt(), { ...shop, headers: () => shop.headers(shop.storefrontToken) } as TestTenant);
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('FORBIDDEN');
  });
});

describe('GET /api/v1/catalog/products', () => {
  let other: TestTenant;
  beforeAll(async () => {
    other = await t.createTenant();
    for (const [i, status] of ['active', 'draft', 'archived', 'active'].entries()) {
      await create({ title: `Listed ${i}`, status, tags: i === 3 ? ['sale'] : [], variants: [{ title: 'One', price: 100 + i }] }, other);
    }
  });
  const list = (qs: string, token?: string) => t.request({ method: 'GET', url: `/api/v1/catalog/products?${qs}`, headers: other.headers(token) });

  it('lists newest first with variants, filters, search and sort', async () => {
    const all = await list('');
    expect(all.statusCode).toBe(200);
    expect(all.json().data.map((p: { title: string }) => p.title)).toEqual(['Listed 3', 'Listed 2', 'Listed 1', 'Listed 0']);
    expect(all.json().data[0].variants[0].price).toBe(103);
    expect((await list('filter[status]=draft')).json().data.map((p: { title: string }) => p.title)).toEqual(['Listed 1']);
    expect((await list('filter[tag]=sale')).json().data.map((p: { title: string }) => p.title)).toEqual(['Listed 3']);
    expect((await list('q=listed 2')).json().data.map((p: { title: string }) => p.title)).toEqual(['Listed 2']);
    expect((await list('sort=title')).json().data[0].title).toBe('Listed 0');
  });

  it('reads back the exact timestamps it wrote, in one list and one by one', async () => {
    const made = (await create({ title: 'Timed', variants: [{ title: 'One', price: 100 }, { title: 'Two', price: 200 }] })).json().data;
    const [listed] = (await t.request({ method: 'GET', url: '/api/v1/catalog/products?q=Timed', headers: shop.headers() })).json().data;
    const one = (await t.request({ method: 'GET', url: `/api/v1/catalog/products/${made.id}`, headers: shop.headers() })).json().data;
    for (const read of [listed, one]) {
      expect(read).toMatchObject({ created_at: made.created_at, updated_at: made.updated_at });
      expect(read.variants.map((v: { created_at: string; updated_at: string }) => [v.created_at, v.updated_at])).toEqual(made.variants.map((v: { created_at: string; updated_at: string }) => [v.created_at, v.updated_at]));
    }
    expect(made.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('pages by cursor', async () => {
    const first = (await list('limit=3&sort=title')).json();
    expect(first.data).toHaveLength(3);
    expect(first.meta.pagination).toMatchObject({ has_next: true, limit: 3 });
    const second = (await list(`limit=3&sort=title&cursor=${encodeURIComponent(first.meta.pagination.cursor)}`)).json();
    expect(second.data.map((p: { title: string }) => p.title)).toEqual(['Listed 3']);
    expect(second.meta.pagination).toEqual({ cursor: null, has_next: false, limit: 3 });
  });

  it('refuses a cursor whose values were tampered with, for the admin and the storefront, with 400', async () => {
    const id = (await list('limit=1')).json().data[0].id;
    const forged = (sort: string, v: unknown, i: unknown) => `sort=${sort}&cursor=${Buffer.from(JSON.stringify({ s: sort, v, i })).toString('base64url')}`;
    for (const token of [undefined, other.storefrontToken]) {
      for (const qs of [forged('-created_at', 'soon', id), forged('created_at', '2030-13-01T00:00:00Z', id), forged('title', 7, id), forged('title', 'Listed 1', 'x'), forged('-created_at', { '>': 1 }, id)]) {
        const res = await list(qs, token);
        expect(res.statusCode, qs).toBe(400);
        expect(res.json().error, qs).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'cursor' }] });
      }
    }
  });

  it('shows storefront keys active products only', async () => {
    const res = await list('', other.storefrontToken);
    expect(res.json().data.map((p: { title: string }) => p.title)).toEqual(['Listed 3', 'Listed 0']);
    expect((await list('filter[status]=draft', other.storefrontToken)).json().data).toEqual([]);
  });

  it.each(['filter[price]=1', 'filter[status]=hidden', 'limit=-1', 'sort=-price', 'filter[brand_id]=abc'])('answers 400 for %s', async (qs) => {
    const res = await list(qs);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
  });

  it('clamps a limit above 100', async () => {
    expect((await list('limit=1000')).json().meta.pagination.limit).toBe(100);
  });
});

describe('one product', () => {
  it('reads, patches only the fields sent, and deletes', async () => {
    const p = (await create(tshirt({ title: 'Chullo hat' }))).json().data;
    const url = `/api/v1/catalog/products/${p.id}`;
    const read = await t.request({ method: 'GET', url, headers: shop.headers() });
    expect(read.json().data).toEqual(p);

    const patched = await t.request({ method: 'PATCH', url, headers: shop.headers(), payload: { status: 'draft', tags: ['winter'] } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().data).toMatchObject({ title: 'Chullo hat', status: 'draft', tags: ['winter'], description_html: '<p>Soft</p>' });
    expect(patched.json().data.updated_at >= p.updated_at).toBe(true);
    expect((await t.request({ method: 'GET', url, headers: shop.headers(shop.storefrontToken) })).statusCode).toBe(404);

    expect((await t.request({ method: 'PATCH', url, headers: shop.headers(), payload: { price: 1 } })).statusCode).toBe(400);
    expect((await t.request({ method: 'PATCH', url, headers: shop.headers(), payload: { title: '' } })).statusCode).toBe(400);

    const del = await t.request({ method: 'DELETE', url, headers: shop.headers() });
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    const gone = await t.request({ method: 'GET', url, headers: shop.headers() });
    expect(gone.statusCode).toBe(404);
    expect(gone.json().error.code).toBe('PRODUCT_NOT_FOUND');
    expect((await t.request({ method: 'DELETE', url, headers: shop.headers() })).statusCode).toBe(404);
  });

  it('answers 400 for malformed ids', async () => {
    for (const [method, url] of [
      ['GET', '/api/v1/catalog/products/42'],
      ['PATCH', '/api/v1/catalog/products/42'],
      ['DELETE', '/api/v1/catalog/products/42'],
      ['PATCH', '/api/v1/catalog/products/00000000-0000-4000-8000-000000000000/variants/x'],
    ] as const) {
      const res = await t.request({ method, url, headers: shop.headers(), payload: method === 'PATCH' ? {} : undefined });
      expect(res.statusCode, `${method} ${url}`).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
  });
});

describe('variants', () => {
  it('adds, changes and deletes variants, keeping at least one', async () => {
    const p = (await create(tshirt({ title: 'Scarf', variants: [{ title: 'Red', price: 3000 }] }))).json().data;
    const base = `/api/v1/catalog/products/${p.id}/variants`;
    const added = await t.request({ method: 'POST', url: base, headers: shop.headers(), payload: { title: 'Blue', price: 3100, sku: 'SCARF-B' } });
    expect(added.statusCode).toBe(201);
    expect(added.json().data).toMatchObject({ product_id: p.id, title: 'Blue', price: 3100, currency: 'PEN', position: 1 });
    const blue = added.json().data.id;

    const changed = await t.request({ method: 'PATCH', url: `${base}/${blue}`, headers: shop.headers(), payload: { price: 2900 } });
    expect(changed.json().data).toMatchObject({ title: 'Blue', price: 2900, sku: 'SCARF-B' });
    expect((await t.request({ method: 'PATCH', url: `${base}/${blue}`, headers: shop.headers(), payload: { price: 'free' } })).statusCode).toBe(400);

    const missing = await t.request({ method: 'PATCH', url: `${base}/00000000-0000-4000-8000-000000000000`, headers: shop.headers(), payload: { price: 1 } });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('VARIANT_NOT_FOUND');

    expect((await t.request({ method: 'DELETE', url: `${base}/${blue}`, headers: shop.headers() })).statusCode).toBe(204);
    const last = await t.request({ method: 'DELETE', url: `${base}/${p.variants[0].id}`, headers: shop.headers() });
    expect(last.statusCode).toBe(409);
    const product = (await t.request({ method: 'GET', url: `/api/v1/catalog/products/${p.id}`, headers: shop.headers() })).json().data;
    expect(product.variants.map((v: { title: string }) => v.title)).toEqual(['Red']);
  });

  it("are priced in the store's currency: another one is 422 VARIANT_CURRENCY_MISMATCH, nothing written", async () => {
    const admin = (method: 'POST' | 'PATCH' | 'GET', url: string, payload?: unknown) => t.request({ method, url, headers: shop.headers(), payload: payload as never });
    const mixed = await create(tshirt({ title: 'Chullo', handle: 'chullo', variants: [{ title: 'S', price: 100, currency: 'PEN' }, { title: 'M', price: 100, currency: 'USD' }, { title: 'L', price: 100, currency: 'EUR' }] }));
    expect(mixed.statusCode).toBe(422);
    expect(mixed.json().error).toMatchObject({
      code: 'VARIANT_CURRENCY_MISMATCH',
      details: [
        { path: 'body.variants.1.currency', currency: 'USD', store_currency: 'PEN' },
        { path: 'body.variants.2.currency', currency: 'EUR', store_currency: 'PEN' },
      ],
    });
    expect((await admin('GET', '/api/v1/catalog/products?filter[handle]=chullo')).json().data).toEqual([]);

    const p = (await create(tshirt({ title: 'Poncho', variants: [{ title: 'One', price: 9000, currency: 'PEN' }] }))).json().data;
    expect(p.variants[0].currency).toBe('PEN');
    const base = `/api/v1/catalog/products/${p.id}/variants`;
    const added = await admin('POST', base, { title: 'Two', price: 100, currency: 'USD' });
    expect(added.statusCode).toBe(422);
    expect(added.json().error).toMatchObject({ code: 'VARIANT_CURRENCY_MISMATCH', details: [{ path: 'body.currency', store_currency: 'PEN' }] });
    const changed = await admin('PATCH', `${base}/${p.variants[0].id}`, { price: 1, currency: 'USD' });
    expect(changed.json().error).toMatchObject({ code: 'VARIANT_CURRENCY_MISMATCH', details: [{ path: 'body.currency' }] });
    const after = (await admin('GET', `/api/v1/catalog/products/${p.id}`)).json().data;
    expect(after.variants.map((v: { price: number; currency: string }) => [v.price, v.currency])).toEqual([[9000, 'PEN']]);
    expect((await admin('PATCH', `${base}/${p.variants[0].id}`, { price: 9500, currency: 'PEN' })).json().data).toMatchObject({ price: 9500, currency: 'PEN' });

    // A variant stored in another currency before the rule: left as it is until its currency is sent.
    await t.app.orm.em.getConnection().execute(`update catalog_variant set currency = 'USD' where tenant_id = ? and id = ?`, [shop.id, p.variants[0].id]);
    expect((await admin('PATCH', `${base}/${p.variants[0].id}`, { price: 9600 })).json().data).toMatchObject({ price: 9600, currency: 'USD' });
    expect((await admin('PATCH', `${base}/${p.variants[0].id}`, { currency: 'PEN' })).json().data).toMatchObject({ price: 9600, currency: 'PEN' });
  });

  it('refuses a variant of a product that does not exist', async () => {
    const res = await t.request({ method: 'POST', url: '/api/v1/catalog/products/00000000-0000-4000-8000-000000000000/variants', headers: shop.headers(), payload: { title: 'x', price: 1 } });
    expect(res.statusCode).toBe(404);
  });
});

describe('OpenAPI', () => {
  it('documents every catalog route, with the schemas named once', async () => {
    const res = await t.request({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    const paths = Object.keys(doc.paths);
    for (const path of [
      '/api/v1/catalog/collections', '/api/v1/catalog/collections/{id}', '/api/v1/catalog/collections/{id}/products',
      '/api/v1/catalog/collections/{id}/products/{product_id}', '/api/v1/catalog/suppliers', '/api/v1/catalog/suppliers/{id}',
      '/api/v1/catalog/brands', '/api/v1/catalog/brands/{id}', '/api/v1/catalog/products/{id}/downloads',
      '/api/v1/catalog/products/{id}/downloads/{download_id}', '/api/v1/catalog/products/{id}/metafields',
      '/api/v1/catalog/products/{id}/metafields/{metafield_id}',
    ]) expect(paths).toContain(path);
    for (const name of ['Collection', 'CollectionCreate', 'CollectionReplace', 'CollectionProductEntry', 'Brand', 'BrandCreate', 'Supplier', 'SupplierPatch', 'ProductDownload', 'ProductMetafield', 'ProductMetafieldPatch']) {
      expect(Object.keys(doc.components.schemas)).toContain(name);
    }
  });
});

describe('concurrent changes', () => {
  it('serialise on the product row: twenty PATCHes at once all succeed, the last one written wins', async () => {
    const p = (await create(tshirt({ title: 'Contended' }))).json().data;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.request({ method: 'PATCH', url: `/api/v1/catalog/products/${p.id}`, headers: shop.headers(), payload: { tags: [`t${i}`] } }),
      ),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array(20).fill(200));
    const final = (await t.request({ method: 'GET', url: `/api/v1/catalog/products/${p.id}`, headers: shop.headers() })).json().data;
    expect(answers.map((a) => a.json().data.tags[0])).toContain(final.tags[0]);
  });
});
