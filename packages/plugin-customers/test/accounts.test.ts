import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { caller, createCustomer, customersApp, MISSING, register, registrationMode } from './helpers.js';
import { Passwords } from '../src/services/passwords.js';

// A clock the tests can move forward (token expiry).
let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };
const DAY = 24 * 60 * 60 * 1000;

let t: TestApp;
let shop: TestTenant;
let api: ReturnType<typeof caller>;
beforeAll(async () => {
  t = await customersApp({ clock });
  shop = await t.createTenant();
  api = caller(t, shop);
  // This store signs shoppers in at once; the default (e-mailed links) is in registration.test.ts.
  await registrationMode(t, shop, 'instant');
});
afterAll(async () => t?.close());
afterEach(() => {
  offsetMs = 0;
  vi.restoreAllMocks();
});

const REGISTER = '/api/v1/auth/customer/register';
const LOGIN = '/api/v1/auth/customer/login';
const ME = '/api/v1/customers/me';
const store = () => caller(t, shop, shop.storefrontToken);
const sql = <R>(query: string, params: unknown[] = []) => t.app.orm.em.getConnection().execute<R[]>(query, params);
const login = (email: string, password: string, as = store()) => as('POST', LOGIN, { email, password });
const unique = (name: string) => `${name}-${Math.random().toString(36).slice(2)}@example.com`;

