import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, createCustomer, customersApp, MISSING, registrationMode, type CustomerJson } from './helpers.js';

// Strictly increasing time, so that creation order is never a tie.
let last = 0;
const clock = { now: () => new Date((last = Math.max(Date.now(), last + 1))) };

let t: TestApp;
let shop: TestTenant;
let api: ReturnType<typeof caller>;
beforeAll(async () => {
  t = await customersApp({ clock });
  shop = await t.createTenant();
  api = caller(t, shop);
});
afterAll(async () => t?.close());

const BASE = '/api/v1/customers';
const outbox = (id: string) =>
  t.app.orm.em.getConnection().execute<{ type: string; data: Record<string, unknown> }[]>(
    `select type, data from core_outbox where data->>'id' = ? order by occurred_at`, [id]);

describe('POST /customers', () => {
  it('creates a customer: e-mail lower-cased, phone in E.164, tags without duplicates', async () => {
    const res = await api('POST', BASE, {
      email: '  Ana.Quispe@Example.COM ', first_name: 'Ana', last_name: 'Quispe', phone: '+51 (987) 654-321',
      accepts_marketing: true, tags: ['vip', 'cusco', 'vip'],
    });
    expect(res.statusCode).toBe(201);
    const c = res.json().data;
    expect(c).toEqual({
      id: expect.any(String), email: 'ana.quispe@example.com', first_name: 'Ana', last_name: 'Quispe', phone: '+51987654321',
      accepts_marketing: true, locale: null, tags: ['vip', 'cusco'], status: 'active', has_account: false, custom_fields: {},
      created_at: expect.any(String), updated_at: c.created_at,
    });
    expect(new Date(c.created_at).toISOString()).toBe(c.created_at);
  });

  it('needs only an e-mail; the rest has defaults', async () => {
    const c = await createCustomer(t, shop, { email: 'only@example.com' });
    expect(c).toMatchObject({ first_name: null, last_name: null, phone: null, accepts_marketing: false, tags: [], status: 'active', has_account: false });
  });

  it('refuses an e-mail the store already has, whatever its case, with 409 CUSTOMER_EMAIL_TAKEN', async () => {
    await createCustomer(t, shop, { email: 'dup@example.com' });
    for (const email of ['dup@example.com', 'DUP@Example.com', ' Dup@example.com']) {
      const res = await api('POST', BASE, { email });
      expect(res.statusCode, email).toBe(409);
      expect(res.json().error).toMatchObject({ code: 'CUSTOMER_EMAIL_TAKEN', details: [{ path: 'body.email' }] });
    }
  });

  it('keeps one of two simultaneous creates with the same e-mail and answers the other 409', async () => {
    const results = await Promise.all(['race@example.com', 'RACE@example.com', 'Race@Example.com'].map((email) => api('POST', BASE, { email })));
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409, 409]);
    for (const r of results.filter((r) => r.statusCode === 409)) expect(r.json().error.code).toBe('CUSTOMER_EMAIL_TAKEN');
  });

  it.each([
    [{}, 'body.email'],
    [{ email: 7 }, 'body.email'],
    [{ email: 'not-an-email' }, 'body.email'],
    [{ email: `${'a'.repeat(250)}@example.com` }, 'body.email'],
    [{ email: 'x@example.com', phone: '987654321' }, 'body.phone'],
    [{ email: 'x@example.com', phone: '+0123456789' }, 'body.phone'],
    [{ email: 'x@example.com', phone: '+1234567890123456' }, 'body.phone'],
    [{ email: 'x@example.com', phone: '+51 abc' }, 'body.phone'],
    [{ email: 'x@example.com', first_name: 5 }, 'body.first_name'],
    [{ email: 'x@example.com', last_name: 'x'.repeat(101) }, 'body.last_name'],
    [{ email: 'x@example.com', accepts_marketing: 'yes' }, 'body.accepts_marketing'],
    [{ email: 'x@example.com', tags: 'vip' }, 'body.tags'],
    [{ email: 'x@example.com', tags: [''] }, 'body.tags'],
    [{ email: 'x@example.com', tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }, 'body.tags'],
    [{ email: 'x@example.com', status: 'disabled' }, 'body'],
    [{ email: 'x@example.com', password: 'secret123' }, 'body'],
  ])('refuses %j (%s)', async (payload, path) => {
    const res = await api('POST', BASE, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
    expect(res.json().error.details.map((d: { path: string }) => d.path).join(' ')).toContain(path);
  });

  it('is for admin keys only', async () => {
    const store = caller(t, shop, shop.storefrontToken);
    for (const [method, url] of [['POST', BASE], ['GET', BASE], ['GET', `${BASE}/${MISSING}`], ['PATCH', `${BASE}/${MISSING}`]] as const) {
      const res = await store(method, url, method === 'POST' || method === 'PATCH' ? { email: 'x@example.com' } : undefined);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json().error.code).toBe('FORBIDDEN');
    }
    const anonymous = await t.request({ method: 'GET', url: BASE, headers: { 'x-tenant-id': shop.id } });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().error.code).toBe('UNAUTHENTICATED');
    const noTenant = await t.request({ method: 'GET', url: BASE, headers: { authorization: `Bearer ${shop.adminToken}` } });
    expect(noTenant.statusCode).toBe(400);
    expect(noTenant.json().error.code).toBe('TENANT_REQUIRED');
  });
});

