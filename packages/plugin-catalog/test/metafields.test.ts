import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, catalogApp, createProduct, MISSING } from './helpers.js';

let t: TestApp;
let shop: TestTenant;
let api: ReturnType<typeof caller>;
let product: Awaited<ReturnType<typeof createProduct>>;
let base: string;
beforeAll(async () => {
  t = await catalogApp();
  shop = await t.createTenant();
  api = caller(t, shop);
  product = await createProduct(t, shop, { title: 'Poncho', variants: [{ title: 'S', price: 100 }, { title: 'M', price: 100 }] });
  base = `/api/v1/catalog/products/${product.id}/metafields`;
});
afterAll(async () => t?.close());

let n = 0;
const post = (value_type: string, value: unknown) => api('POST', base, { namespace: 'specs', key: `k${n++}`, value_type, value });

// value sent → value stored and returned (always a string)
const ACCEPTED: Array<[string, unknown, string]> = [
  ['string', 'Hand-woven in Cusco', 'Hand-woven in Cusco'],
  ['string', '42', '42'],
  ['integer', 42, '42'],
  ['integer', '-7', '-7'],
  ['integer', '007', '7'],
  ['integer', '9223372036854775807', '9223372036854775807'],
  ['decimal', 12.5, '12.5'],
  ['decimal', '12.50', '12.50'],
  ['decimal', '-0.001', '-0.001'],
  ['decimal', 3, '3'],
  ['boolean', true, 'true'],
  ['boolean', 'false', 'false'],
  ['json', { fibre: 'alpaca', pct: 80 }, '{"fibre":"alpaca","pct":80}'],
  ['json', [1, 'two', null], '[1,"two",null]'],
  ['json', '{"a": [1, 2]}', '{"a":[1,2]}'],
  ['date', '2024-02-29', '2024-02-29'],
  ['date', '1999-12-31', '1999-12-31'],
  ['datetime', '2024-06-01T13:45:00Z', '2024-06-01T13:45:00Z'],
  ['url', 'https://example.com/care?lang=es#wash', 'https://example.com/care?lang=es#wash'],
  ['url', 'ftp://files.example.com/spec.pdf', 'ftp://files.example.com/spec.pdf'],
  ['color', '#1a2b3c', '#1a2b3c'],
  ['color', '#FFF', '#FFF'],
  ['reference', '9B2C7A04-5D1E-4F3A-8C6B-0E1F2A3B4C5D', '9b2c7a04-5d1e-4f3a-8c6b-0e1f2a3b4c5d'],
];

const REJECTED: Array<[string, unknown]> = [
  ['string', ''],
  ['string', 42],
  ['string', { a: 1 }],
  ['integer', 4.5],
  ['integer', '4.5'],
  ['integer', '12abc'],
  ['integer', '9223372036854775808'],
  ['integer', 2 ** 60],
  ['integer', true],
  ['decimal', 'abc'],
  ['decimal', '1e5'],
  ['decimal', '1,5'],
  ['decimal', 1e21],
  ['decimal', '.5'],
  ['boolean', 'yes'],
  ['boolean', 1],
  ['boolean', 'TRUE'],
  ['json', 'not json'],
  ['json', '42'],
  ['json', '"text"'],
  ['json', 42],
  ['json', 'null'],
  ['date', '2023-02-29'],
  ['date', '2024-13-01'],
  ['date', '2024-04-31'],
  ['date', '2024-1-5'],
  ['date', '2024-01-05T00:00:00Z'],
  ['date', 20240105],
  ['datetime', '2024-06-01T24:00:00Z'],
  ['datetime', '2024-06-01T13:60:00Z'],
  ['datetime', '2024-06-01T13:45:00'],
  ['datetime', '2024-06-01T13:45:00+02:00'],
  ['datetime', '2024-06-01 13:45:00Z'],
  ['datetime', '2023-02-29T10:00:00Z'],
  ['url', 'example.com/page'],
  ['url', '/relative/path'],
  ['url', 'mailto:someone@example.com'],
  ['url', 'https://'],
  ['color', '1a2b3c'],
  ['color', '#12345'],
  ['color', '#ggg'],
  ['color', 'red'],
  ['reference', 'abc'],
  ['reference', '9b2c7a04-5d1e-4f3a-8c6b'],
  ['reference', 7],
];

