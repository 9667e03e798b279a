import type { TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { marketApp } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await marketApp();
});
afterAll(() => t?.close());

describe('the marketplace in the OpenAPI document', () => {
  it("lists the specification's endpoints, the admin ones with their permission, the portal's for vendor tokens", async () => {
    const res = await t.request({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    const doc = res.json();
    const operations = new Map<string, { 'x-permission'?: string; summary?: string }>();
    for (const [path, ops] of Object.entries<Record<string, { 'x-permission'?: string }>>(doc.paths)) {
      if (!/^\/api\/v1\/(marketplace|vendor)\//.test(path)) continue;
      for (const [method, op] of Object.entries(ops)) operations.set(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`, op);
    }
    const spec = [
      'GET /api/v1/marketplace/vendors', 'POST /api/v1/marketplace/vendors', 'GET /api/v1/marketplace/vendors/:id',
      'PATCH /api/v1/marketplace/vendors/:id/status', 'GET /api/v1/marketplace/vendors/:id/products', 'GET /api/v1/marketplace/vendors/:id/payouts',
      'POST /api/v1/marketplace/vendor-products', 'DELETE /api/v1/marketplace/vendor-products/:id', 'GET /api/v1/marketplace/payouts',
      'POST /api/v1/vendor/login', 'GET /api/v1/vendor/me', 'GET /api/v1/vendor/products', 'PATCH /api/v1/vendor/products/:id', 'GET /api/v1/vendor/payouts',
    ];
    expect(spec.filter((e) => !operations.has(e))).toEqual([]);
    for (const [name, op] of operations) {
      expect(op.summary, name).toBeTruthy();
      if (name.includes('/marketplace/')) expect(op['x-permission'], name).toMatch(/^marketplace\.(read|write|payouts)$/);
    }
    expect(operations.size).toBe(spec.length + 4);
    expect(doc.components.schemas.MarketplaceVendor.properties.status.enum).toEqual(['pending', 'active', 'suspended']);
    expect(doc.components.schemas.MarketplacePayout.properties.status.enum).toEqual(['pending', 'processing', 'paid', 'failed']);
  });
});