describe('POST /auth/customer/register', () => {
  it('creates a customer with an account and a 30-day customer token', async () => {
    const before = Date.now();
    const res = await store()('POST', REGISTER, { email: 'Nina.Flores@Example.com', password: 'pachamama-2024', first_name: 'Nina', last_name: 'Flores' });
    expect(res.statusCode).toBe(201);
    const { token, expires_at, customer } = res.json().data;
    expect(token).toMatch(/^qhc_[0-9a-f]{32}_[A-Za-z0-9_-]{43}$/);
    expect(token.slice(4, 36)).toBe(shop.id.replaceAll('-', ''));
    const expires = new Date(expires_at).getTime();
    expect(expires).toBeGreaterThanOrEqual(before + 30 * DAY - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 30 * DAY + 1000);
    expect(customer).toMatchObject({ email: 'nina.flores@example.com', first_name: 'Nina', last_name: 'Flores', status: 'active', has_account: true });
    expect((await api('GET', `/api/v1/customers/${customer.id}`)).json().data).toEqual(customer);
  });

  it('stores the password only as a salted scrypt hash', async () => {
    const password = 'the same password';
    const a = await register(t, shop, { email: unique('hash-a'), password });
    const b = await register(t, shop, { email: unique('hash-b'), password });
    const rows = await sql<{ customer_id: string; password_hash: string }>(
      `select customer_id, password_hash from customers_credential where tenant_id = ? and customer_id in (?, ?)`, [shop.id, a.customer.id, b.customer.id]);
    expect(rows).toHaveLength(2);
    // The test app hashes at QHATU_PASSWORD_COST=10; a store runs at 15 (core/test/passwords.test.ts).
    for (const row of rows) {
      expect(row.password_hash).toMatch(/^scrypt\$ln=10,r=8,p=3\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
      expect(row.password_hash).not.toContain(password);
      expect(row.password_hash).not.toContain(Buffer.from(password).toString('base64url'));
    }
    expect(rows[0].password_hash).not.toBe(rows[1].password_hash); // a salt of its own
    const [record] = await sql<{ row: string }>(`select row_to_json(c)::text as row from customers_customer c where tenant_id = ? and id = ?`, [shop.id, a.customer.id]);
    expect(record.row).not.toContain(password);
    expect(record.row).not.toContain('scrypt');
    const [token] = await sql<{ n: number }>(`select count(*)::int as n from core_access_token where tenant_id = ? and kind = 'customer' and subject_id = ? and token_hash = encode(sha256(?::bytea), 'hex')`, [shop.id, a.customer.id, a.token]);
    expect(token.n).toBe(1); // the token too is stored only as its digest
    expect((await login(a.customer.email, password)).statusCode).toBe(200);
  });

  it('refuses an e-mail that already has an account, whatever its case (409 CUSTOMER_EMAIL_TAKEN)', async () => {
    await register(t, shop, { email: 'taken@example.com', password: 'first password' });
    for (const email of ['taken@example.com', 'TAKEN@example.com']) {
      const res = await store()('POST', REGISTER, { email, password: 'another password' });
      expect(res.statusCode).toBe(409);
      expect(res.json().error.code).toBe('CUSTOMER_EMAIL_TAKEN');
    }
    expect((await login('taken@example.com', 'another password')).statusCode).toBe(401);
    expect((await login('taken@example.com', 'first password')).statusCode).toBe(200);
  });

  it('with registration claim, lets a shopper claim the customer the store created without a password; the store’s names are kept', async () => {
    await registrationMode(t, shop, 'claim');
    try {
      const created = await createCustomer(t, shop, { email: 'claim@example.com', first_name: 'Rosa', phone: '+51999888777', tags: ['pos'] });
      const res = await store()('POST', REGISTER, { email: 'Claim@Example.com', password: 'my own password', first_name: 'Rosita', last_name: 'Huamán' });
      expect(res.statusCode).toBe(201);
      expect(res.json().data.customer).toMatchObject({ id: created.id, first_name: 'Rosa', last_name: 'Huamán', phone: '+51999888777', tags: ['pos'], has_account: true });
      expect((await api('GET', '/api/v1/customers?q=claim')).json().data).toHaveLength(1);
      const again = await store()('POST', REGISTER, { email: 'claim@example.com', password: 'a takeover attempt' });
      expect(again.statusCode).toBe(409);
      expect((await login('claim@example.com', 'my own password')).statusCode).toBe(200);
    } finally {
      await registrationMode(t, shop, 'instant');
    }
  });

  it('with registration instant, does not give a store-created customer to the caller (202, the link goes by e-mail)', async () => {
    const created = await createCustomer(t, shop, { email: unique('instant-known') });
    const res = await store()('POST', REGISTER, { email: created.email, password: 'a takeover attempt' });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ data: { status: 'verification_sent', email: created.email } });
    expect((await api('GET', `/api/v1/customers/${created.id}`)).json().data.has_account).toBe(false);
    expect((await login(created.email, 'a takeover attempt')).statusCode).toBe(401);
  });

  it('does not let anyone claim a disabled customer', async () => {
    const created = await createCustomer(t, shop, { email: unique('disabled-claim') });
    await api('PATCH', `/api/v1/customers/${created.id}`, { status: 'disabled' });
    const res = await store()('POST', REGISTER, { email: created.email, password: 'long enough' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('CUSTOMER_EMAIL_TAKEN');
  });

  it('gives one account to one of two simultaneous registrations', async () => {
    const email = unique('twice');
    const results = await Promise.all([1, 2, 3].map((i) => store()('POST', REGISTER, { email, password: `password number ${i}` })));
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409, 409]);
    const claiming = await t.createTenant();
    await registrationMode(t, claiming, 'claim');
    const created = await createCustomer(t, claiming, { email: unique('claim-race') });
    const claims = await Promise.all([1, 2].map((i) => caller(t, claiming, claiming.storefrontToken)('POST', REGISTER, { email: created.email, password: `password number ${i}` })));
    expect(claims.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    const [{ n }] = await sql<{ n: number }>(`select count(*)::int as n from customers_credential where tenant_id = ? and customer_id = ?`, [claiming.id, created.id]);
    expect(n).toBe(1);
  });

  it.each([
    [{ email: 'x@example.com' }, 'body.password'], // required when the store signs shoppers in at once
    [{ password: 'long enough' }, 'body.email'],
    [{ email: 'nope', password: 'long enough' }, 'body.email'],
    [{ email: 'x@example.com', password: 'seven77' }, 'body.password'],
    [{ email: 'x@example.com', password: 'x'.repeat(201) }, 'body.password'],
    [{ email: 'x@example.com', password: 12345678 }, 'body.password'],
    [{ email: 'x@example.com', password: 'long enough', first_name: 7 }, 'body.first_name'],
    [{ email: 'x@example.com', password: 'long enough', phone: '+51999888777' }, 'body'],
    [{ email: 'x@example.com', password: 'long enough', status: 'active' }, 'body'],
  ])('refuses %j (%s)', async (payload, path) => {
    const res = await store()('POST', REGISTER, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
    expect(res.json().error.details.map((d: { path: string }) => d.path).join(' ')).toContain(path);
  });

  it('accepts passwords of exactly 8 and 200 characters', async () => {
    expect((await store()('POST', REGISTER, { email: unique('eight'), password: '12345678' })).statusCode).toBe(201);
    expect((await store()('POST', REGISTER, { email: unique('long'), password: 'p'.repeat(200) })).statusCode).toBe(201);
  });

  it('takes a storefront or admin key, not a customer token nor nothing', async () => {
    expect((await api('POST', REGISTER, { email: unique('by-admin'), password: 'long enough' })).statusCode).toBe(201);
    const session = await register(t, shop, { email: unique('by-customer'), password: 'long enough' });
    const res = await caller(t, shop, session.token)('POST', REGISTER, { email: unique('other'), password: 'long enough' });
    expect(res.statusCode).toBe(403);
    const anonymous = await t.request({ method: 'POST', url: REGISTER, headers: { 'x-tenant-id': shop.id }, payload: { email: unique('anon'), password: 'long enough' } });
    expect(anonymous.statusCode).toBe(401);
  });
});

describe('POST /auth/customer/login', () => {
  const email = 'login@example.com';
  const password = 'Correct Horse Battery';
  let customerId: string;
  beforeAll(async () => {
    customerId = (await register(t, shop, { email, password })).customer.id;
  });

  it('gives a new customer token for the right e-mail (any case) and password', async () => {
    const res = await login('LOGIN@example.com', password);
    expect(res.statusCode).toBe(200);
    const { token, expires_at, customer } = res.json().data;
    expect(token).toMatch(/^qhc_/);
    expect(new Date(expires_at).getTime()).toBeGreaterThan(Date.now() + 29 * DAY);
    expect(customer).toMatchObject({ id: customerId, email, has_account: true });
    expect((await login(email, password, api)).statusCode).toBe(200); // an admin key may sign a customer in too
    const me = await caller(t, shop, token)('GET', ME);
    expect(me.json().data.id).toBe(customerId);
  });

  it('answers every wrong pair with the same 401, and never says which half was wrong', async () => {
    const storeCreated = await createCustomer(t, shop, { email: unique('no-password') });
    const answers = await Promise.all([
      login(email, 'wrong password'),
      login(email, password.toLowerCase()),
      login('nobody-here@example.com', password),
      login(storeCreated.email, password),
    ]);
    for (const res of answers) {
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: { code: 'UNAUTHENTICATED', message: 'The e-mail or password is not correct', details: [] } });
    }
  });

  it('does the scrypt work for unknown e-mails and customers without a password, as for known ones', async () => {
    const passwords = t.app.container.resolve(Passwords);
    const derive = vi.spyOn(passwords as unknown as { derive: (...args: unknown[]) => Promise<Buffer> }, 'derive');
    const verify = vi.spyOn(passwords, 'verify');
    const storeCreated = await createCustomer(t, shop, { email: unique('no-password') });
    for (const [who, pwd] of [[email, 'wrong password'], ['unknown@example.com', 'whatever it is'], [storeCreated.email, 'whatever it is']]) {
      derive.mockClear();
      verify.mockClear();
      expect((await login(who, pwd)).statusCode).toBe(401);
      expect(verify).toHaveBeenCalledTimes(1);
      expect(await verify.mock.results[0].value).toBe(false);
      expect(derive).toHaveBeenCalledTimes(1);
      expect(derive.mock.calls[0][0]).toBe(pwd);
      expect(derive.mock.calls[0][2]).toEqual({ ln: 10, r: 8, p: 3 });
    }
    // The decoy is never a way in, whatever is sent.
    expect(await passwords.verify('', null)).toBe(false);
  });

  it('refuses a disabled customer with 403 CUSTOMER_DISABLED, only once the password is right', async () => {
    const e = unique('disabled');
    const session = await register(t, shop, { email: e, password });
    await api('PATCH', `/api/v1/customers/${session.customer.id}`, { status: 'disabled' });
    const res = await login(e, password);
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('CUSTOMER_DISABLED');
    expect((await login(e, 'not the password')).statusCode).toBe(401);
    // Disabling revoked the token it had.
    const old = await caller(t, shop, session.token)('GET', ME);
    expect(old.statusCode).toBe(401);
    expect(old.json().error.code).toBe('UNAUTHENTICATED');

    await api('PATCH', `/api/v1/customers/${session.customer.id}`, { status: 'active' });
    const back = await login(e, password);
    expect(back.statusCode).toBe(200);
    expect((await caller(t, shop, back.json().data.token)('GET', ME)).statusCode).toBe(200);
    expect((await caller(t, shop, session.token)('GET', ME)).statusCode).toBe(401); // revoked stays revoked
  });

  it.each([
    [{ email }, 'body.password'],
    [{ password }, 'body.email'],
    [{ email, password: '' }, 'body.password'],
    [{ email, password: 'x'.repeat(201) }, 'body.password'],
    [{ email: 'not-an-email', password }, 'body.email'],
    [{ email, password, remember: true }, 'body'],
  ])('refuses %j (%s) with 400', async (payload, path) => {
    const res = await store()('POST', LOGIN, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details.map((d: { path: string }) => d.path).join(' ')).toContain(path);
  });

  it('takes a storefront or admin key only', async () => {
    const session = await login(email, password);
    expect((await login(email, password, caller(t, shop, session.json().data.token))).statusCode).toBe(403);
    const anonymous = await t.request({ method: 'POST', url: LOGIN, headers: { 'x-tenant-id': shop.id }, payload: { email, password } });
    expect(anonymous.statusCode).toBe(401);
  });
});

