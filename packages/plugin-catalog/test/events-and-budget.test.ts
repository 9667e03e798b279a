import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import catalog from '../src/index.js';

let t: TestApp;
let shop: TestTenant;
beforeAll(async () => {
  t = await createTestApp({ plugins: [catalog] });
  shop = await t.createTenant({ currency: 'PEN' });
});
afterAll(async () => t?.close());

const outbox = (id: string) =>
  t.app.orm.em.getConnection().execute<{ type: string; data: Record<string, unknown> }[]>(
    `select type, data from core_outbox where data->>'id' = ? order by occurred_at`, [id]);

describe('products.product.updated', () => {
  it('goes through the outbox with the specification’s data fields', async () => {
    const p = (await t.request({ method: 'POST', url: '/api/v1/catalog/products', headers: shop.headers(), payload: { title: 'Mate gourd', variants: [{ title: 'Std', sku: 'MATE-1', price: 2500, inventory_quantity: 4 }, { title: 'XL', price: 3500, inventory_quantity: 6 }] } })).json().data;
    await t.request({ method: 'PATCH', url: `/api/v1/catalog/products/${p.id}`, headers: shop.headers(), payload: { title: 'Mate gourd (carved)' } });
    const events = await outbox(p.id);
    expect(events.map((e) => e.type)).toEqual(['products.product.created', 'products.product.updated']);
    const data = events[1].data;
    expect(Object.keys(data).sort()).toEqual(['id', 'name', 'price', 'sku', 'stock', 'updated_at']);
    expect(data).toMatchObject({ id: p.id, sku: 'MATE-1', name: 'Mate gourd (carved)', price: 2500, stock: 10 });

    await t.request({ method: 'PATCH', url: `/api/v1/catalog/products/${p.id}/variants/${p.variants[0].id}`, headers: shop.headers(), payload: { inventory_quantity: 1 } });
    expect((await outbox(p.id)).at(-1)!.data).toMatchObject({ stock: 7 });
    await t.request({ method: 'DELETE', url: `/api/v1/catalog/products/${p.id}`, headers: shop.headers() });
    expect((await outbox(p.id)).at(-1)!.type).toBe('products.product.deleted');
  });
});

describe('SQL statements per request (hot paths)', () => {
  let id: string;
  beforeAll(async () => {
    for (let i = 0; i < 30; i++) {
      const res = await t.request({ method: 'POST', url: '/api/v1/catalog/products', headers: shop.headers(), payload: { title: `Budget ${i}`, variants: [{ title: 'a', price: 1 }, { title: 'b', price: 2 }, { title: 'c', price: 3 }] } });
      id = res.json().data.id;
    }
    await t.request({ method: 'GET', url: `/api/v1/catalog/products/${id}`, headers: shop.headers() }); // token now cached
  });

  const count = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) =>
    t.countQueries(() => t.request({ method, url, headers: shop.headers(), payload: payload as never }));

  it('reads a product in 5: BEGIN, tenant context, product, variants, COMMIT', async () => {
    const { count: n, statements } = await count('GET', `/api/v1/catalog/products/${id}`);
    expect(statements[1]).toMatch(/set_config\('role'.*set_config\('app.tenant_id'/);
    expect(n).toBeLessThanOrEqual(5);
  });

  it('lists 25 products with their variants in 5', async () => {
    const { count: n } = await count('GET', '/api/v1/catalog/products?limit=25');
    expect(n).toBeLessThanOrEqual(5);
  });

  it('creates a product with three variants in at most 9', async () => {
    const { count: n } = await count('POST', '/api/v1/catalog/products', { title: 'Budget new', variants: [{ title: 'a', price: 1 }, { title: 'b', price: 2 }, { title: 'c', price: 3 }] });
    expect(n).toBeLessThanOrEqual(9);
  });

  it('never looks the token up twice in a row (cached)', async () => {
    const { statements } = await count('GET', `/api/v1/catalog/products/${id}`);
    expect(statements.some((s) => /core_access_token/.test(s))).toBe(false);
  });
});
