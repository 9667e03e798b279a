import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, catalogApp, createProduct, MISSING } from './helpers.js';

let t: TestApp;
let shop: TestTenant;
let api: ReturnType<typeof caller>;
beforeAll(async () => {
  t = await catalogApp();
  shop = await t.createTenant();
  api = caller(t, shop);
});
afterAll(async () => t?.close());

const BASE = '/api/v1/catalog/brands';
const create = async (payload: Record<string, unknown>, as = api) => {
  const res = await as('POST', BASE, payload);
  if (res.statusCode !== 201) throw new Error(`brand not created: ${res.body}`);
  return res.json().data;
};

describe('POST /catalog/brands', () => {
  it('creates a brand with a slug from its name, product_count 0', async () => {
    const res = await api('POST', BASE, { name: 'Inca Threads', description: 'Since 1990', color: '#A0522D', website_url: 'https://inca.example/about' });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({
      name: 'Inca Threads', slug: 'inca-threads', description: 'Since 1990', color: '#A0522D', website_url: 'https://inca.example/about',
      logo_media_id: null, logo_url: null, product_count: 0,
    });
    expect((await create({ name: 'Inca Threads' })).slug).toBe('inca-threads-2');
    expect((await create({ name: 'Short hex', color: '#fff' })).color).toBe('#fff');
  });

  it('gives brands created at once from one name each its own slug; one explicit slug goes to one of them', async () => {
    const made = await Promise.all(Array.from({ length: 5 }, () => api('POST', BASE, { name: 'Andes Wool' })));
    expect(made.map((res) => res.statusCode)).toEqual(Array(5).fill(201));
    expect(made.map((res) => res.json().data.slug).sort()).toEqual(['andes-wool', 'andes-wool-2', 'andes-wool-3', 'andes-wool-4', 'andes-wool-5']);
    const same = await Promise.all(Array.from({ length: 3 }, () => api('POST', BASE, { name: 'Puna', slug: 'puna' })));
    expect(same.map((res) => res.statusCode).sort()).toEqual([201, 409, 409]);
    expect(same.find((res) => res.statusCode === 409)!.json().error).toMatchObject({ message: 'The slug "puna" is taken', details: [{ path: 'body.slug', message: 'is taken' }] });
  });

  it('keeps an explicit slug and refuses a taken one (409)', async () => {
    expect((await create({ name: 'Alpaca Co', slug: 'alpaca' })).slug).toBe('alpaca');
    const res = await api('POST', BASE, { name: 'Another', slug: 'alpaca' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.details[0].path).toBe('body.slug');
  });

  it.each([
    [{}, 'body.name', undefined],
    [{ name: ['x'] }, 'body.name', undefined],
    [{ name: 'x', color: 'red' }, 'body.color', 'hexadecimal'],
    [{ name: 'x', color: '#12345' }, 'body.color', 'hexadecimal'],
    [{ name: 'x', color: '#ggg' }, 'body.color', 'hexadecimal'],
    [{ name: 'x', color: '123456' }, 'body.color', 'hexadecimal'],
    [{ name: 'x', website_url: 'inca.example' }, 'body.website_url', 'http'],
    [{ name: 'x', website_url: 'ftp://inca.example' }, 'body.website_url', 'http'],
    [{ name: 'x', logo_media_id: 'logo.png' }, 'body.logo_media_id', 'UUID'],
    [{ name: 'x', slug: '-bad-' }, 'body.slug', undefined],
    [{ name: 'x', logo_url: 'https://x.example/a.png' }, 'body', undefined],
  ])('refuses %j (%s)', async (payload, path, words) => {
    const res = await api('POST', BASE, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
    expect(res.json().error.details.map((d: { path: string }) => d.path).join(' ')).toContain(path);
    if (words) expect(res.json().error.message).toContain(words);
  });

  it('refuses a logo that is not an uploaded media file (422 MEDIA_NOT_FOUND)', async () => {
    const res = await api('POST', BASE, { name: 'Logo-less', logo_media_id: MISSING });
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ code: 'MEDIA_NOT_FOUND', details: [{ path: 'body.logo_media_id' }] });
  });
});

