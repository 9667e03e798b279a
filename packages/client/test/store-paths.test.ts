import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createQhatuClient, ERROR_CODES, isQhatuApiError, QhatuApiError, type ItemOf, type ListPath, type paths, type QhatuErrorCode } from '../src/index.js';

// What openapi-typescript writes for a store's own plugin (a gift-wrap list), beside the full store's paths.
interface GiftWrapPaths {
  '/api/v1/gift-wrap/items': {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: { query?: { cursor?: string; limit?: number }; header?: never; path?: never; cookie?: never };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: { 'application/json': { data: { id: string; label: string }[]; meta: { pagination: { cursor: string | null; has_next: boolean } } } };
        };
      };
    };
    put?: never;
    post: {
      parameters: { query?: never; header?: never; path?: never; cookie?: never };
      requestBody: { content: { 'application/json': { label: string } } };
      responses: {
        201: { headers: { [name: string]: unknown }; content: { 'application/json': { data: { id: string; label: string } } } };
        409: { headers: { [name: string]: unknown }; content: { 'application/json': { error: { code: string; message: string; details: Record<string, unknown>[] } } } };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
type StorePaths = paths & GiftWrapPaths;
type StoreErrorCode = QhatuErrorCode | 'GIFT_WRAP_SOLD_OUT';

const labels = ['Red paper', 'Kraft', 'Silk ribbon'];
let baseUrl: string;
const server = createServer((req, res) => {
  const url = new URL(req.url!, 'http://localhost');
  res.setHeader('content-type', 'application/json');
  if (req.method === 'POST') {
    res.statusCode = 409;
    return res.end(JSON.stringify({ error: { code: 'GIFT_WRAP_SOLD_OUT', message: 'No more silk ribbon', details: [] } }));
  }
  const from = Number(url.searchParams.get('cursor') ?? 0);
  const limit = Number(url.searchParams.get('limit') ?? 2);
  const next = from + limit < labels.length ? String(from + limit) : null;
  res.end(JSON.stringify({ data: labels.slice(from, from + limit).map((label, i) => ({ id: String(from + i), label })), meta: { pagination: { cursor: next, has_next: next !== null } } }));
});
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('a client over a store\'s own paths', () => {
  it('keeps the helpers: typed calls, cursor lists and typed error codes', async () => {
    const client = createQhatuClient<StorePaths, StoreErrorCode>({ baseUrl, token: 'k', tenantId: 't' });
    expectTypeOf<'/api/v1/gift-wrap/items'>().toExtend<ListPath<StorePaths>>();
    expectTypeOf<ItemOf<'/api/v1/gift-wrap/items', StorePaths>>().toEqualTypeOf<{ id: string; label: string }>();

    const seen: string[] = [];
    for await (const item of client.items('/api/v1/gift-wrap/items', { params: { query: { limit: 2 } } })) {
      expectTypeOf(item.label).toBeString();
      seen.push(item.label);
    }
    expect(seen).toEqual(labels);
    // The full store's paths are still there.
    expectTypeOf(client.GET).parameter(0).toExtend<string>();
    expectTypeOf<'/api/v1/catalog/products'>().toExtend<ListPath<StorePaths>>();

    const error = await client.POST('/api/v1/gift-wrap/items', { body: { label: 'Silk ribbon' } }).catch((e: unknown) => e);
    expect(isQhatuApiError<StoreErrorCode>(error, 'GIFT_WRAP_SOLD_OUT')).toBe(true);
    expect(error).toBeInstanceOf(QhatuApiError);
    expect((error as QhatuApiError<StoreErrorCode>).code).toBe('GIFT_WRAP_SOLD_OUT');
  });
});

describe('error codes', () => {
  it('are a union of the codes the store answers, a misspelt one does not compile', () => {
    expectTypeOf<QhatuApiError['code']>().toEqualTypeOf<QhatuErrorCode>();
    expectTypeOf<'VARIANT_NOT_FOUND'>().toExtend<QhatuErrorCode>();
    expectTypeOf<'HTTP_502'>().toExtend<QhatuErrorCode>();
    expectTypeOf<'VARIANT_NOT_FOUNDD'>().not.toExtend<QhatuErrorCode>();
    const error: unknown = new QhatuApiError({ status: 404, code: 'NOT_FOUND', message: 'No route', method: 'GET', url: '/x' });
    if (isQhatuApiError(error, 'NOT_FOUND')) expectTypeOf(error.code).toEqualTypeOf<'NOT_FOUND'>();
    // @ts-expect-error a code the store never answers
    expect(isQhatuApiError(error, 'NOT_FOUNDD')).toBe(false);
  });

  it('include every code the specification and the contracts document', () => {
    const documented = [
      // ARCHITECTURE's contract for every REST error
      'VALIDATION_ERROR', 'TENANT_REQUIRED', 'UNAUTHENTICATED', 'FORBIDDEN', 'TENANT_SUSPENDED', 'NOT_FOUND', 'INVALID_STATE_TRANSITION', 'CONFLICT',
      'RATE_LIMITED', 'IDEMPOTENCY_KEY_REUSED', 'GATEWAY_NOT_CONFIGURED',
      // the specification's checkout, theme store and marketplace tables
      'INVALID_ID', 'INVALID_REQUEST', 'CART_NOT_FOUND', 'CHECKOUT_NOT_FOUND', 'ITEM_NOT_FOUND', 'COUPON_INVALID', 'CART_EXPIRED',
      'THEME_NOT_FOUND', 'THEME_ALREADY_INSTALLED', 'THEME_NOT_PURCHASED', 'THEME_NOT_INSTALLED',
      'VENDOR_NOT_FOUND', 'VENDOR_ALREADY_EXISTS', 'VENDOR_NOT_ACTIVE', 'PRODUCT_ALREADY_LINKED',
    ];
    expect(documented.filter((code) => !(ERROR_CODES as readonly string[]).includes(code))).toEqual([]);
    expect(ERROR_CODES.every((code) => /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/.test(code))).toBe(true);
  });
});