describe('a customer token', () => {
  it('works on storefront routes and is refused on admin routes (403)', async () => {
    const session = await register(t, shop, { email: unique('token'), password: 'long enough' });
    const mine = caller(t, shop, session.token);
    expect((await mine('GET', ME)).statusCode).toBe(200);
    expect((await mine('GET', `/api/v1/customers/${session.customer.id}/addresses`)).statusCode).toBe(200);
    for (const [method, url, body] of [
      ['GET', '/api/v1/customers'],
      ['POST', '/api/v1/customers', { email: unique('x') }],
      ['GET', `/api/v1/customers/${session.customer.id}`],
      ['PATCH', `/api/v1/customers/${session.customer.id}`, { status: 'active' }],
    ] as const) {
      const res = await mine(method, url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json().error.code).toBe('FORBIDDEN');
    }
  });

  it('expires after 30 days', async () => {
    const session = await register(t, shop, { email: unique('expiry'), password: 'long enough' });
    const mine = caller(t, shop, session.token);
    offsetMs = 29 * DAY;
    expect((await mine('GET', ME)).statusCode).toBe(200);
    offsetMs = 30 * DAY + 60_000;
    const res = await mine('GET', ME);
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toMatchObject({ code: 'UNAUTHENTICATED', message: 'The bearer token has expired' });
  });

  it('is revoked by logout', async () => {
    const session = await register(t, shop, { email: unique('logout'), password: 'long enough' });
    const other = (await login(session.customer.email, 'long enough')).json().data.token;
    const mine = caller(t, shop, session.token);
    const res = await mine('POST', '/api/v1/auth/customer/logout');
    expect(res.statusCode).toBe(204);
    expect((await mine('GET', ME)).statusCode).toBe(401);
    expect((await caller(t, shop, other)('GET', ME)).statusCode).toBe(200); // only the token that logged out
    expect((await store()('POST', '/api/v1/auth/customer/logout')).statusCode).toBe(403);
  });

  it('cannot be used with another tenant’s X-Tenant-ID', async () => {
    const otherShop = await t.createTenant();
    const session = await register(t, shop, { email: unique('cross'), password: 'long enough' });
    const res = await t.request({ method: 'GET', url: ME, headers: { authorization: `Bearer ${session.token}`, 'x-tenant-id': otherShop.id } });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('FORBIDDEN');
  });
});

