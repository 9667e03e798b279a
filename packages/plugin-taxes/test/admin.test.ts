import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { caller, cartWith, MISSING, ok, product, TAXES, taxesApp, type Caller } from './helpers.js';

let t: TestApp;
let peru: TestTenant;
let usa: TestTenant;
let adminPe: Caller;
let adminUs: Caller;

beforeAll(async () => {
  t = await taxesApp();
  peru = await t.createTenant({ currency: 'PEN' });
  usa = await t.createTenant({ currency: 'USD' });
  adminPe = caller(t, peru);
  adminUs = caller(t, usa);
});
afterAll(async () => t.close());

const error = (res: { statusCode: number; json(): any }) => ({ status: res.statusCode, code: res.json().error?.code });

describe('tax settings', () => {
  it('default to prices with tax for PEN stores and without elsewhere; no rates, no tax', async () => {
    expect(await ok(await adminPe('GET', `${TAXES}/settings`))).toEqual({
      prices_include_tax: true, prices_include_tax_default: true, tax_shipping: true, shipping_tax_class: 'standard', origin_country: null, origin_province: null, updated_at: null,
    });
    expect(await ok(await adminUs('GET', `${TAXES}/settings`))).toMatchObject({ prices_include_tax: false, prices_include_tax_default: true });
    const hat = await product(adminPe, [5000]);
    expect(await cartWith(caller(t, peru, peru.storefrontToken), [[hat.variants[0], 1]])).toMatchObject({ tax_total: 0, total: 5000 });
  });

  it('change field by field, and refuse what is not a setting', async () => {
    const set = await ok(await adminUs('PATCH', `${TAXES}/settings`, { prices_include_tax: true, origin_country: 'us', origin_province: 'ny' }));
    expect(set).toMatchObject({ prices_include_tax: true, prices_include_tax_default: false, origin_country: 'US', origin_province: 'NY', tax_shipping: true });
    expect(await ok(await adminUs('PATCH', `${TAXES}/settings`, { prices_include_tax: null }))).toMatchObject({ prices_include_tax: false, prices_include_tax_default: true, origin_country: 'US' });
    expect(error(await adminUs('PATCH', `${TAXES}/settings`, { origin_country: 'XX' }))).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
    expect(error(await adminUs('PATCH', `${TAXES}/settings`, { vat: true }))).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
    expect(error(await adminUs('PATCH', `${TAXES}/settings`, { shipping_tax_class: 'Not A Class' }))).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
  });

  it('are the admin’s: storefront keys and anonymous callers are refused', async () => {
    expect((await caller(t, peru, peru.storefrontToken)('GET', `${TAXES}/settings`)).statusCode).toBe(403);
    expect((await t.request({ method: 'GET', url: `${TAXES}/settings`, headers: { 'x-tenant-id': peru.id } })).statusCode).toBe(401);
  });
});

