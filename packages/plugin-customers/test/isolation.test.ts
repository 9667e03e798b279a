import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, createCustomer, customersApp, register, type CustomerJson } from './helpers.js';

let t: TestApp;
let a: TestTenant;
let b: TestTenant;
let asA: ReturnType<typeof caller>;
let asB: ReturnType<typeof caller>;
let inB: CustomerJson;
let addressInB: { id: string };
beforeAll(async () => {
  t = await customersApp();
  a = await t.createTenant();
  b = await t.createTenant();
  asA = caller(t, a);
  asB = caller(t, b);
  inB = await createCustomer(t, b, { email: 'shared@example.com', first_name: 'Beto' });
  addressInB = (await asB('POST', `/api/v1/customers/${inB.id}/addresses`, { address1: 'Calle B 1', city: 'Lima', country_code: 'PE' })).json().data;
});
afterAll(async () => t?.close());

const HOME = { address1: 'Calle A 1', city: 'Cusco', country_code: 'PE' };

describe('tenant isolation', () => {
  it('lets the same e-mail exist in two stores, as records and as accounts with their own passwords', async () => {
    const inA = await createCustomer(t, a, { email: 'SHARED@example.com', first_name: 'Ana' });
    expect(inA.id).not.toBe(inB.id);
    const sessionA = await register(t, a, { email: 'both@example.com', password: 'password of A' });
    const sessionB = await register(t, b, { email: 'both@example.com', password: 'password of B' });
    expect(sessionA.customer.id).not.toBe(sessionB.customer.id);
    const login = (tenant: TestTenant, password: string) =>
      caller(t, tenant, tenant.storefrontToken)('POST', '/api/v1/auth/customer/login', { email: 'both@example.com', password });
    expect((await login(a, 'password of A')).json().data.customer.id).toBe(sessionA.customer.id);
    expect((await login(a, 'password of B')).statusCode).toBe(401);
    expect((await login(b, 'password of B')).json().data.customer.id).toBe(sessionB.customer.id);
    expect((await login(b, 'password of A')).statusCode).toBe(401);
  });

  it("keeps B's customers out of A's list and search", async () => {
    const listed = (await asA('GET', '/api/v1/customers?limit=100')).json().data.map((c: CustomerJson) => c.id);
    expect(listed).not.toContain(inB.id);
    expect((await asA('GET', '/api/v1/customers?q=beto')).json().data).toEqual([]);
    expect((await asB('GET', '/api/v1/customers?q=beto')).json().data.map((c: CustomerJson) => c.id)).toEqual([inB.id]);
  });

  it("answers 404 to A's key for B's customer, and changes nothing", async () => {
    for (const [method, body] of [['GET', undefined], ['PATCH', { first_name: 'Hacked', status: 'disabled' }]] as const) {
      const res = await asA(method, `/api/v1/customers/${inB.id}`, body);
      expect(res.statusCode, method).toBe(404);
      expect(res.json().error.code).toBe('CUSTOMER_NOT_FOUND');
    }
    expect((await asB('GET', `/api/v1/customers/${inB.id}`)).json().data).toMatchObject({ first_name: 'Beto', status: 'active' });
  });

  it("answers 404 to A's key for B's addresses, and changes nothing", async () => {
    const base = `/api/v1/customers/${inB.id}/addresses`;
    for (const [method, url, body] of [
      ['GET', base],
      ['POST', base, HOME],
      ['PUT', `${base}/${addressInB.id}`, HOME],
      ['DELETE', `${base}/${addressInB.id}`],
    ] as const) {
      const res = await asA(method, url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().error.code).toBe('CUSTOMER_NOT_FOUND');
    }
    // B's address under one of A's own customers is not there either.
    const mine = await createCustomer(t, a, { email: 'mine@example.com' });
    for (const [method, body] of [['PUT', HOME], ['DELETE', undefined]] as const) {
      const res = await asA(method, `/api/v1/customers/${mine.id}/addresses/${addressInB.id}`, body);
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('ADDRESS_NOT_FOUND');
    }
    expect((await asB('GET', base)).json().data).toEqual([addressInB]);
  });

  it("refuses A's keys and A's customer tokens with B's X-Tenant-ID (403)", async () => {
    const session = await register(t, a, { email: 'cross@example.com', password: 'long enough' });
    for (const token of [a.adminToken, a.storefrontToken, session.token]) {
      for (const [method, url, body] of [
        ['GET', '/api/v1/customers'],
        ['GET', `/api/v1/customers/${inB.id}`],
        ['GET', `/api/v1/customers/${inB.id}/addresses`],
        ['GET', '/api/v1/customers/me'],
        ['POST', '/api/v1/auth/customer/login', { email: 'shared@example.com', password: 'long enough' }],
      ] as const) {
        const res = await t.request({ method, url, headers: b.headers(token), payload: body });
        expect(res.statusCode, `${method} ${url}`).toBe(403);
        expect(res.json().error.code).toBe('FORBIDDEN');
      }
    }
  });

  it("gives B's customer token nothing of A (its own customer id in A's store is unknown there)", async () => {
    const sessionB = await register(t, b, { email: 'only-b@example.com', password: 'long enough' });
    const res = await t.request({ method: 'GET', url: `/api/v1/customers/${sessionB.customer.id}/addresses`, headers: a.headers(sessionB.token) });
    expect(res.statusCode).toBe(403);
    expect((await asA('GET', `/api/v1/customers/${sessionB.customer.id}`)).statusCode).toBe(404);
  });

  it('holds at the database too: row-level security hides other tenants’ rows', async () => {
    const em = t.app.orm.em.fork();
    const seen = await em.transactional(async (tx) => {
      await tx.execute(`select set_config('role', 'qhatu_app', true), set_config('app.tenant_id', ?, true)`, [a.id]);
      const rows = await tx.execute<{ tenant_id: string }[]>(
        `select tenant_id from customers_customer union all select tenant_id from customers_address union all select tenant_id from customers_credential`);
      return new Set(rows.map((r) => r.tenant_id));
    });
    expect([...seen]).toEqual([a.id]);
  });
});