describe('one brand', () => {
  it('reads with product_count, replaces with PUT and deletes, keeping its products', async () => {
    const b = await create({ name: 'Qori', color: '#ffcc00', description: 'Gold' });
    const url = `${BASE}/${b.id}`;
    const p1 = await createProduct(t, shop, { brand_id: b.id });
    const p2 = await createProduct(t, shop, { brand_id: b.id, status: 'draft' });
    const read = await api('GET', url);
    expect(read.json().data).toMatchObject({ name: 'Qori', product_count: 2 });
    const store = caller(t, shop, shop.storefrontToken);
    expect((await store('GET', url)).statusCode).toBe(200);
    expect((await store('PUT', url, { name: 'x' })).statusCode).toBe(403);

    const put = await api('PUT', url, { name: 'Qori Gold', website_url: 'http://qori.example' });
    expect(put.statusCode).toBe(200);
    expect(put.json().data).toMatchObject({ name: 'Qori Gold', slug: 'qori', color: null, description: null, website_url: 'http://qori.example', product_count: 2 });
    expect((await api('PUT', url, { name: 'Qori Gold', slug: '' })).json().data.slug).toBe('qori-gold');
    expect((await api('PUT', url, { color: '#000' })).statusCode).toBe(400);
    expect((await api('PUT', url, { name: 'x', color: 'black' })).statusCode).toBe(400);
    await create({ name: 'Holder', slug: 'held' });
    expect((await api('PUT', url, { name: 'x', slug: 'held' })).statusCode).toBe(409);

    expect((await api('DELETE', url)).statusCode).toBe(204);
    const gone = await api('GET', url);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().error.code).toBe('BRAND_NOT_FOUND');
    expect((await api('PUT', url, { name: 'x' })).statusCode).toBe(404);
    expect((await api('DELETE', url)).statusCode).toBe(404);
    for (const p of [p1, p2]) {
      const product = await api('GET', `/api/v1/catalog/products/${p.id}`);
      expect(product.statusCode).toBe(200);
      expect(product.json().data.brand_id).toBeNull();
    }
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      expect((await api(method, `${BASE}/not-a-uuid`, method === 'PUT' ? { name: 'x' } : undefined)).statusCode).toBe(400);
    }
  });

  it('refuses an unknown brand on a product (422 BRAND_NOT_FOUND)', async () => {
    const res = await api('POST', '/api/v1/catalog/products', { title: 'x', brand_id: MISSING, variants: [{ title: 'a', price: 1 }] });
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ code: 'BRAND_NOT_FOUND', details: [{ path: 'body.brand_id' }] });
    const p = await createProduct(t, shop);
    expect((await api('PATCH', `/api/v1/catalog/products/${p.id}`, { brand_id: MISSING })).json().error.code).toBe('BRAND_NOT_FOUND');
  });
});

describe('GET /catalog/brands', () => {
  it('lists by name with product_count, searches names with q, pages by cursor', async () => {
    const other = await t.createTenant();
    const as = caller(t, other);
    const made: Record<string, { id: string }> = {};
    for (const name of ['Wari', 'Moche', 'Nazca', 'Chavín', '100% Alpaca']) made[name] = await create({ name }, as);
    for (let i = 0; i < 3; i++) await createProduct(t, other, { brand_id: made.Nazca.id });
    await createProduct(t, other, { brand_id: made.Wari.id });

    const all = (await as('GET', BASE)).json();
    expect(all.data.map((b: { name: string; product_count: number }) => [b.name, b.product_count])).toEqual([
      ['100% Alpaca', 0], ['Chavín', 0], ['Moche', 0], ['Nazca', 3], ['Wari', 1],
    ]);
    expect((await as('GET', `${BASE}?q=AZC`)).json().data.map((b: { name: string }) => b.name)).toEqual(['Nazca']);
    expect((await as('GET', `${BASE}?q=${encodeURIComponent('%')}`)).json().data.map((b: { name: string }) => b.name)).toEqual(['100% Alpaca']);
    expect((await as('GET', `${BASE}?q=inca`)).json().data).toEqual([]);
    expect((await as('GET', `${BASE}?sort=-created_at&limit=1`)).json().data[0].name).toBe('100% Alpaca');

    const first = (await as('GET', `${BASE}?limit=2`)).json();
    expect(first.meta.pagination).toMatchObject({ has_next: true, limit: 2 });
    const second = (await as('GET', `${BASE}?limit=2&cursor=${encodeURIComponent(first.meta.pagination.cursor)}`)).json();
    expect(second.data.map((b: { name: string }) => b.name)).toEqual(['Moche', 'Nazca']);
    const store = caller(t, other, other.storefrontToken);
    expect((await store('GET', BASE)).json().data).toHaveLength(5);
    expect((await as('GET', `${BASE}?limit=1000`)).json().meta.pagination.limit).toBe(100);
    for (const qs of ['limit=0', 'filter[name]=x', 'sort=product_count', 'q=', 'cursor=x']) {
      expect((await as('GET', `${BASE}?${qs}`)).statusCode, qs).toBe(400);
    }
    // A cursor made by hand, its value not of the sort's property (a date, a name) or its id no UUID: 400 naming the cursor.
    const forged = (sort: string, v: unknown, i: unknown = made.Wari.id) => `${BASE}?sort=${sort}&cursor=${Buffer.from(JSON.stringify({ s: sort, v, i })).toString('base64url')}`;
    for (const url of [forged('created_at', 7), forged('-created_at', true), forged('created_at', 'soon'), forged('-created_at', '2030-13-01T00:00:00Z'), forged('name', 1e30), forged('name', { a: 1 }), forged('name', 'Moche', 'x')]) {
      const res = await as('GET', url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error, url).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'cursor' }] });
    }
    expect((await as('GET', forged('name', 'Moche', made.Moche.id))).json().data.map((b: { name: string }) => b.name)).toEqual(['Nazca', 'Wari']);
  });
});