describe('tax regions and rates', () => {
  it('are created, read, changed and removed, one per country and province', async () => {
    const pe = await ok(await adminPe('POST', `${TAXES}/regions`, { country_code: 'PE', rates: { standard: 1800 } }), 201);
    expect(pe).toMatchObject({ name: 'PE', country_code: 'PE', province: null, rates: { standard: 1800 } });
    expect(error(await adminPe('POST', `${TAXES}/regions`, { country_code: 'PE' }))).toEqual({ status: 409, code: 'TAX_REGION_EXISTS' });
    const lima = await ok(await adminPe('POST', `${TAXES}/regions`, { name: 'Lima', country_code: 'PE', province: 'Lima', rates: {} }), 201);
    expect(lima.province).toBe('LIMA');

    expect(await ok(await adminPe('PUT', `${TAXES}/regions/${pe.id}/rates/reduced`, { rate: 1000 }))).toMatchObject({ rates: { standard: 1800, reduced: 1000 } });
    expect(await ok(await adminPe('DELETE', `${TAXES}/regions/${pe.id}/rates/reduced`))).toMatchObject({ rates: { standard: 1800 } });
    expect(error(await adminPe('DELETE', `${TAXES}/regions/${pe.id}/rates/reduced`))).toEqual({ status: 404, code: 'TAX_RATE_NOT_FOUND' });
    expect(error(await adminPe('PUT', `${TAXES}/regions/${pe.id}/rates/exempt`, { rate: 5 }))).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
    expect(error(await adminPe('PUT', `${TAXES}/regions/${pe.id}/rates/standard`, { rate: 10001 }))).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
    expect(error(await adminPe('POST', `${TAXES}/regions`, { country_code: 'PE', province: 'Cusco', rates: { standard: 18.5 } }))).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
    expect(error(await adminPe('POST', `${TAXES}/regions`, { country_code: 'PE', province: 'Cusco', rates: { exempt: 0 } }))).toEqual({ status: 400, code: 'VALIDATION_ERROR' });

    expect(await ok(await adminPe('PATCH', `${TAXES}/regions/${lima.id}`, { name: 'Lima Metropolitana', rates: { standard: 1800 } }))).toMatchObject({ name: 'Lima Metropolitana', rates: { standard: 1800 } });
    const listed = (await adminPe('GET', `${TAXES}/regions?filter[country_code]=pe&limit=1`)).json();
    expect(listed.data.map((r: { id: string }) => r.id)).toEqual([pe.id]);
    expect(listed.meta.pagination.has_next).toBe(true);
    const next = (await adminPe('GET', `${TAXES}/regions?filter[country_code]=PE&limit=1&cursor=${listed.meta.pagination.cursor}`)).json();
    expect(next.data.map((r: { id: string }) => r.id)).toEqual([lima.id]);

    expect((await adminPe('DELETE', `${TAXES}/regions/${lima.id}`)).statusCode).toBe(204);
    expect(error(await adminPe('GET', `${TAXES}/regions/${lima.id}`))).toEqual({ status: 404, code: 'TAX_REGION_NOT_FOUND' });
    expect(error(await adminPe('GET', `${TAXES}/regions/not-a-uuid`))).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
  });
});

describe('tax classes of products and variants', () => {
  it('are kept per product or variant of the store, and refused for unknown ones', async () => {
    const book = await product(adminPe, [3000, 3000]);
    const assigned = await ok(await adminPe('PUT', `${TAXES}/classes/reduced/products`, { product_ids: [book.id], variant_ids: [book.variants[1]] }));
    expect(assigned.map((a: { id: string; target_type: string; tax_class: string }) => [a.id, a.target_type, a.tax_class])).toEqual([
      [book.id, 'product', 'reduced'],
      [book.variants[1], 'variant', 'reduced'],
    ]);
    const unknown = await adminPe('PUT', `${TAXES}/classes/reduced/products`, { variant_ids: [MISSING] });
    expect(error(unknown)).toEqual({ status: 422, code: 'CATALOG_REFERENCE_NOT_FOUND' });
    expect(error(await adminPe('PUT', `${TAXES}/classes/reduced/products`, {}))).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
    const listed = await ok(await adminPe('GET', `${TAXES}/classes/assignments?filter[tax_class]=reduced`));
    expect(listed).toHaveLength(2);
    expect((await adminPe('DELETE', `${TAXES}/classes/assignments/${book.variants[1]}`)).statusCode).toBe(204);
    expect(error(await adminPe('DELETE', `${TAXES}/classes/assignments/${book.variants[1]}`))).toEqual({ status: 404, code: 'TAX_ASSIGNMENT_NOT_FOUND' });
  });
});