describe('GET and PATCH /customers/me', () => {
  it('reads and changes the signed-in customer’s own profile', async () => {
    const session = await register(t, shop, { email: unique('me'), password: 'long enough', first_name: 'Inti' });
    const mine = caller(t, shop, session.token);
    const me = await mine('GET', ME);
    expect(me.statusCode).toBe(200);
    expect(me.json().data).toEqual(session.customer);
    const patched = await mine('PATCH', ME, { last_name: 'Mayta', phone: '+51 984 123 456', accepts_marketing: true });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().data).toMatchObject({ first_name: 'Inti', last_name: 'Mayta', phone: '+51984123456', accepts_marketing: true });
    expect((await mine('PATCH', ME, { first_name: null })).json().data.first_name).toBeNull();
    expect((await api('GET', `/api/v1/customers/${session.customer.id}`)).json().data).toMatchObject({ first_name: null, last_name: 'Mayta' });
    const events = await sql<{ type: string }>(`select type from core_outbox where data->>'id' = ? order by occurred_at`, [session.customer.id]);
    expect(events.map((e) => e.type)).toEqual(['customers.customer.created', 'customers.customer.updated', 'customers.customer.updated']);
  });

  it.each([
    [{ email: 'new@example.com' }],
    [{ status: 'active' }],
    [{ tags: ['vip'] }],
    [{ phone: 'call me' }],
    [{ first_name: 'x'.repeat(101) }],
    [{ accepts_marketing: 'true' }],
  ])('refuses %j with 400 (the store owns e-mail, status and tags)', async (payload) => {
    const session = await register(t, shop, { email: unique('me-bad'), password: 'long enough' });
    const res = await caller(t, shop, session.token)('PATCH', ME, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
  });

  it('is for customer tokens only', async () => {
    for (const token of [shop.adminToken, shop.storefrontToken]) {
      expect((await caller(t, shop, token)('GET', ME)).statusCode).toBe(403);
      expect((await caller(t, shop, token)('PATCH', ME, { first_name: 'x' })).statusCode).toBe(403);
    }
    expect((await t.request({ method: 'GET', url: ME, headers: { 'x-tenant-id': shop.id } })).statusCode).toBe(401);
    const bogus = `qhc_${shop.id.replaceAll('-', '')}_${'A'.repeat(43)}`;
    expect((await caller(t, shop, bogus)('GET', ME)).statusCode).toBe(401);
  });

  it('refuses a customer disabled while their token is still cached elsewhere (403 CUSTOMER_DISABLED)', async () => {
    const session = await register(t, shop, { email: unique('me-stale'), password: 'long enough' });
    await sql(`update customers_customer set status = 'disabled' where tenant_id = ? and id = ?`, [shop.id, session.customer.id]);
    for (const [method, body] of [['GET', undefined], ['PATCH', { first_name: 'x' }]] as const) {
      const res = await caller(t, shop, session.token)(method, ME, body);
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('CUSTOMER_DISABLED');
    }
  });
});

