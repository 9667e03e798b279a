import type { PluginNames } from '../names.js';

export function pluginTest(n: PluginNames): string {
  const url = `/api/v1/${n.name}/items`;
  return `import { Database } from '@qhatu/core';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ${n.camel}Plugin from '../src/index.js';

let t: TestApp;
let shop: TestTenant;

beforeAll(async () => {
  t = await createTestApp({ plugins: [${n.camel}Plugin] });
  shop = await t.createTenant({ name: 'Corner Shop' });
});
afterAll(async () => t?.close());

const addItem = (tenant: TestTenant, payload: Record<string, unknown>) =>
  t.request({ method: 'POST', url: '${url}', headers: tenant.headers(), payload });
const titles = (body: { data: Array<{ title: string }> }) => body.data.map((item) => item.title);

describe('${url}', () => {
  it('adds an item that the storefront can read', async () => {
    const created = await addItem(shop, { title: 'Alpaca scarf', description: 'Hand-woven' });
    expect(created.statusCode).toBe(201);
    const item = created.json().data;
    expect(item).toMatchObject({ title: 'Alpaca scarf', description: 'Hand-woven' });

    const read = await t.request({ method: 'GET', url: \`${url}/\${item.id}\`, headers: shop.headers(shop.storefrontToken) });
    expect(read.statusCode).toBe(200);
    expect(read.json().data).toEqual(item);
  });

  it('lists a store\\'s items a page at a time', async () => {
    const store = await t.createTenant();
    for (const title of ['Cap', 'Belt', 'Apron']) expect((await addItem(store, { title })).statusCode).toBe(201);

    const first = await t.request({ method: 'GET', url: '${url}?sort=title&limit=2', headers: store.headers() });
    expect(first.statusCode).toBe(200);
    expect(titles(first.json())).toEqual(['Apron', 'Belt']);
    const { cursor, has_next } = first.json().meta.pagination;
    expect(has_next).toBe(true);

    const rest = await t.request({ method: 'GET', url: \`${url}?sort=title&limit=2&cursor=\${cursor}\`, headers: store.headers() });
    expect(titles(rest.json())).toEqual(['Cap']);
    expect(rest.json().meta.pagination).toMatchObject({ cursor: null, has_next: false });
  });

  it('refuses an item without a title with 400 VALIDATION_ERROR', async () => {
    const res = await addItem(shop, { description: 'no title' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(res.json().error.details)).toContain('title');
  });

  it('lets only the admin add items, and nobody in without a key', async () => {
    const storefront = await t.request({ method: 'POST', url: '${url}', headers: shop.headers(shop.storefrontToken), payload: { title: 'Nope' } });
    expect(storefront.statusCode).toBe(403);
    const anonymous = await t.request({ method: 'GET', url: '${url}', headers: { 'x-tenant-id': shop.id } });
    expect(anonymous.statusCode).toBe(401);
  });

  it('needs ${n.name}.write from a staff member: refused to a role without it, allowed with it', async () => {
    const signIn = async (email: string, permissions: string[]) => {
      const role = await t.request({ method: 'POST', url: '/api/v1/roles', headers: shop.headers(), payload: { name: email, permissions } });
      expect(role.statusCode).toBe(201);
      const password = 'a long password';
      await t.request({ method: 'POST', url: '/api/v1/staff', headers: shop.headers(), payload: { email, role_id: role.json().data.id, password } });
      const session = await t.request({ method: 'POST', url: '/api/v1/auth/staff/login', headers: { 'x-tenant-id': shop.id }, payload: { email, password } });
      return session.json().data.token as string;
    };
    const reader = await signIn('reader@example.com', []);
    const refused = await t.request({ method: 'POST', url: '${url}', headers: shop.headers(reader), payload: { title: 'Nope' } });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.details[0].permission).toBe('${n.name}.write');
    const writer = await signIn('writer@example.com', ['${n.name}.write']);
    const added = await t.request({ method: 'POST', url: '${url}', headers: shop.headers(writer), payload: { title: 'Yes' } });
    expect(added.statusCode).toBe(201);
  });

  it('keeps each store\\'s items to itself', async () => {
    const item = (await addItem(shop, { title: 'Private stock' })).json().data;
    const other = await t.createTenant();

    const list = await t.request({ method: 'GET', url: '${url}', headers: other.headers() });
    expect(list.statusCode).toBe(200);
    expect(list.json().data).toEqual([]);
    const read = await t.request({ method: 'GET', url: \`${url}/\${item.id}\`, headers: other.headers() });
    expect(read.statusCode).toBe(404);
  });

  it('records ${n.name}.item.created for the store', async () => {
    const item = (await addItem(shop, { title: 'Poncho' })).json().data;
    const events = await t.app.container
      .resolve(Database)
      .query<{ tenant_id: string }>("select tenant_id from core_outbox where type = '${n.name}.item.created' and data->>'id' = ?", [item.id]);
    expect(events.map((e) => e.tenant_id)).toEqual([shop.id]);
  });
});
`;
}
