import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestTenant } from '../src/testing/index.js';

let t: TestApp;
let a: TestTenant;
let b: TestTenant;
const PASSWORD = 'correct horse battery';

async function call(method: string, url: string, headers: Record<string, string>, payload?: unknown) {
  return t.request({ method: method as never, url, headers, ...(payload === undefined ? {} : { payload: payload as never }) });
}

async function roleNamed(tenant: TestTenant, name: string): Promise<string> {
  const list = await call('GET', '/api/v1/roles?limit=100', tenant.headers());
  return list.json().data.find((r: { name: string }) => r.name === name).id;
}

async function newRole(tenant: TestTenant, name: string, permissions: string[]): Promise<string> {
  const res = await call('POST', '/api/v1/roles', tenant.headers(), { name, permissions });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id;
}

/** A member of `tenant` with `roleId`, signed in: the headers of their calls. */
async function member(tenant: TestTenant, email: string, roleId: string): Promise<Record<string, string>> {
  const created = await call('POST', '/api/v1/staff', tenant.headers(), { email, first_name: 'Ana', last_name: 'Quispe', role_id: roleId, password: PASSWORD });
  expect(created.statusCode, created.body).toBe(201);
  const session = await call('POST', '/api/v1/auth/staff/login', { 'x-tenant-id': tenant.id }, { email, password: PASSWORD });
  expect(session.statusCode, session.body).toBe(200);
  return tenant.headers(session.json().data.token);
}

let owner: Record<string, string>;
let keeper: Record<string, string>;
let reader: Record<string, string>;
let clerk: Record<string, string>;
let keeperRole: string;

beforeAll(async () => {
  t = await createTestApp({ plugins: [] });
  a = await t.createTenant({ name: 'Tienda Inti', currency: 'PEN' });
  b = await t.createTenant({ name: 'Tienda Killa', currency: 'PEN' });
  owner = await member(a, 'rosa@inti.pe', await roleNamed(a, 'owner'));
  keeperRole = await newRole(a, 'Store keeper', ['store.read', 'store.manage', 'staff.read']);
  keeper = await member(a, 'juan@inti.pe', keeperRole);
  reader = await member(a, 'ana@inti.pe', await newRole(a, 'Store reader', ['store.read']));
  clerk = await member(a, 'luz@inti.pe', await newRole(a, 'Clerk', ['staff.read']));
}, 60_000);

afterAll(async () => {
  await t?.close();
});

describe('GET|PATCH /api/v1/store', () => {
  it('reads the caller’s store and renames it; the currency stays', async () => {
    const read = await call('GET', '/api/v1/store', reader);
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json().data).toMatchObject({ id: a.id, name: 'Tienda Inti', currency: 'PEN', status: 'active' });

    const renamed = await call('PATCH', '/api/v1/store', keeper, { name: '  Tienda Inti Cusco ' });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json().data).toMatchObject({ id: a.id, name: 'Tienda Inti Cusco', currency: 'PEN' });
    expect((await call('GET', `/api/v1/tenants/${a.id}`, { authorization: `Bearer ${t.platformToken}` })).json().data.name).toBe('Tienda Inti Cusco');
    // The other store is untouched.
    expect((await call('GET', '/api/v1/store', b.headers())).json().data).toMatchObject({ id: b.id, name: 'Tienda Killa' });
  });

  it('refuses bad input with the error body, and a member without the permission with 403', async () => {
    for (const body of [{}, { name: '' }, { name: '   ' }, { name: 'x'.repeat(201) }, { name: 'Otra', currency: 'USD' }, { name: 'Otra', slug: 'otra' }]) {
      const res = await call('PATCH', '/api/v1/store', keeper, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'VALIDATION_ERROR' });
      expect(res.json().error.details.length).toBeGreaterThan(0);
    }
    const denied = await call('PATCH', '/api/v1/store', reader, { name: 'Otra' });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error).toMatchObject({ code: 'FORBIDDEN', details: [{ permission: 'store.manage' }] });
    expect((await call('GET', '/api/v1/store', clerk)).statusCode).toBe(403);
    expect((await call('GET', '/api/v1/store', a.headers(a.storefrontToken))).statusCode).toBe(403);
    expect((await call('GET', '/api/v1/store', { 'x-tenant-id': a.id })).statusCode).toBe(401);
    expect((await call('GET', '/api/v1/store', reader)).json().data.name).toBe('Tienda Inti Cusco');
  });
});