describe('GET and PATCH /customers/:id', () => {
  it('reads a customer; 404 CUSTOMER_NOT_FOUND for an unknown id, 400 for a malformed one', async () => {
    const c = await createCustomer(t, shop, { email: 'read@example.com', first_name: 'Rosa' });
    const res = await api('GET', `${BASE}/${c.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual(c);
    const missing = await api('GET', `${BASE}/${MISSING}`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('CUSTOMER_NOT_FOUND');
    for (const method of ['GET', 'PATCH'] as const) {
      const bad = await api(method, `${BASE}/not-a-uuid`, method === 'PATCH' ? {} : undefined);
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('changes only the fields sent; null clears a name or the phone', async () => {
    const c = await createCustomer(t, shop, { email: 'patch@example.com', first_name: 'Luis', last_name: 'Mamani', phone: '+51911111111', tags: ['a'] });
    const url = `${BASE}/${c.id}`;
    const patched = await api('PATCH', url, { last_name: 'Mamani Huanca', accepts_marketing: true, tags: ['b', 'c'] });
    expect(patched.statusCode).toBe(200);
    const p = patched.json().data;
    expect(p).toMatchObject({ email: 'patch@example.com', first_name: 'Luis', last_name: 'Mamani Huanca', phone: '+51911111111', accepts_marketing: true, tags: ['b', 'c'] });
    expect(p.created_at).toBe(c.created_at);
    expect(p.updated_at > c.updated_at).toBe(true);
    const cleared = (await api('PATCH', url, { first_name: null, phone: null, tags: [] })).json().data;
    expect(cleared).toMatchObject({ first_name: null, last_name: 'Mamani Huanca', phone: null, tags: [] });
    expect((await api('PATCH', url, { email: 'Luis@Example.com' })).json().data.email).toBe('luis@example.com');
    expect((await api('GET', url)).json().data.email).toBe('luis@example.com');
  });

  it('refuses an e-mail of another customer (any case) and accepts its own', async () => {
    const a = await createCustomer(t, shop, { email: 'owner-a@example.com' });
    const b = await createCustomer(t, shop, { email: 'owner-b@example.com' });
    const taken = await api('PATCH', `${BASE}/${b.id}`, { email: 'OWNER-A@example.com' });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().error.code).toBe('CUSTOMER_EMAIL_TAKEN');
    expect((await api('PATCH', `${BASE}/${a.id}`, { email: 'Owner-A@example.com' })).statusCode).toBe(200);
  });

  it('disables and enables a customer', async () => {
    const c = await createCustomer(t, shop, { email: 'status@example.com' });
    const url = `${BASE}/${c.id}`;
    expect((await api('PATCH', url, { status: 'disabled' })).json().data.status).toBe('disabled');
    expect((await api('PATCH', url, { status: 'disabled' })).json().data.status).toBe('disabled');
    expect((await api('GET', `${BASE}?filter[status]=disabled`)).json().data.map((x: CustomerJson) => x.id)).toContain(c.id);
    expect((await api('PATCH', url, { status: 'active' })).json().data.status).toBe('active');
  });

  it.each([
    [{ status: 'blocked' }, 'body.status'],
    [{ email: 'nope' }, 'body.email'],
    [{ email: null }, 'body.email'],
    [{ phone: '12' }, 'body.phone'],
    [{ accepts_marketing: null }, 'body.accepts_marketing'],
    [{ id: MISSING }, 'body'],
    [{ password: 'something-long' }, 'body'],
    [{ has_account: true }, 'body'],
  ])('refuses the patch %j (%s)', async (payload, path) => {
    const c = await createCustomer(t, shop, { email: `bad-patch-${Math.random().toString(36).slice(2)}@example.com` });
    const res = await api('PATCH', `${BASE}/${c.id}`, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details.map((d: { path: string }) => d.path).join(' ')).toContain(path);
  });

  it('answers 404 to a patch of an unknown customer', async () => {
    const res = await api('PATCH', `${BASE}/${MISSING}`, { first_name: 'x' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('CUSTOMER_NOT_FOUND');
  });
});

describe('GET /customers', () => {
  let other: TestTenant;
  let as: ReturnType<typeof caller>;
  const people = [
    { email: 'carla@example.com', first_name: 'Carla', last_name: 'Rojas', phone: '+51 900 000 003' },
    { email: 'bruno@example.com', first_name: 'Bruno', last_name: 'Quispe', phone: '+51 900 000 002' },
    { email: 'alba@example.com', first_name: 'Alba', last_name: 'Quispe Rojas', phone: '+1 415 555 0100' },
    { email: 'zoe@shop.example', first_name: 'Zoe', last_name: null, phone: null },
    { email: 'nobody@example.com' },
  ];
  beforeAll(async () => {
    other = await t.createTenant();
    as = caller(t, other);
    for (const p of people) await createCustomer(t, other, p);
  });
  const emails = async (qs: string) => {
    const res = await as('GET', `${BASE}${qs}`);
    expect(res.statusCode, `${qs}: ${res.body}`).toBe(200);
    return res.json().data.map((c: CustomerJson) => c.email);
  };

  it('lists newest first by default, 25 a page, and pages on with the cursor', async () => {
    expect(await emails('')).toEqual(['nobody@example.com', 'zoe@shop.example', 'alba@example.com', 'bruno@example.com', 'carla@example.com']);
    const first = (await as('GET', `${BASE}?limit=2`)).json();
    expect(first.meta.pagination).toMatchObject({ has_next: true, limit: 2 });
    const second = (await as('GET', `${BASE}?limit=2&cursor=${encodeURIComponent(first.meta.pagination.cursor)}`)).json();
    const third = (await as('GET', `${BASE}?limit=2&cursor=${encodeURIComponent(second.meta.pagination.cursor)}`)).json();
    expect([...first.data, ...second.data, ...third.data].map((c: CustomerJson) => c.email)).toEqual(await emails(''));
    expect(third.meta.pagination).toEqual({ cursor: null, has_next: false, limit: 2 });
    expect((await as('GET', BASE)).json().meta.pagination).toEqual({ cursor: null, has_next: false, limit: 25 });
    expect((await as('GET', `${BASE}?limit=1000`)).json().meta.pagination.limit).toBe(100);
  });

  it('sorts by created_at, email and first_name, either way (no name sorts as empty)', async () => {
    expect(await emails('?sort=created_at')).toEqual(['carla@example.com', 'bruno@example.com', 'alba@example.com', 'zoe@shop.example', 'nobody@example.com']);
    expect(await emails('?sort=email')).toEqual(['alba@example.com', 'bruno@example.com', 'carla@example.com', 'nobody@example.com', 'zoe@shop.example']);
    expect(await emails('?sort=-email')).toEqual(['zoe@shop.example', 'nobody@example.com', 'carla@example.com', 'bruno@example.com', 'alba@example.com']);
    expect(await emails('?sort=first_name')).toEqual(['nobody@example.com', 'alba@example.com', 'bruno@example.com', 'carla@example.com', 'zoe@shop.example']);
    expect(await emails('?sort=-first_name')).toEqual(['zoe@shop.example', 'carla@example.com', 'bruno@example.com', 'alba@example.com', 'nobody@example.com']);
    // Keyset paging by first name across the customer without one.
    const a = (await as('GET', `${BASE}?sort=first_name&limit=1`)).json();
    const b = (await as('GET', `${BASE}?sort=first_name&limit=3&cursor=${encodeURIComponent(a.meta.pagination.cursor)}`)).json();
    expect([...a.data, ...b.data].map((c: CustomerJson) => c.email)).toEqual(['nobody@example.com', 'alba@example.com', 'bruno@example.com', 'carla@example.com']);
  });

  it('searches e-mail, names and phone with q; every word must match', async () => {
    expect(await emails('?q=QUISPE&sort=email')).toEqual(['alba@example.com', 'bruno@example.com']);
    expect(await emails('?q=shop.example')).toEqual(['zoe@shop.example']);
    expect(await emails('?q=alba%20rojas')).toEqual(['alba@example.com']);
    expect(await emails('?q=rojas&sort=email')).toEqual(['alba@example.com', 'carla@example.com']);
    expect(await emails('?q=900%20000%20003')).toEqual(['carla@example.com']);
    expect(await emails('?q=%2B1-415')).toEqual(['alba@example.com']);
    expect(await emails('?q=bruno%20rojas')).toEqual([]);
    expect(await emails('?q=100%25')).toEqual([]);
    expect(await emails('?q=_')).toEqual([]);
  });

  it('filters by status', async () => {
    const [zoe] = (await as('GET', `${BASE}?q=zoe`)).json().data;
    await as('PATCH', `${BASE}/${zoe.id}`, { status: 'disabled' });
    expect(await emails('?filter[status]=disabled')).toEqual(['zoe@shop.example']);
    expect(await emails('?filter[status]=active')).not.toContain('zoe@shop.example');
    expect(await emails('?filter[status]=active&q=zoe')).toEqual([]);
  });

  it.each(['limit=0', 'limit=-1', 'limit=abc', 'filter[email]=x', 'filter[status]=gone', 'sort=phone', 'sort=-last_name', 'page=2', `q=${'x'.repeat(201)}`, 'cursor=%%%', 'cursor=bm90LWpzb24'])(
    'refuses ?%s with 400',
    async (qs) => {
      const res = await as('GET', `${BASE}?${qs}`);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    },
  );

  it('refuses a cursor made for another sort', async () => {
    const first = (await as('GET', `${BASE}?limit=1&sort=email`)).json();
    const res = await as('GET', `${BASE}?limit=1&sort=first_name&cursor=${encodeURIComponent(first.meta.pagination.cursor)}`);
    expect(res.statusCode).toBe(400);
  });
});

describe('events', () => {
  it('customers.customer.created and .updated go through the outbox with the customer (never a password)', async () => {
    const c = await createCustomer(t, shop, { email: 'events@example.com', first_name: 'Eva' });
    await api('PATCH', `${BASE}/${c.id}`, { last_name: 'Condori' });
    await registrationMode(t, shop, 'claim'); // the registration takes the store's record at once
    await t.request({ method: 'POST', url: '/api/v1/auth/customer/register', headers: shop.headers(shop.storefrontToken), payload: { email: 'events@example.com', password: 'a secret phrase' } });
    const events = await outbox(c.id);
    expect(events.map((e) => e.type)).toEqual(['customers.customer.created', 'customers.customer.updated', 'customers.customer.updated']);
    expect(Object.keys(events[0].data).sort()).toEqual(
      ['accepts_marketing', 'created_at', 'email', 'first_name', 'has_account', 'id', 'last_name', 'locale', 'phone', 'status', 'tags', 'updated_at'],
    );
    expect(events[1].data).toMatchObject({ id: c.id, email: 'events@example.com', first_name: 'Eva', last_name: 'Condori', has_account: false });
    expect(events[2].data).toMatchObject({ has_account: true });
    expect(JSON.stringify(events)).not.toContain('a secret phrase');
    expect(JSON.stringify(events)).not.toContain('scrypt');
  });

  it('writes nothing when a create is refused', async () => {
    await createCustomer(t, shop, { email: 'once@example.com' });
    const [{ n }] = await t.app.orm.em.getConnection().execute<{ n: number }[]>(
      `select count(*)::int as n from core_outbox where type = 'customers.customer.created' and data->>'email' = 'once@example.com'`);
    await api('POST', BASE, { email: 'ONCE@example.com' });
    const [{ n: after }] = await t.app.orm.em.getConnection().execute<{ n: number }[]>(
      `select count(*)::int as n from core_outbox where type = 'customers.customer.created' and data->>'email' = 'once@example.com'`);
    expect(after).toBe(n);
  });
});

describe('SQL statements per request', () => {
  it('lists 25 customers in one round trip, searched or not, and reads one in 3 (BEGIN with the tenant context, select, COMMIT)', async () => {
    for (let i = 0; i < 25; i++) await createCustomer(t, shop, { email: `budget-${i}@example.com` });
    const list = await t.countQueries(() => api('GET', `${BASE}?limit=25`));
    expect(list.count).toBe(1);
    expect((await t.countQueries(() => api('GET', `${BASE}?limit=25&q=budget`))).count).toBe(1);
    const [c] = (await list.result).json().data;
    const one = await t.countQueries(() => api('GET', `${BASE}/${c.id}`));
    expect(one.count).toBeLessThanOrEqual(3);
  });
});

describe('OpenAPI', () => {
  it('documents the routes and schemas', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
    for (const path of ['/api/v1/customers', '/api/v1/customers/{id}', '/api/v1/customers/me', '/api/v1/customers/{id}/addresses', '/api/v1/customers/{id}/addresses/{address_id}', '/api/v1/auth/customer/register', '/api/v1/auth/customer/activate', '/api/v1/auth/customer/login', '/api/v1/customers/settings']) {
      expect(doc.paths[path], path).toBeDefined();
    }
    for (const id of ['Customer', 'CustomerCreate', 'CustomerPatch', 'CustomerAddress', 'CustomerAddressCreate', 'CustomerSession', 'CustomerRegistrationPending', 'CustomerActivate', 'CustomerSettings', 'CustomerSettingsReplace']) {
      expect(doc.components.schemas[id], id).toBeDefined();
    }
  });
});
