import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { createTestApp } from '@qhatu/core/testing';
import { isAdminRule } from '@qhatu/core';
import { caller, createOrder } from '@qhatu/plugin-payments/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import project from '../qhatu.config.js';

let t: TestApp;
let shop: TestTenant;
beforeAll(async () => {
  t = await createTestApp({ plugins: project.plugins });
  shop = await t.createTenant({ currency: 'PEN' });
}, 60_000);
afterAll(async () => t?.close());

describe('the route table of the full store', () => {
  it('has every admin route of every plugin name a permission that an installed plugin declares', async () => {
    const declared = new Map(project.plugins.flatMap((p) => (p.permissions ?? []).map((d) => [d.name, p.name] as const)));
    const admin = t.app.routes.filter((r) => isAdminRule(r.auth));
    expect(admin.length).toBeGreaterThan(80);
    const missing = admin.filter((r) => !r.permission).map((r) => `${r.plugin}: ${r.method} ${r.url}`);
    expect(missing).toEqual([]);
    const undeclared = admin.filter((r) => r.plugin !== 'core' && !declared.has(r.permission!)).map((r) => `${r.plugin}: ${r.method} ${r.url} → ${r.permission}`);
    expect(undeclared).toEqual([]);
    for (const name of ['catalog.read', 'catalog.write', 'orders.read', 'orders.fulfil', 'payments.refund']) expect(declared.has(name), name).toBe(true);
    // Every plugin that declares permissions has admin routes, so none was skipped; the offline
    // gateway's routes name the permissions of payments, the plugin it extends.
    expect(new Set(admin.map((r) => r.plugin))).toEqual(new Set(project.plugins.filter((p) => p.permissions?.length).map((p) => p.name).concat('core', 'offline')));
    expect(new Set(admin.filter((r) => r.plugin === 'offline').map((r) => r.permission))).toEqual(new Set(['payments.read', 'payments.configure', 'payments.capture']));
    expect(admin.map((r) => r.plugin)).toEqual(expect.arrayContaining(['media', 'catalog', 'customers', 'inventory', 'discounts', 'orders', 'abandoned-carts', 'payments', 'webhooks', 'shipping', 'blog', 'themes', 'reviews']));
    const permissions = (await t.request({ method: 'GET', url: '/api/v1/permissions', headers: shop.headers() })).json().data.map((p: { name: string }) => p.name);
    expect(permissions).toEqual([...declared.keys(), 'currencies.manage', 'locales.manage', 'markets.manage', 'staff.manage', 'staff.read', 'store.manage', 'store.read'].sort());
  });

  it('documents each admin operation’s permission in OpenAPI', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.paths['/api/v1/orders/{id}/fulfillments'].post['x-permission']).toBe('orders.fulfil');
    expect(doc.paths['/api/v1/payments/{id}/refund'].post['x-permission']).toBe('payments.refund');
    expect(doc.paths['/api/v1/catalog/products'].post.description).toContain('`catalog.write`');
  });
});

describe('a warehouse clerk', () => {
  it('reads orders but may not fulfil them; a role with orders.fulfil may', async () => {
    const admin = caller(t, shop);
    const order = await createOrder(admin);
    const clerkRole = await admin('POST', '/api/v1/roles', { name: 'Clerk', permissions: ['orders.read', 'catalog.read'] });
    expect(clerkRole.statusCode).toBe(201);
    const shipperRole = await admin('POST', '/api/v1/roles', { name: 'Shipper', permissions: ['orders.read', 'orders.fulfil'] });
    const signIn = async (email: string, roleId: string) => {
      const created = await admin('POST', '/api/v1/staff', { email, first_name: 'Lucho', last_name: 'Huamán', role_id: roleId, password: 'a long password' });
      expect(created.statusCode).toBe(201);
      const session = await t.request({ method: 'POST', url: '/api/v1/auth/staff/login', headers: { 'x-tenant-id': shop.id }, payload: { email, password: 'a long password' } });
      return caller(t, shop, session.json().data.token);
    };
    const clerk = await signIn('clerk@example.com', clerkRole.json().data.id);
    expect((await clerk('GET', '/api/v1/orders')).statusCode).toBe(200);
    expect((await clerk('GET', `/api/v1/orders/${order.id}`)).statusCode).toBe(200);
    expect((await clerk('GET', `/api/v1/orders/${order.id}/fulfillments`)).statusCode).toBe(200);
    const refused = await clerk('POST', `/api/v1/orders/${order.id}/fulfillments`, {});
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toMatchObject({ code: 'FORBIDDEN', details: [{ permission: 'orders.fulfil' }] });
    expect(refused.json().error.message).toContain('orders.fulfil');
    expect((await clerk('POST', '/api/v1/catalog/products', { title: 'X', variants: [{ title: 'One', price: 1 }] })).statusCode).toBe(403);
    expect((await clerk('GET', '/api/v1/catalog/suppliers')).statusCode).toBe(200);

    const shipper = await signIn('shipper@example.com', shipperRole.json().data.id);
    const shipped = await shipper('POST', `/api/v1/orders/${order.id}/fulfillments`, {});
    expect(shipped.statusCode, shipped.body).not.toBe(403);
    expect(shipped.statusCode).toBeLessThan(500);
    // The clerk sees the shipment the shipper made.
    expect((await clerk('GET', `/api/v1/orders/${order.id}/fulfillments`)).statusCode).toBe(200);
    // What shoppers may not see (a draft product) is shown to staff who hold catalog.read only.
    const draft = (await admin('POST', '/api/v1/catalog/products', { title: 'Unreleased poncho', status: 'draft', variants: [{ title: 'One', price: 100 }] })).json().data;
    expect((await clerk('GET', `/api/v1/catalog/products/${draft.id}`)).statusCode).toBe(200);
    expect((await shipper('GET', `/api/v1/catalog/products/${draft.id}`)).statusCode).toBe(404);
    const refund = await shipper('POST', '/api/v1/payments/00000000-0000-4000-8000-000000000000/refund', {});
    expect(refund.statusCode).toBe(403);
    expect(refund.json().error.details[0].permission).toBe('payments.refund');
  });
});
