import { createTestApp, type TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import project from '../qhatu.config.js';

/**
 * Every endpoint of the specification and of the contracts that the store serves today, as listed
 * in the API inventory; each must be in /openapi.json. Add an endpoint here when it lands.
 */
const LANDED = [
  'POST /graphql',
  'GET /graphql',
  'POST /api/v1/media/upload',
  'POST /api/v1/media/:id/confirm',
  'GET /api/v1/media',
  'GET /api/v1/media/:id',
  'PATCH /api/v1/media/:id/alt-text',
  'POST /api/v1/media/:id/variants',
  'POST /api/v1/media/:id/fail',
  'DELETE /api/v1/media/:id',
  'POST /api/v1/discounts/coupons',
  'GET /api/v1/discounts/coupons',
  'GET /api/v1/discounts/coupons/:id',
  'GET /api/v1/discounts/coupons/code/:code',
  'PATCH /api/v1/discounts/coupons/:id',
  'DELETE /api/v1/discounts/coupons/:id',
  'POST /api/v1/discounts/coupons/validate',
  'POST /api/v1/discounts/coupons/:id/apply',
  'POST /api/v1/discounts/volume',
  'GET /api/v1/discounts/volume',
  'DELETE /api/v1/discounts/volume/:id',
  'GET /api/v1/catalog/collections',
  'POST /api/v1/catalog/collections',
  'GET /api/v1/catalog/collections/:id',
  'PUT /api/v1/catalog/collections/:id',
  'DELETE /api/v1/catalog/collections/:id',
  'GET /api/v1/catalog/collections/:id/products',
  'POST /api/v1/catalog/collections/:id/products',
  'DELETE /api/v1/catalog/collections/:id/products/:product_id',
  'POST /api/v1/checkout/carts',
  'GET /api/v1/checkout/carts/:id',
  'POST /api/v1/checkout/carts/:id/items',
  'PUT /api/v1/checkout/carts/:id/items/:variant_id',
  'DELETE /api/v1/checkout/carts/:id/items/:variant_id',
  'POST /api/v1/checkout/carts/:id/coupon',
  'POST /api/v1/checkout/checkouts',
  'GET /api/v1/checkout/checkouts/:id',
  'PUT /api/v1/checkout/checkouts/:id/shipping',
  'POST /api/v1/checkout/checkouts/:id/complete',
  'POST /api/v1/checkout/checkouts/:id/abandon',
  'GET /api/v1/catalog/suppliers',
  'POST /api/v1/catalog/suppliers',
  'GET /api/v1/catalog/suppliers/:id',
  'PATCH /api/v1/catalog/suppliers/:id',
  'DELETE /api/v1/catalog/suppliers/:id',
  'GET /api/v1/catalog/brands',
  'POST /api/v1/catalog/brands',
  'GET /api/v1/catalog/brands/:id',
  'PUT /api/v1/catalog/brands/:id',
  'DELETE /api/v1/catalog/brands/:id',
  'GET /api/v1/catalog/products/:id/downloads',
  'POST /api/v1/catalog/products/:id/downloads',
  'PATCH /api/v1/catalog/products/:id/downloads/:download_id',
  'DELETE /api/v1/catalog/products/:id/downloads/:download_id',
  'GET /api/v1/catalog/products/:id/metafields',
  'POST /api/v1/catalog/products/:id/metafields',
  'PATCH /api/v1/catalog/products/:id/metafields/:metafield_id',
  'DELETE /api/v1/catalog/products/:id/metafields/:metafield_id',
  'GET /api/v1/inventory/warehouses',
  'POST /api/v1/inventory/warehouses',
  'GET /api/v1/inventory/warehouses/:id',
  'PUT /api/v1/inventory/warehouses/:id',
  'DELETE /api/v1/inventory/warehouses/:id',
  'POST /api/v1/inventory/warehouses/:id/stock/adjust',
  'GET /api/v1/orders',
  'POST /api/v1/orders',
  'GET /api/v1/orders/:id',
  'POST /api/v1/orders/:id/cancel',
  'POST /api/v1/orders/:id/ready-to-ship',
  'POST /api/v1/orders/:id/fulfillments',
  'GET /api/v1/orders/:id/fulfillments',
  'POST /api/v1/fulfillments/:id/delivered',
  'GET /api/v1/customers',
  'POST /api/v1/customers',
  'GET /api/v1/customers/:id/addresses',
  'POST /api/v1/customers/:id/addresses',
  'PUT /api/v1/customers/:id/addresses/:address_id',
  'DELETE /api/v1/customers/:id/addresses/:address_id',
  'GET /api/v1/customers/:id/orders',
  'POST /api/v1/tenants',
  'GET /api/v1/tenants',
  'GET /api/v1/tenants/:id',
  'PUT /api/v1/tenants/:id',
  'POST /api/v1/tenants/:id/suspend',
  'POST /api/v1/tenants/:id/activate',
  'POST /api/v1/webhooks',
  'POST /api/v1/webhooks/:id/deliveries/:deliveryId/retry',
  'POST /api/v1/tenants/:id/api-keys',
  'POST /api/v1/auth/customer/register',
  'POST /api/v1/auth/customer/login',
  'GET /api/v1/catalog/products',
  'POST /api/v1/catalog/products',
  'GET /api/v1/catalog/products/:id',
  'PATCH /api/v1/catalog/products/:id',
  'DELETE /api/v1/catalog/products/:id',
  'POST /api/v1/catalog/products/:id/variants',
  'PATCH /api/v1/catalog/products/:id/variants/:variant_id',
  'DELETE /api/v1/catalog/products/:id/variants/:variant_id',
  'GET /api/v1/webhooks',
  'GET /api/v1/webhooks/:id',
  'PATCH /api/v1/webhooks/:id',
  'DELETE /api/v1/webhooks/:id',
  'GET /api/v1/webhooks/:id/deliveries',
  'POST /api/v1/payments',
  'GET /api/v1/payments/:id',
  'POST /api/v1/payments/:id/refund',
  'GET /api/v1/payments/gateways',
  'PUT /api/v1/payments/gateways/:id',
  'GET /api/v1/crm/leads',
  'POST /api/v1/crm/leads',
  'GET /api/v1/crm/leads/:id',
  'PATCH /api/v1/crm/leads/:id',
  'DELETE /api/v1/crm/leads/:id',
  'POST /api/v1/crm/leads/:id/qualify',
  'POST /api/v1/crm/leads/:id/disqualify',
  'POST /api/v1/crm/leads/:id/convert',
  'GET /api/v1/crm/leads/:id/activities',
  'POST /api/v1/crm/leads/:id/activities',
  'POST /api/v1/crm/leads/:id/tasks',
  'GET /api/v1/crm/deals',
  'POST /api/v1/crm/deals',
  'GET /api/v1/crm/deals/:id',
  'PATCH /api/v1/crm/deals/:id',
  'POST /api/v1/crm/deals/:id/move',
  'POST /api/v1/crm/deals/:id/won',
  'POST /api/v1/crm/deals/:id/lost',
  'DELETE /api/v1/crm/deals/:id',
  'GET /api/v1/crm/tasks',
  'GET /api/v1/crm/tasks/:id',
  'POST /api/v1/crm/tasks',
  'PATCH /api/v1/crm/tasks/:id',
  'POST /api/v1/crm/tasks/:id/complete',
  'POST /api/v1/crm/tasks/:id/cancel',
  'DELETE /api/v1/crm/tasks/:id',
  'GET /admin/abandoned-carts',
  'POST /admin/abandoned-carts/:id/send-reminder',
  'POST /admin/abandoned-carts/:id/recover',
];

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ plugins: project.plugins });
});
afterAll(async () => t?.close());

describe('the OpenAPI document of the full store', () => {
  it('lists every landed endpoint', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
    const listed = new Set<string>();
    for (const [path, operations] of Object.entries<Record<string, unknown>>(doc.paths)) {
      for (const method of Object.keys(operations)) listed.add(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`);
    }
    expect(LANDED.filter((endpoint) => !listed.has(endpoint))).toEqual([]);
    expect(LANDED.length).toBeGreaterThanOrEqual(111);
  });

  it('is OpenAPI 3.1 with the shared schemas as components (a name collision would make it a 500)', async () => {
    const res = await t.request({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    expect(res.json().openapi).toBe('3.1.0');
    expect(Object.keys(res.json().components.schemas).length).toBeGreaterThan(20);
  });
});