describe('tenant isolation', () => {
  it("keeps each store's settings, regions and classes its own", async () => {
    const peRegion = (await ok(await adminPe('GET', `${TAXES}/regions`)))[0];
    expect(await ok(await adminUs('GET', `${TAXES}/regions`))).toEqual([]);
    expect(error(await adminUs('GET', `${TAXES}/regions/${peRegion.id}`))).toEqual({ status: 404, code: 'TAX_REGION_NOT_FOUND' });
    expect(error(await adminUs('PATCH', `${TAXES}/regions/${peRegion.id}`, { rates: { standard: 0 } }))).toEqual({ status: 404, code: 'TAX_REGION_NOT_FOUND' });
    expect(error(await adminUs('DELETE', `${TAXES}/regions/${peRegion.id}`))).toEqual({ status: 404, code: 'TAX_REGION_NOT_FOUND' });
    expect(await ok(await adminPe('GET', `${TAXES}/regions/${peRegion.id}`))).toMatchObject({ rates: { standard: 1800 } });

    // Another store's product is an unknown reference.
    const peBook = await product(adminPe, [1000]);
    expect(error(await adminUs('PUT', `${TAXES}/classes/exempt/products`, { product_ids: [peBook.id] }))).toEqual({ status: 422, code: 'CATALOG_REFERENCE_NOT_FOUND' });
    expect(await ok(await adminUs('GET', `${TAXES}/classes/assignments`))).toEqual([]);

    // The US store, shipping from New York with no region of its own, taxes nothing though Peru's store has IGV.
    await ok(await adminPe('PATCH', `${TAXES}/settings`, { origin_country: 'PE' }));
    await ok(await adminUs('PATCH', `${TAXES}/settings`, { origin_country: 'PE' }));
    const usHat = await product(adminUs, [5000]);
    expect(await cartWith(caller(t, usa, usa.storefrontToken), [[usHat.variants[0], 1]])).toMatchObject({ tax_total: 0, total: 5000 });
    const peHat = await product(adminPe, [11800]);
    expect(await cartWith(caller(t, peru, peru.storefrontToken), [[peHat.variants[0], 1]])).toMatchObject({ tax_total: 1800, total: 11800 });
    expect(await ok(await adminUs('GET', `${TAXES}/settings`))).toMatchObject({ prices_include_tax: false, origin_country: 'PE' });
  });
});

describe('permissions', () => {
  it('lets staff read the tax settings with taxes.read, and change them only with taxes.write', async () => {
    const listed = await ok(await adminPe('GET', '/api/v1/permissions'));
    expect(listed.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['taxes.read', 'taxes.write']));
    const role = await ok(await adminPe('POST', '/api/v1/roles', { name: 'Tax reader', permissions: ['taxes.read'] }), 201);
    await ok(await adminPe('POST', '/api/v1/staff', { email: 'contadora@example.com', first_name: 'Ana', last_name: 'Quispe', role_id: role.id, password: 'correct horse battery' }), 201);
    const session = await ok(await t.request({ method: 'POST', url: '/api/v1/auth/staff/login', headers: { 'x-tenant-id': peru.id }, payload: { email: 'contadora@example.com', password: 'correct horse battery' } }));
    const staff = caller(t, peru, session.token);
    expect((await staff('GET', `${TAXES}/settings`)).statusCode).toBe(200);
    expect((await staff('GET', `${TAXES}/regions`)).statusCode).toBe(200);
    expect(error(await staff('PATCH', `${TAXES}/settings`, { tax_shipping: false }))).toEqual({ status: 403, code: 'FORBIDDEN' });
    expect(error(await staff('POST', `${TAXES}/regions`, { country_code: 'CL' }))).toEqual({ status: 403, code: 'FORBIDDEN' });
    expect(await ok(await adminPe('GET', `${TAXES}/settings`))).toMatchObject({ tax_shipping: true });
  });
});

describe('OpenAPI', () => {
  it('documents the tax routes', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
    for (const path of ['/api/v1/taxes/settings', '/api/v1/taxes/regions', '/api/v1/taxes/regions/{id}', '/api/v1/taxes/regions/{id}/rates/{tax_class}', '/api/v1/taxes/classes/{tax_class}/products', '/api/v1/taxes/classes/assignments', '/api/v1/taxes/classes/assignments/{id}']) {
      expect(doc.paths[path], path).toBeDefined();
    }
    expect(doc.paths['/api/v1/taxes/settings'].patch.requestBody).toBeDefined();
  });
});