describe('GraphQL updateProfile', () => {
  const MUTATION = 'mutation($input: UpdateProfileInput!) { updateProfile(input: $input) { id firstName lastName email } }';
  const gql = (token: string | undefined, input: unknown, tenantId = shop.id) =>
    t.request({
      method: 'POST',
      url: '/graphql',
      headers: { 'x-tenant-id': tenantId, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      payload: { query: MUTATION, variables: { input } },
    }).then((r) => r.json());

  it('changes the signed-in customer’s names and phone', async () => {
    const session = await register(t, shop, { email: unique('gql'), password: 'long enough', first_name: 'Killa' });
    const res = await gql(session.token, { lastName: 'Choque', phone: '+51 987 000 111' });
    expect(res.errors).toBeUndefined();
    expect(res.data.updateProfile).toEqual({ id: session.customer.id, firstName: 'Killa', lastName: 'Choque', email: session.customer.email });
    expect((await caller(t, shop, session.token)('GET', ME)).json().data).toMatchObject({ last_name: 'Choque', phone: '+51987000111' });
    const cleared = await gql(session.token, { firstName: null });
    expect(cleared.data.updateProfile).toMatchObject({ firstName: null, lastName: 'Choque' });
  });

  it('answers VALIDATION_ERROR for bad input', async () => {
    const session = await register(t, shop, { email: unique('gql-bad'), password: 'long enough' });
    for (const input of [{ phone: '12345' }, { firstName: 'x'.repeat(101) }, { email: 'x@example.com' }, { firstName: 5 }]) {
      const res = await gql(session.token, input);
      expect(res.errors?.[0]?.extensions?.code, JSON.stringify(input)).toBe('VALIDATION_ERROR');
    }
    expect((await caller(t, shop, session.token)('GET', ME)).json().data.phone).toBeNull();
  });

  it('is UNAUTHENTICATED without a token and FORBIDDEN for other token kinds or another tenant', async () => {
    expect((await gql(undefined, { firstName: 'x' })).errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect((await gql(`qhc_${shop.id.replaceAll('-', '')}_${'B'.repeat(43)}`, { firstName: 'x' })).errors[0].extensions.code).toBe('UNAUTHENTICATED');
    for (const token of [shop.adminToken, shop.storefrontToken]) {
      const res = await gql(token, { firstName: 'x' });
      expect(res.errors[0].extensions.code).toBe('FORBIDDEN');
      expect(res.data).toBeNull();
    }
    const otherShop = await t.createTenant();
    const session = await register(t, shop, { email: unique('gql-cross'), password: 'long enough' });
    expect((await gql(session.token, { firstName: 'x' }, otherShop.id)).errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('answers CUSTOMER_DISABLED for a customer disabled while the token is still cached elsewhere', async () => {
    const session = await register(t, shop, { email: unique('gql-disabled'), password: 'long enough' });
    await sql(`update customers_customer set status = 'disabled' where tenant_id = ? and id = ?`, [shop.id, session.customer.id]);
    expect((await gql(session.token, { firstName: 'x' })).errors[0].extensions.code).toBe('CUSTOMER_DISABLED');
  });
});

it('MISSING is not a customer', async () => {
  expect((await api('GET', `/api/v1/customers/${MISSING}`)).statusCode).toBe(404);
});

describe('credential rate limit', () => {
  it('answers 429 RATE_LIMITED after ten sign-ins for one e-mail in a minute, other e-mails unaffected', async () => {
    const { createTestApp } = await import('@qhatu/core/testing');
    const customers = (await import('../src/index.js')).default;
    const own = await createTestApp({ plugins: [customers] });
    try {
      const shop = await own.createTenant();
      const login = (email: string) =>
        own.request({ method: 'POST', url: '/api/v1/auth/customer/login', headers: shop.headers(shop.storefrontToken), payload: { email, password: 'wrong-password' } });
      const statuses = [];
      for (let i = 0; i < 11; i++) statuses.push((await login('guess@example.com')).statusCode);
      expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
      const limited = await login('guess@example.com');
      expect(limited.statusCode).toBe(429);
      expect(limited.json().error.code).toBe('RATE_LIMITED');
      expect((await login('other@example.com')).statusCode).toBe(401);
    } finally {
      await own.close();
    }
  });
});
