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
  product = await createProduct(t, shop, { title: 'E-book', variants: [{ title: 'PDF', price: 900 }, { title: 'EPUB', price: 900 }] });
  base = `/api/v1/catalog/products/${product.id}/downloads`;
});
afterAll(async () => t?.close());

const pdf = { file_name: 'book.pdf', file_url: 'https://files.example/book.pdf' };

describe('product downloads', () => {
  it('adds downloads with defaults and positions, lists them in order', async () => {
    const res = await api('POST', base, { ...pdf, file_size_bytes: 5_000_000_000, download_limit: 3, download_expiry_days: 30 });
    expect(res.statusCode).toBe(201);
    const d = res.json().data;
    expect(d).toMatchObject({
      product_id: product.id, variant_id: null, file_name: 'book.pdf', file_url: 'https://files.example/book.pdf',
      file_size_bytes: 5_000_000_000, download_limit: 3, download_expiry_days: 30, position: 0,
    });
    const epub = (await api('POST', base, { file_name: 'book.epub', file_url: 'https://files.example/book.epub', variant_id: product.variants[1].id })).json().data;
    expect(epub).toMatchObject({ variant_id: product.variants[1].id, position: 1, file_size_bytes: null, download_limit: null, download_expiry_days: null });
    const first = (await api('POST', base, { file_name: 'cover.jpg', file_url: 'http://files.example/cover.jpg', position: 0 })).json().data;

    const list = await api('GET', base);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual({ data: [d, first, epub] });
  });

  it.each([
    [{ file_url: pdf.file_url }, 'body.file_name'],
    [{ file_name: 'a.pdf' }, 'body.file_url'],
    [{ ...pdf, file_url: 'book.pdf' }, 'body.file_url'],
    [{ ...pdf, file_name: 12 }, 'body.file_name'],
    [{ ...pdf, variant_id: 'v1' }, 'body.variant_id'],
    [{ ...pdf, file_size_bytes: -1 }, 'body.file_size_bytes'],
    [{ ...pdf, file_size_bytes: 1.5 }, 'body.file_size_bytes'],
    [{ ...pdf, download_limit: 0 }, 'body.download_limit'],
    [{ ...pdf, download_limit: '3' }, 'body.download_limit'],
    [{ ...pdf, download_expiry_days: 0 }, 'body.download_expiry_days'],
    [{ ...pdf, position: -1 }, 'body.position'],
    [{ ...pdf, secret: true }, 'body'],
  ])('refuses %j (%s)', async (payload, path) => {
    const res = await api('POST', base, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
    expect(res.json().error.details.map((d: { path: string }) => d.path).join(' ')).toContain(path);
  });

  it('refuses a variant of another product (422 VARIANT_NOT_FOUND) and an unknown product (404)', async () => {
    const other = await createProduct(t, shop);
    const res = await api('POST', base, { ...pdf, variant_id: other.variants[0].id });
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ code: 'VARIANT_NOT_FOUND', details: [{ path: 'body.variant_id' }] });
    for (const [method, payload] of [['GET', undefined], ['POST', pdf]] as const) {
      const missing = await api(method, `/api/v1/catalog/products/${MISSING}/downloads`, payload);
      expect(missing.statusCode).toBe(404);
      expect(missing.json().error.code).toBe('PRODUCT_NOT_FOUND');
    }
    expect((await api('GET', '/api/v1/catalog/products/nope/downloads')).statusCode).toBe(400);
    expect((await api('GET', `${base}?limit=5`)).statusCode).toBe(400);
  });

  it('patches any field, checks the variant, and deletes', async () => {
    const d = (await api('POST', base, { ...pdf, file_name: 'draft.pdf' })).json().data;
    const url = `${base}/${d.id}`;
    const patched = await api('PATCH', url, { file_name: 'final.pdf', download_limit: 5, variant_id: product.variants[0].id, position: 9 });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().data).toMatchObject({ file_name: 'final.pdf', file_url: pdf.file_url, download_limit: 5, variant_id: product.variants[0].id, position: 9 });
    expect((await api('PATCH', url, { variant_id: null, download_limit: null })).json().data).toMatchObject({ variant_id: null, download_limit: null });
    expect((await api('PATCH', url, { variant_id: MISSING })).json().error.code).toBe('VARIANT_NOT_FOUND');
    for (const body of [{ file_name: null }, { file_url: 'nope' }, { download_expiry_days: -2 }, { product_id: MISSING }]) {
      expect((await api('PATCH', url, body)).statusCode, JSON.stringify(body)).toBe(400);
    }
    const store = caller(t, shop, shop.storefrontToken);
    expect((await store('GET', base)).statusCode).toBe(403);
    expect((await store('PATCH', url, { file_name: 'x' })).statusCode).toBe(403);

    expect((await api('DELETE', url)).statusCode).toBe(204);
    const again = await api('DELETE', url);
    expect(again.statusCode).toBe(404);
    expect(again.json().error.code).toBe('DOWNLOAD_NOT_FOUND');
    expect((await api('PATCH', url, { file_name: 'x' })).statusCode).toBe(404);
    expect((await api('PATCH', `${base}/bad-id`, { file_name: 'x' })).statusCode).toBe(400);
    // A download of one product is not reachable under another.
    const other = await createProduct(t, shop);
    const kept = (await api('GET', base)).json().data[0];
    expect((await api('DELETE', `/api/v1/catalog/products/${other.id}/downloads/${kept.id}`)).statusCode).toBe(404);
  });

  it('go with their variant, and with their product', async () => {
    const p = await createProduct(t, shop, { variants: [{ title: 'A', price: 1 }, { title: 'B', price: 1 }] });
    const url = `/api/v1/catalog/products/${p.id}/downloads`;
    await api('POST', url, { ...pdf, variant_id: p.variants[1].id });
    await api('POST', url, pdf);
    await api('DELETE', `/api/v1/catalog/products/${p.id}/variants/${p.variants[1].id}`);
    expect((await api('GET', url)).json().data.map((d: { variant_id: string | null }) => d.variant_id)).toEqual([null]);
    await api('DELETE', `/api/v1/catalog/products/${p.id}`);
    const rows = await t.app.orm.em.getConnection().execute('select count(*)::int as n from catalog_product_download where product_id = ?', [p.id]);
    expect(rows[0].n).toBe(0);
  });
});
