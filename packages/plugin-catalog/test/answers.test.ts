import { captureLogs, createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import media from '@qhatu/plugin-media';
import { afterAll, beforeAll, expect, it } from 'vitest';
import catalog from '../src/index.js';
import { caller, createProduct } from './helpers.js';

/**
 * Each catalog read is answered once: a cached storefront answer, a fresh one, a 304 and an admin
 * read leave no error behind them in the logs (a handler that sent its reply and then returned
 * nothing had fastify send it a second time, an error logged after every read).
 */
const logs = captureLogs();
let t: TestApp;
let tenant: TestTenant;
beforeAll(async () => {
  t = await createTestApp({ plugins: [media, catalog], logger: logs.logger });
  tenant = await t.createTenant();
});
afterAll(() => t.close());

it('answers every kind of catalog read once, logging no error', async () => {
  const product = await createProduct(t, tenant);
  const collection = (await caller(t, tenant)('POST', '/api/v1/catalog/collections', { title: 'Winter' })).json().data as { id: string };
  const storefront = caller(t, tenant, tenant.storefrontToken);
  const admin = caller(t, tenant);
  const urls = [`/api/v1/catalog/products/${product.id}`, '/api/v1/catalog/products?limit=5', '/api/v1/catalog/collections', `/api/v1/catalog/collections/${collection.id}`];
  logs.lines.length = 0;
  for (const url of urls) {
    const first = await storefront('GET', url);
    const again = await storefront('GET', url);
    expect([first.statusCode, again.statusCode]).toEqual([200, 200]);
    expect(again.body).toBe(first.body);
    const unchanged = await t.request({ method: 'GET', url, headers: { ...tenant.headers(tenant.storefrontToken), 'if-none-match': String(first.headers.etag) } });
    expect(unchanged.statusCode).toBe(304);
    expect((await admin('GET', url)).statusCode).toBe(200);
  }
  expect(logs.lines.filter((line) => line.msg === 'request completed')).toHaveLength(urls.length * 4);
  expect(logs.problems()).toEqual([]);
});