describe('metafield values, type by type', () => {
  it.each(ACCEPTED)('accepts %s %j and returns %j', async (type, value, stored) => {
    const res = await post(type, value);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ value_type: type, value: stored });
    const listed = (await api('GET', base)).json().data.find((m: { id: string }) => m.id === res.json().data.id);
    expect(listed.value).toBe(stored);
  });

  it.each(REJECTED)('refuses %s %j with a 400 naming the type', async (type, value) => {
    const res = await post(type, value);
    expect(res.statusCode).toBe(400);
    const { error } = res.json();
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.details[0].path).toBe('body.value');
    expect(error.message).toContain(`value_type ${type}`);
  });

  it('covers every type of the specification', () => {
    const types = ['string', 'integer', 'decimal', 'boolean', 'json', 'date', 'datetime', 'url', 'color', 'reference'];
    expect(new Set(ACCEPTED.map((a) => a[0]))).toEqual(new Set(types));
    expect(new Set(REJECTED.map((r) => r[0]))).toEqual(new Set(types));
  });
});

describe('product metafields', () => {
  it.each([
    [{ key: 'k', value: 'v', value_type: 'string' }, 'body.namespace'],
    [{ namespace: 'ns', value: 'v', value_type: 'string' }, 'body.key'],
    [{ namespace: 'ns', key: 'k', value_type: 'string' }, 'body.value'],
    [{ namespace: 'ns', key: 'k', value: 'v' }, 'body.value_type'],
    [{ namespace: 'ns', key: 'k', value: 'v', value_type: 'money' }, 'body.value_type'],
    [{ namespace: 'ns', key: 'k', value: null, value_type: 'string' }, 'body.value'],
    [{ namespace: 'n s', key: 'k', value: 'v', value_type: 'string' }, 'body.namespace'],
    [{ namespace: 'ns', key: 'k'.repeat(65), value: 'v', value_type: 'string' }, 'body.key'],
    [{ namespace: 'ns', key: 'k', value: 'v', value_type: 'string', variant_id: 'S' }, 'body.variant_id'],
    [{ namespace: 'ns', key: 'k', value: 'v', value_type: 'string', owner: 'me' }, 'body'],
  ])('refuses %j (%s)', async (payload, path) => {
    const res = await api('POST', base, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details.map((d: { path: string }) => d.path).join(' ')).toContain(path);
  });

  it('keeps namespace+key unique per product and per variant (409)', async () => {
    const field = { namespace: 'care', key: 'wash', value: 'cold', value_type: 'string' };
    expect((await api('POST', base, field)).statusCode).toBe(201);
    const dup = await api('POST', base, { ...field, value: 'warm' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error).toMatchObject({ code: 'CONFLICT', details: [{ path: 'body.key' }] });
    const forVariant = await api('POST', base, { ...field, variant_id: product.variants[0].id });
    expect(forVariant.statusCode).toBe(201);
    expect(forVariant.json().data.variant_id).toBe(product.variants[0].id);
    expect((await api('POST', base, { ...field, variant_id: product.variants[0].id })).statusCode).toBe(409);
    expect((await api('POST', base, { ...field, variant_id: product.variants[1].id })).statusCode).toBe(201);
    expect((await api('POST', base, { ...field, namespace: 'care2' })).statusCode).toBe(201);
    const other = await createProduct(t, shop);
    expect((await api('POST', `/api/v1/catalog/products/${other.id}/metafields`, field)).statusCode).toBe(201);
    const wrongVariant = await api('POST', base, { ...field, key: 'iron', variant_id: other.variants[0].id });
    expect(wrongVariant.statusCode).toBe(422);
    expect(wrongVariant.json().error.code).toBe('VARIANT_NOT_FOUND');
  });

  it('changes the value only, checked against the stored type, and deletes', async () => {
    const m = (await api('POST', base, { namespace: 'stock', key: 'reorder_at', value: 5, value_type: 'integer' })).json().data;
    const url = `${base}/${m.id}`;
    const changed = await api('PATCH', url, { value: '12' });
    expect(changed.statusCode).toBe(200);
    expect(changed.json().data).toMatchObject({ id: m.id, namespace: 'stock', key: 'reorder_at', value: '12', value_type: 'integer' });
    expect(changed.json().data.updated_at >= m.updated_at).toBe(true);
    const wrong = await api('PATCH', url, { value: 'twelve' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error.message).toContain('value_type integer');
    for (const body of [{}, { value: 1, key: 'other' }, { value_type: 'string', value: 'x' }, { namespace: 'x' }, { variant_id: null, value: 1 }]) {
      const res = await api('PATCH', url, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    expect((await api('GET', base)).json().data.find((x: { id: string }) => x.id === m.id).value).toBe('12');

    expect((await api('DELETE', url)).statusCode).toBe(204);
    const again = await api('DELETE', url);
    expect(again.statusCode).toBe(404);
    expect(again.json().error.code).toBe('METAFIELD_NOT_FOUND');
    expect((await api('PATCH', url, { value: 1 })).statusCode).toBe(404);
    expect((await api('PATCH', `${base}/not-an-id`, { value: 1 })).statusCode).toBe(400);
  });

  it('lists a product’s metafields by namespace and key; unknown product 404; admin only', async () => {
    const p = await createProduct(t, shop);
    const url = `/api/v1/catalog/products/${p.id}/metafields`;
    for (const [namespace, key] of [['b', 'y'], ['a', 'z'], ['b', 'x']]) await api('POST', url, { namespace, key, value: 'v', value_type: 'string' });
    const listed = (await api('GET', url)).json();
    expect(listed.data.map((m: { namespace: string; key: string }) => `${m.namespace}.${m.key}`)).toEqual(['a.z', 'b.x', 'b.y']);
    expect(Object.keys(listed)).toEqual(['data']);
    expect((await api('GET', `/api/v1/catalog/products/${MISSING}/metafields`)).json().error.code).toBe('PRODUCT_NOT_FOUND');
    expect((await api('GET', `${url}?filter[namespace]=a`)).statusCode).toBe(400);
    const store = caller(t, shop, shop.storefrontToken);
    expect((await store('GET', url)).statusCode).toBe(403);
    expect((await store('POST', url, { namespace: 'a', key: 'b', value: 'v', value_type: 'string' })).statusCode).toBe(403);

    await api('DELETE', `/api/v1/catalog/products/${p.id}`);
    const rows = await t.app.orm.em.getConnection().execute('select count(*)::int as n from catalog_product_metafield where product_id = ?', [p.id]);
    expect(rows[0].n).toBe(0);
  });

  it("go with their variant: a deleted variant's metafields are deleted, the product's stay", async () => {
    const p = await createProduct(t, shop, { variants: [{ title: 'A', price: 1 }, { title: 'B', price: 1 }] });
    const url = `/api/v1/catalog/products/${p.id}/metafields`;
    await api('POST', url, { namespace: 'fit', key: 'size', value: 'B only', value_type: 'string', variant_id: p.variants[1].id });
    await api('POST', url, { namespace: 'fit', key: 'size', value: 'all', value_type: 'string' });
    expect((await api('DELETE', `/api/v1/catalog/products/${p.id}/variants/${p.variants[1].id}`)).statusCode).toBe(204);
    expect((await api('GET', url)).json().data.map((m: { value: string; variant_id: string | null }) => [m.value, m.variant_id])).toEqual([['all', null]]);
  });
});
