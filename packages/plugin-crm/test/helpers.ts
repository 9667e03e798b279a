import type { InjectOptions } from 'fastify';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import { expect } from 'vitest';
import crm from '../src/index.js';

/** The CRM plugin alone, on a database of its own. */
export function crmApp(): Promise<TestApp> {
  return createTestApp({ plugins: [crm] });
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Requests of a tenant with its admin key (or `token`); `call(method, path, body)` under /api/v1/crm. */
export function crmCaller(t: TestApp, tenant: TestTenant, token?: string) {
  return (method: Method, path: string, payload?: unknown) =>
    t.request({ method, url: `/api/v1/crm${path}`, headers: tenant.headers(token), ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }) });
}

/** The body's data, after checking the status. */
export async function ok<T = any>(res: Promise<{ statusCode: number; body: string; json(): any }>, status = 200): Promise<T> {
  const r = await res;
  expect(r.statusCode, r.body).toBe(status);
  return r.json().data;
}

/** The error code of an answer, after checking its status. */
export async function fails(res: Promise<{ statusCode: number; body: string; json(): any }>, status: number, code?: string): Promise<any> {
  const r = await res;
  expect(r.statusCode, r.body).toBe(status);
  if (code) expect(r.json().error.code, r.body).toBe(code);
  return r.json().error;
}

let staffCount = 0;

/** A staff member of `tenant` (role `admin` unless another role id is given), signed in. */
export async function staffMember(t: TestApp, tenant: TestTenant, roleName = 'admin', permissions?: string[]): Promise<{ id: string; token: string }> {
  const roles = await ok(t.request({ method: 'GET', url: '/api/v1/roles', headers: tenant.headers() }));
  let role = (roles as Array<{ id: string; name: string }>).find((r) => r.name === roleName);
  if (!role) role = await ok(t.request({ method: 'POST', url: '/api/v1/roles', headers: tenant.headers(), payload: { name: roleName, permissions: permissions ?? [] } }), 201);
  const email = `member${++staffCount}-${Date.now()}@example.com`;
  const password = 'correct horse battery';
  const member = await ok(t.request({ method: 'POST', url: '/api/v1/staff', headers: tenant.headers(), payload: { email, first_name: 'Ana', last_name: 'Quispe', role_id: role!.id, password } }), 201);
  const session = await ok(t.request({ method: 'POST', url: '/api/v1/auth/staff/login', headers: { 'x-tenant-id': tenant.id }, payload: { email, password } }));
  return { id: member.id, token: session.token };
}
