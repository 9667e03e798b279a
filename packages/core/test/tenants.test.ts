import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../src/testing/index.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ plugins: [] });
});
afterAll(async () => t?.close());

const platform = () => ({ authorization: `Bearer ${t.platformToken}` });

describe('tenants', () => {
  it('creates a tenant with defaults and a generated slug', async () => {
    const res = await t.request({ method: 'POST', url: '/api/v1/tenants', headers: platform(), payload: { name: 'Café Andino' } });
    expect(res.statusCode).toBe(201);
    const { data } = res.json();
    expect(data).toMatchObject({ name: 'Café Andino', slug: 'cafe-andino', status: 'active', currency: 'USD', default_locale: 'en' });
    expect(data.id).toMatch(/^[0-9a-f-]{36}$/);
  });
});
