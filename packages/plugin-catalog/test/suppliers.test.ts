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

const BASE = '/api/v1/catalog/suppliers';
const create = async (payload: Record<string, unknown>, as = api) => {
  const res = await as('POST', BASE, payload);
  if (res.statusCode !== 201) throw new Error(`supplier not created: ${res.body}`);
  return res.json().data;
};

describe('POST /catalog/suppliers', () => {
  it('creates a supplier with name, code, email and phone', async () => {
    const res = await api('POST', BASE, { name: 'Andes Wool', code: 'AW-01', email: 'sales@andes.example', phone: '+51 1 555-0100' });
    expect(res.statusCode).toBe(201);
    const s = res.json().data;
    expect(s).toMatchObject({ name: 'Andes Wool', code: 'AW-01', email: 'sales@andes.example', phone: '+51 1 555-0100', address: null, metadata: {} });
    expect(s.created_at).toBe(s.updated_at);
    expect((await create({ name: 'Only a name' }))).toMatchObject({ code: null, email: null, phone: null });
  });

  it('refuses a code already used in the store with 409', async () => {
    await create({ name: 'First', code: 'DUP' });
    const res = await api('POST', BASE, { name: 'Second', code: 'DUP' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({ code: 'CONFLICT', details: [{ path: 'body.code' }] });
  });

  it.each([
    [{}, 'body.name'],
    [{ name: '' }, 'body.name'],
    [{ name: 7 }, 'body.name'],
    [{ name: 'x', email: 'not-an-email' }, 'body.email'],
    [{ name: 'x', email: 'a@' }, 'body.email'],
    [{ name: 'x', phone: 'call me' }, 'body.phone'],
    [{ name: 'x', code: '' }, 'body.code'],
    [{ name: 'x', address: { city: 'Lima' } }, 'body'],
    [{ name: 'x', rating: 5 }, 'body'],
  ])('refuses %j (%s)', async (payload, path) => {
    const res = await api('POST', BASE, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
    expect(res.json().error.details.map((d: { path: string }) => d.path).join(' ')).toContain(path);
  });

  it('is for admin keys only, reads included', async () => {
    const store = caller(t, shop, shop.storefrontToken);
    expect((await store('POST', BASE, { name: 'x' })).statusCode).toBe(403);
    expect((await store('GET', BASE)).statusCode).toBe(403);
  });
});

describe('one supplier', () => {
  it('reads, patches only the fields sent (address and metadata too) and deletes', async () => {
    const s = await create({ name: 'Cusco Cotton', code: 'CC', email: 'hi@cc.example' });
    const url = `${BASE}/${s.id}`;
    expect((await api('GET', url)).json().data).toEqual(s);

    const patched = await api('PATCH', url, { phone: '+51 84 222 333', address: { street: 'Av. Sol 1', city: 'Cusco', country: 'PE' }, metadata: { terms: 'net 30', rating: 4, tags: ['organic'] } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().data).toMatchObject({
      name: 'Cusco Cotton', code: 'CC', email: 'hi@cc.example', phone: '+51 84 222 333',
      address: { street: 'Av. Sol 1', city: 'Cusco', country: 'PE' }, metadata: { terms: 'net 30', rating: 4, tags: ['organic'] },
    });
    expect(patched.json().data.updated_at >= s.updated_at).toBe(true);
    const partial = await api('PATCH', url, { address: { city: 'Lima' }, metadata: { terms: 'net 60' }, email: null });
    expect(partial.json().data).toMatchObject({ address: { street: null, city: 'Lima', country: null }, metadata: { terms: 'net 60' }, email: null });
    expect((await api('PATCH', url, { address: null })).json().data.address).toBeNull();
    expect((await api('PATCH', url, { code: 'CC' })).statusCode).toBe(200); // its own code is not a conflict

    for (const body of [{ name: null }, { email: 'nope' }, { metadata: 'text' }, { metadata: [1] }, { address: { zip: '1' } }, { address: 'Cusco' }, { id: MISSING }]) {
      const res = await api('PATCH', url, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    await create({ name: 'Code owner', code: 'OWNED' });
    const taken = await api('PATCH', url, { code: 'OWNED' });
    expect(taken.statusCode).toBe(409);

    expect((await api('DELETE', url)).statusCode).toBe(204);
    const gone = await api('GET', url);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().error.code).toBe('SUPPLIER_NOT_FOUND');
    expect((await api('PATCH', url, { name: 'x' })).statusCode).toBe(404);
    expect((await api('DELETE', url)).statusCode).toBe(404);
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      expect((await api(method, `${BASE}/123`, method === 'PATCH' ? {} : undefined)).statusCode).toBe(400);
    }
  });

  it('refuses metadata larger than 16 KiB or with more than 50 keys', async () => {
    const s = await create({ name: 'Meta' });
    const big = await api('PATCH', `${BASE}/${s.id}`, { metadata: { blob: 'x'.repeat(17_000) } });
    expect(big.statusCode).toBe(400);
    const many = await api('PATCH', `${BASE}/${s.id}`, { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) });
    expect(many.statusCode).toBe(400);
  });
});

describe('GET /catalog/suppliers', () => {
  it('pages with a total', async () => {
    const other = await t.createTenant();
    const as = caller(t, other);
    for (const name of ['Delta', 'Alpha', 'Charlie', 'Bravo', 'Echo']) await create({ name }, as);
    const first = (await as('GET', `${BASE}?limit=2&sort=name`)).json();
    expect(first.data.map((s: { name: string }) => s.name)).toEqual(['Alpha', 'Bravo']);
    expect(first.meta.pagination).toMatchObject({ has_next: true, limit: 2, total: 5 });
    const second = (await as('GET', `${BASE}?limit=2&sort=name&cursor=${encodeURIComponent(first.meta.pagination.cursor)}`)).json();
    expect(second.data.map((s: { name: string }) => s.name)).toEqual(['Charlie', 'Delta']);
    expect(second.meta.pagination.total).toBe(5);
    const all = (await as('GET', BASE)).json();
    expect(all.data.map((s: { name: string }) => s.name)).toEqual(['Echo', 'Bravo', 'Charlie', 'Alpha', 'Delta']);
    expect(all.meta.pagination).toEqual({ cursor: null, has_next: false, limit: 25, total: 5 });
    expect((await as('GET', `${BASE}?limit=101`)).json().meta.pagination.limit).toBe(100);
    for (const qs of ['limit=0', 'limit=-3', 'filter[code]=x', 'sort=code', 'q=alpha']) {
      const res = await as('GET', `${BASE}?${qs}`);
      expect(res.statusCode, qs).toBe(400);
    }
  });
});

describe('products and their supplier', () => {
  it('refuses an unknown supplier (422 SUPPLIER_NOT_FOUND) and clears the reference when the supplier goes', async () => {
    const bad = await api('POST', '/api/v1/catalog/products', { title: 'x', supplier_id: MISSING, variants: [{ title: 'a', price: 1 }] });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().error).toMatchObject({ code: 'SUPPLIER_NOT_FOUND', details: [{ path: 'body.supplier_id' }] });

    const s = await create({ name: 'Temporary' });
    const p = await createProduct(t, shop, { supplier_id: s.id });
    const q = await createProduct(t, shop);
    expect((await api('PATCH', `/api/v1/catalog/products/${q.id}`, { supplier_id: MISSING })).json().error.code).toBe('SUPPLIER_NOT_FOUND');
    expect((await api('PATCH', `/api/v1/catalog/products/${q.id}`, { supplier_id: s.id })).json().data.supplier_id).toBe(s.id);
    expect((await api('GET', `/api/v1/catalog/products?filter[supplier_id]=${s.id}`)).json().data).toHaveLength(2);

    expect((await api('DELETE', `${BASE}/${s.id}`)).statusCode).toBe(204);
    for (const id of [p.id, q.id]) {
      const product = await api('GET', `/api/v1/catalog/products/${id}`);
      expect(product.statusCode).toBe(200);
      expect(product.json().data.supplier_id).toBeNull();
    }
    expect((await api('PATCH', `/api/v1/catalog/products/${q.id}`, { supplier_id: null })).statusCode).toBe(200);
  });
});