describe('GET|POST /api/v1/api-keys, DELETE /api/v1/api-keys/:id', () => {
  it('issues a key whose token is shown once and works, lists keys without tokens, and revokes one at once', async () => {
    const issued = await call('POST', '/api/v1/api-keys', owner, { name: 'Storefront web', scope: 'storefront' });
    expect(issued.statusCode, issued.body).toBe(201);
    const key = issued.json().data;
    expect(key).toMatchObject({ name: 'Storefront web', scope: 'storefront', role_id: null, expires_at: null });
    expect(key.token).toMatch(/^qh/);

    // The new key works for the store, before and after being listed.
    expect((await call('GET', '/api/v1/locales', a.headers(key.token))).statusCode).toBe(200);
    const listed = await call('GET', '/api/v1/api-keys', reader);
    expect(listed.statusCode, listed.body).toBe(200);
    const row = listed.json().data.find((k: { id: string }) => k.id === key.id);
    expect(row).toMatchObject({ name: 'Storefront web', scope: 'storefront', revoked_at: null });
    expect(key.token.startsWith(row.token_prefix)).toBe(true);
    expect(listed.body).not.toContain(key.token);
    expect(listed.json().meta.pagination).toMatchObject({ has_next: false });

    const revoked = await call('DELETE', `/api/v1/api-keys/${key.id}`, keeper);
    expect(revoked.statusCode, revoked.body).toBe(204);
    // Refused at once: the token cache was dropped.
    const refused = await call('GET', '/api/v1/locales', a.headers(key.token));
    expect(refused.statusCode).toBe(401);
    expect(refused.json().error.code).toBe('UNAUTHENTICATED');
    const after = (await call('GET', '/api/v1/api-keys', reader)).json().data.find((k: { id: string }) => k.id === key.id);
    expect(after.revoked_at).not.toBeNull();
    // Revoking it again is harmless.
    expect((await call('DELETE', `/api/v1/api-keys/${key.id}`, keeper)).statusCode).toBe(204);
  });

  it('never shows or revokes another store’s keys', async () => {
    const theirs = (await call('POST', '/api/v1/api-keys', b.headers(), { name: 'Killa POS', scope: 'admin' })).json().data;
    const ours = (await call('GET', '/api/v1/api-keys?limit=100', owner)).json().data as Array<{ id: string; name: string }>;
    expect(ours.map((k) => k.id)).not.toContain(theirs.id);
    expect(ours.map((k) => k.name)).not.toContain('Killa POS');
    const res = await call('DELETE', `/api/v1/api-keys/${theirs.id}`, owner);
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('API_KEY_NOT_FOUND');
    // Still alive.
    expect((await call('GET', '/api/v1/store', b.headers(theirs.token))).json().data.id).toBe(b.id);
    // A staff token names its own store only.
    expect((await call('GET', '/api/v1/api-keys', { ...owner, 'x-tenant-id': b.id })).statusCode).toBe(403);
  });

  it('keeps a member from minting a key that does more than the member may', async () => {
    const unbound = await call('POST', '/api/v1/api-keys', keeper, { name: 'ERP', scope: 'admin' });
    expect(unbound.statusCode).toBe(403);
    expect(unbound.json().error).toMatchObject({ code: 'FORBIDDEN', details: [{ path: 'body.role_id' }] });
    const wider = await newRole(a, 'Catalogue', ['staff.read', 'staff.manage']);
    const tooMuch = await call('POST', '/api/v1/api-keys', keeper, { name: 'ERP', scope: 'admin', role_id: wider });
    expect(tooMuch.statusCode).toBe(403);
    expect(tooMuch.json().error.details[0].permissions).toEqual(['staff.manage']);
    const builtIn = await call('POST', '/api/v1/api-keys', keeper, { name: 'ERP', scope: 'admin', role_id: await roleNamed(a, 'admin') });
    expect(builtIn.statusCode).toBe(403);
    const narrower = await newRole(a, 'Staff reader', ['staff.read']);
    const fits = await call('POST', '/api/v1/api-keys', keeper, { name: 'ERP', scope: 'admin', role_id: narrower });
    expect(fits.statusCode, fits.body).toBe(201);
    expect(fits.json().data.role_id).toBe(narrower);
    const erp = a.headers(fits.json().data.token);
    expect((await call('GET', '/api/v1/staff', erp)).statusCode).toBe(200);
    expect((await call('GET', '/api/v1/store', erp)).statusCode).toBe(403);
    // A storefront key grants no admin permission: any member who manages the store may issue one.
    expect((await call('POST', '/api/v1/api-keys', keeper, { name: 'Shop', scope: 'storefront' })).statusCode).toBe(201);
    // An owner holds every permission: an unbound admin key is theirs to give.
    expect((await call('POST', '/api/v1/api-keys', owner, { name: 'Owner ERP', scope: 'admin' })).statusCode).toBe(201);
  });

  it('refuses bad input with precise codes, and members without the permission', async () => {
    const cases: Array<[unknown, number, string]> = [
      [{ name: 'x', scope: 'root' }, 400, 'VALIDATION_ERROR'],
      [{ scope: 'admin' }, 400, 'VALIDATION_ERROR'],
      [{ name: 'x', scope: 'admin', expires_at: 'tomorrow' }, 400, 'VALIDATION_ERROR'],
      [{ name: 'x', scope: 'storefront', role_id: 'nope' }, 400, 'VALIDATION_ERROR'],
      [{ name: 'x', scope: 'storefront', token: 'mine' }, 400, 'VALIDATION_ERROR'],
      [{ name: 'x', scope: 'admin', expires_at: '2020-01-01T00:00:00Z' }, 422, 'API_KEY_EXPIRES_IN_PAST'],
      [{ name: 'x', scope: 'admin', role_id: '00000000-0000-4000-8000-000000000000' }, 422, 'ROLE_NOT_FOUND'],
      [{ name: 'x', scope: 'storefront', role_id: keeperRole }, 400, 'VALIDATION_ERROR'],
    ];
    for (const [body, status, code] of cases) {
      const res = await call('POST', '/api/v1/api-keys', owner, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(status);
      expect(res.json().error.code, JSON.stringify(body)).toBe(code);
    }
    // Another store's role is not one of this store's.
    const theirRole = await newRole(b, 'Theirs', ['staff.read']);
    const foreign = await call('POST', '/api/v1/api-keys', keeper, { name: 'x', scope: 'admin', role_id: theirRole });
    expect(foreign.statusCode).toBe(422);
    expect(foreign.json().error.code).toBe('ROLE_NOT_FOUND');
    expect((await call('POST', '/api/v1/api-keys', owner, { name: 'x', scope: 'admin', role_id: theirRole })).json().error.code).toBe('ROLE_NOT_FOUND');

    const bad = await call('DELETE', '/api/v1/api-keys/not-a-uuid', owner);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('VALIDATION_ERROR');
    expect((await call('DELETE', '/api/v1/api-keys/00000000-0000-4000-8000-000000000000', owner)).json().error.code).toBe('API_KEY_NOT_FOUND');
    expect((await call('GET', '/api/v1/api-keys?limit=abc', owner)).statusCode).toBe(400);

    const mine = (await call('GET', '/api/v1/api-keys', owner)).json().data[0];
    for (const [method, url, body] of [['GET', '/api/v1/api-keys'], ['POST', '/api/v1/api-keys', { name: 'x', scope: 'storefront' }], ['DELETE', `/api/v1/api-keys/${mine.id}`]] as const) {
      const res = await call(method, url, clerk, body);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json().error.code).toBe('FORBIDDEN');
    }
    for (const [method, url, body] of [['POST', '/api/v1/api-keys', { name: 'x', scope: 'storefront' }], ['DELETE', `/api/v1/api-keys/${mine.id}`]] as const) {
      expect((await call(method, url, reader, body)).statusCode, `${method} ${url}`).toBe(403);
    }
  });

  it('appears in /openapi.json with the permissions named', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(doc.paths['/api/v1/store']).sort()).toEqual(['get', 'patch']);
    expect(Object.keys(doc.paths['/api/v1/api-keys']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/api/v1/api-keys/{id}'])).toEqual(['delete']);
    const names = (await call('GET', '/api/v1/permissions?limit=100', owner)).json().data.map((p: { name: string }) => p.name);
    expect(names).toEqual(expect.arrayContaining(['store.read', 'store.manage']));
  });
});
