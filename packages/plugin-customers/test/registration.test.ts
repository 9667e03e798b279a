import { createHash } from 'node:crypto';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { caller, createCustomer, customersApp, mailServer, registrationMode } from './helpers.js';

/**
 * Registration in a store left at its defaults: every registration is answered alike and finished
 * from the e-mail, which a real SMTP server on 127.0.0.1 receives.
 */
let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };
const HOUR = 60 * 60 * 1000;

let mail: Awaited<ReturnType<typeof mailServer>>;
let t: TestApp;
let shop: TestTenant;
let api: ReturnType<typeof caller>;
beforeAll(async () => {
  mail = await mailServer();
  t = await customersApp({ clock, env: { SMTP_URL: mail.url, QHATU_PUBLIC_URL: 'https://api.shop.example' } });
});
// A store of its own per test: activations are rate limited per store and client address.
beforeEach(async () => {
  shop = await t.createTenant({ name: 'Tienda Inti' });
  api = caller(t, shop);
});
afterAll(async () => {
  await t?.close();
  await mail?.close();
});
afterEach(() => {
  offsetMs = 0;
});

const REGISTER = '/api/v1/auth/customer/register';
const ACTIVATE = '/api/v1/auth/customer/activate';
const LOGIN = '/api/v1/auth/customer/login';
const store = (tenant = shop) => caller(t, tenant, tenant.storefrontToken);
const sql = <R>(query: string, params: unknown[] = []) => t.app.orm.em.getConnection().execute<R[]>(query, params);
const unique = (name: string) => `${name}-${Math.random().toString(36).slice(2)}@example.com`;
const tokenOf = (link: string) => new URL(link).searchParams.get('token')!;

/** The one e-mail `address` received since `before` messages. */
function onlyMail(address: string, before = 0) {
  const got = mail.to(address).slice(before);
  expect(got, `mail to ${address}`).toHaveLength(1);
  return got[0];
}

describe('registering the e-mail of a customer the store created', () => {
  it('gives the caller nothing, e-mails a link, and the link attaches the password to the same customer', async () => {
    const created = await createCustomer(t, shop, { email: 'rosa@example.com', first_name: 'Rosa', phone: '+51 999 888 777', tags: ['pos'] });
    const address = await api('POST', `/api/v1/customers/${created.id}/addresses`, { address1: 'Av. Sol 123', city: 'Cusco', country_code: 'PE' });
    expect(address.statusCode).toBe(201);

    const res = await store()('POST', REGISTER, { email: 'Rosa@Example.com', password: 'someone else chose this', first_name: 'Rosita', last_name: 'Huamán' });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ data: { status: 'verification_sent', email: 'rosa@example.com' } });
    for (const secret of [created.id, '999888777', 'Rosa', 'Cusco', 'qhc_']) expect(res.body).not.toContain(secret);
    // Nothing changed: no password, and the one sent at registration opens nothing.
    expect((await api('GET', `/api/v1/customers/${created.id}`)).json().data).toEqual(created);
    expect((await store()('POST', LOGIN, { email: 'rosa@example.com', password: 'someone else chose this' })).statusCode).toBe(401);

    const received = onlyMail('rosa@example.com');
    expect(received.subject).toBe('Tienda Inti: finish setting up your account');
    expect(received.tenant).toBe(shop.id);
    expect(received.link).toMatch(/^https:\/\/api\.shop\.example\/account\/activate\?token=qhl_[A-Za-z0-9_-]{43}$/);
    expect(received.text).toMatch(/The link works until \d{4}-\d\d-\d\d \d\d:\d\d UTC\./);
    const token = tokenOf(received.link!);
    // Only the token's digest is stored.
    const links = await sql<{ token_hash: string; customer_id: string; row: string }>(
      `select token_hash, customer_id, row_to_json(l)::text as row from customers_account_link l where tenant_id = ? and email = ?`, [shop.id, 'rosa@example.com']);
    expect(links).toHaveLength(1);
    expect(links[0].token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(links[0].customer_id).toBe(created.id);
    expect(links[0].row).not.toContain(token.slice(4));

    const activated = await store()('POST', ACTIVATE, { token, password: 'my very own password' });
    expect(activated.statusCode).toBe(200);
    const session = activated.json().data;
    expect(session.token).toMatch(/^qhc_/);
    // The same record: its id, phone, tags and name; the shopper's last name fills the blank one.
    expect(session.customer).toMatchObject({ id: created.id, email: 'rosa@example.com', first_name: 'Rosa', last_name: 'Huamán', phone: '+51999888777', tags: ['pos'], has_account: true });
    const mine = caller(t, shop, session.token);
    expect((await mine('GET', '/api/v1/customers/me')).json().data.id).toBe(created.id);
    expect((await mine('GET', `/api/v1/customers/${created.id}/addresses`)).json().data.map((a: { id: string }) => a.id)).toEqual([address.json().data.id]);
    expect((await api('GET', '/api/v1/customers?q=rosa@example.com')).json().data).toHaveLength(1);

    expect((await store()('POST', LOGIN, { email: 'rosa@example.com', password: 'my very own password' })).statusCode).toBe(200);
    expect((await store()('POST', LOGIN, { email: 'rosa@example.com', password: 'someone else chose this' })).statusCode).toBe(401);
    const events = await sql<{ type: string; data: { has_account: boolean } }>(`select type, data from core_outbox where data->>'id' = ? order by occurred_at`, [created.id]);
    expect(events.map((e) => [e.type, e.data.has_account])).toEqual([['customers.customer.created', false], ['customers.customer.updated', true]]);

    // Single use.
    const again = await store()('POST', ACTIVATE, { token, password: 'a takeover attempt' });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toMatchObject({ code: 'ACCOUNT_LINK_USED' });
    expect((await store()('POST', LOGIN, { email: 'rosa@example.com', password: 'a takeover attempt' })).statusCode).toBe(401);
  });

  it('answers a new, a store-created, an account’s and a disabled e-mail alike; only the mailbox learns which', async () => {
    const known = await createCustomer(t, shop, { email: unique('known') });
    const disabled = await createCustomer(t, shop, { email: unique('disabled') });
    await api('PATCH', `/api/v1/customers/${disabled.id}`, { status: 'disabled' });
    const withAccount = unique('account');
    await store()('POST', REGISTER, { email: withAccount });
    await store()('POST', ACTIVATE, { token: tokenOf(onlyMail(withAccount).link!), password: 'the first password' });
    const fresh = unique('fresh');

    const answers = new Map<string, { statusCode: number; body: string; headers: string[] }>();
    for (const email of [fresh, known.email, withAccount, disabled.email]) {
      const res = await store()('POST', REGISTER, { email, password: 'a password here', first_name: 'Nina' });
      // The same answer but for the address itself: status, headers, body.
      answers.set(email, { statusCode: res.statusCode, body: res.body.replace(email, '<email>'), headers: Object.keys(res.headers).filter((h) => h !== 'date').sort() });
    }
    const [first, ...others] = [...answers.values()];
    expect(first.statusCode).toBe(202);
    for (const other of others) expect(other).toEqual(first);

    // The new and the store-created address get a link; the others a note without one.
    expect(onlyMail(fresh).link).toBeDefined();
    expect(onlyMail(known.email).link).toBeDefined();
    const note = mail.to(withAccount).at(-1)!;
    expect(note.subject).toBe('Tienda Inti: about your account');
    expect(note.text).toContain('already has one');
    expect(note.link).toBeUndefined();
    expect(onlyMail(disabled.email).link).toBeUndefined();
    // Nothing was created or changed by registering.
    expect((await api('GET', `/api/v1/customers?q=${encodeURIComponent(fresh)}`)).json().data).toEqual([]);
    expect((await api('GET', `/api/v1/customers/${known.id}`)).json().data.has_account).toBe(false);
    expect((await store()('POST', LOGIN, { email: withAccount, password: 'a password here' })).statusCode).toBe(401);
    expect((await store()('POST', LOGIN, { email: withAccount, password: 'the first password' })).statusCode).toBe(200);

    // A brand-new address finishes with its link: the customer is created then, with the names given.
    const activated = await store()('POST', ACTIVATE, { token: tokenOf(onlyMail(fresh).link!), password: 'chosen with the link' });
    expect(activated.statusCode).toBe(200);
    expect(activated.json().data.customer).toMatchObject({ email: fresh, first_name: 'Nina', last_name: null, has_account: true });
    expect((await store()('POST', LOGIN, { email: fresh, password: 'chosen with the link' })).statusCode).toBe(200);
    const [{ n }] = await sql<{ n: number }>(`select count(*)::int as n from core_outbox where type = 'customers.customer.created' and data->>'email' = ?`, [fresh]);
    expect(n).toBe(1);
  });

  it('does not need the password at registration, and refuses a bad one when given', async () => {
    const res = await store()('POST', REGISTER, { email: unique('no-password') });
    expect(res.statusCode).toBe(202);
    const short = await store()('POST', REGISTER, { email: unique('short'), password: 'seven77' });
    expect(short.statusCode).toBe(400);
    expect(short.json().error.details.map((d: { path: string }) => d.path)).toContain('body.password');
  });
});

describe('the account link', () => {
  it('expires after 24 hours (410 ACCOUNT_LINK_EXPIRED) and changes nothing then', async () => {
    const early = await createCustomer(t, shop, { email: unique('early') });
    const late = await createCustomer(t, shop, { email: unique('late') });
    for (const c of [early, late]) await store()('POST', REGISTER, { email: c.email });
    offsetMs = 24 * HOUR - 60_000;
    expect((await store()('POST', ACTIVATE, { token: tokenOf(onlyMail(early.email).link!), password: 'just in time' })).statusCode).toBe(200);
    offsetMs = 24 * HOUR + 1000;
    const res = await store()('POST', ACTIVATE, { token: tokenOf(onlyMail(late.email).link!), password: 'too late now' });
    expect(res.statusCode).toBe(410);
    expect(res.json().error.code).toBe('ACCOUNT_LINK_EXPIRED');
    expect((await api('GET', `/api/v1/customers/${late.id}`)).json().data.has_account).toBe(false);
    // Registering again gives a new link that works.
    await store()('POST', REGISTER, { email: late.email });
    expect((await store()('POST', ACTIVATE, { token: tokenOf(onlyMail(late.email, 1).link!), password: 'second chance' })).statusCode).toBe(200);
  });

  it('works in its own store only: another store’s link is 404 ACCOUNT_LINK_NOT_FOUND, and records stay apart', async () => {
    const other = await t.createTenant({ name: 'Tienda Killa' });
    const email = unique('both');
    const inA = await createCustomer(t, shop, { email, first_name: 'Of A' });
    const inB = await createCustomer(t, other, { email, first_name: 'Of B' });
    await store(shop)('POST', REGISTER, { email });
    await store(other)('POST', REGISTER, { email });
    const [fromA, fromB] = mail.to(email);
    expect([fromA.tenant, fromB.tenant]).toEqual([shop.id, other.id]);
    expect(fromB.subject).toBe('Tienda Killa: finish setting up your account');

    const crossed = await store(other)('POST', ACTIVATE, { token: tokenOf(fromA.link!), password: 'crossing stores' });
    expect(crossed.statusCode).toBe(404);
    expect(crossed.json().error.code).toBe('ACCOUNT_LINK_NOT_FOUND');
    expect((await caller(t, other)('GET', `/api/v1/customers/${inB.id}`)).json().data.has_account).toBe(false);

    const inOwn = await store(other)('POST', ACTIVATE, { token: tokenOf(fromB.link!), password: 'password of B' });
    expect(inOwn.json().data.customer).toMatchObject({ id: inB.id, first_name: 'Of B' });
    expect((await api('GET', `/api/v1/customers/${inA.id}`)).json().data.has_account).toBe(false);
    expect((await store(shop)('POST', LOGIN, { email, password: 'password of B' })).statusCode).toBe(401);
    // A token with another store's X-Tenant-ID and the storefront key of that store: the key decides the store.
    const mixed = await t.request({ method: 'POST', url: ACTIVATE, headers: { authorization: `Bearer ${shop.storefrontToken}`, 'x-tenant-id': other.id }, payload: { token: tokenOf(fromA.link!), password: 'mixed headers' } });
    expect(mixed.statusCode).toBe(403);
    expect((await store(shop)('POST', ACTIVATE, { token: tokenOf(fromA.link!), password: 'password of A' })).json().data.customer.id).toBe(inA.id);
  });

  it('is spent, with every other open link of the address, once one is used', async () => {
    const c = await createCustomer(t, shop, { email: unique('twice') });
    await store()('POST', REGISTER, { email: c.email });
    await store()('POST', REGISTER, { email: c.email });
    const [first, second] = mail.to(c.email).map((m) => tokenOf(m.link!));
    expect(first).not.toBe(second);
    expect((await store()('POST', ACTIVATE, { token: second, password: 'from the second' })).statusCode).toBe(200);
    const res = await store()('POST', ACTIVATE, { token: first, password: 'from the first' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('ACCOUNT_LINK_USED');
    expect((await store()('POST', LOGIN, { email: c.email, password: 'from the second' })).statusCode).toBe(200);
  });

  it('gives one account to one of two simultaneous uses', async () => {
    const c = await createCustomer(t, shop, { email: unique('race') });
    await store()('POST', REGISTER, { email: c.email });
    const token = tokenOf(onlyMail(c.email).link!);
    const results = await Promise.all([1, 2].map((i) => store()('POST', ACTIVATE, { token, password: `password number ${i}` })));
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    const [{ n }] = await sql<{ n: number }>(`select count(*)::int as n from customers_credential where tenant_id = ? and customer_id = ?`, [shop.id, c.id]);
    expect(n).toBe(1);
  });

  it('refuses a customer disabled or given another e-mail since the link was sent', async () => {
    const disabled = await createCustomer(t, shop, { email: unique('later-disabled') });
    const moved = await createCustomer(t, shop, { email: unique('moved') });
    for (const c of [disabled, moved]) await store()('POST', REGISTER, { email: c.email });
    await api('PATCH', `/api/v1/customers/${disabled.id}`, { status: 'disabled' });
    await api('PATCH', `/api/v1/customers/${moved.id}`, { email: unique('moved-to') });
    const off = await store()('POST', ACTIVATE, { token: tokenOf(onlyMail(disabled.email).link!), password: 'long enough' });
    expect(off.statusCode).toBe(403);
    expect(off.json().error.code).toBe('CUSTOMER_DISABLED');
    const gone = await store()('POST', ACTIVATE, { token: tokenOf(onlyMail(moved.email).link!), password: 'long enough' });
    expect(gone.statusCode).toBe(410);
    expect(gone.json().error.code).toBe('ACCOUNT_LINK_EXPIRED');
    expect((await api('GET', `/api/v1/customers/${moved.id}`)).json().data.has_account).toBe(false);
  });

  it.each([
    [{ password: 'long enough' }, 'body.token'],
    [{ token: 'qhl_x' }, 'body.password'],
    [{ token: 'qhl_x', password: 'short' }, 'body.password'],
    [{ token: '', password: 'long enough' }, 'body.token'],
    [{ token: 'qhl_x', password: 'long enough', email: 'x@example.com' }, 'body'],
  ])('refuses %j with 400 (%s)', async (payload, path) => {
    const res = await store()('POST', ACTIVATE, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION_ERROR');
    expect(res.json().error.details.map((d: { path: string }) => d.path).join(' ')).toContain(path);
  });

  it('answers an unknown token 404 and takes a storefront or admin key only', async () => {
    const res = await store()('POST', ACTIVATE, { token: `qhl_${'A'.repeat(43)}`, password: 'long enough' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: { code: 'ACCOUNT_LINK_NOT_FOUND', message: 'Account link not found', details: [] } });
    const anonymous = await t.request({ method: 'POST', url: ACTIVATE, headers: { 'x-tenant-id': shop.id }, payload: { token: 'qhl_x', password: 'long enough' } });
    expect(anonymous.statusCode).toBe(401);
  });

  it('opens the store’s own page when it sets account_url', async () => {
    const res = await api('PUT', '/api/v1/customers/settings', { account_url: 'https://tienda.example/cuenta/activar?lang=es' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ registration: 'verify', registration_is_default: true, account_url: 'https://tienda.example/cuenta/activar?lang=es', account_url_is_default: false, link_ttl_hours: 24 });
    const email = unique('own-page');
    await store()('POST', REGISTER, { email });
    expect(onlyMail(email).link).toMatch(/^https:\/\/tienda\.example\/cuenta\/activar\?lang=es&token=qhl_/);
  });
});

describe('a store that relaxes registration (PUT /customers/settings)', () => {
  it('instant: a new e-mail signs in at once, a store-created one still needs the link, an account is a 409', async () => {
    const tenant = await t.createTenant();
    await registrationMode(t, tenant, 'instant');
    const fresh = await store(tenant)('POST', REGISTER, { email: unique('instant'), password: 'long enough' });
    expect(fresh.statusCode).toBe(201);
    expect(fresh.json().data.customer.has_account).toBe(true);
    expect((await store(tenant)('POST', REGISTER, { email: unique('instant') })).json().error.details).toEqual([{ path: 'body.password', message: 'is required' }]);
    const created = await createCustomer(t, tenant, { email: unique('instant-known') });
    const known = await store(tenant)('POST', REGISTER, { email: created.email, password: 'long enough' });
    expect(known.statusCode).toBe(202);
    expect(known.json().data).toEqual({ status: 'verification_sent', email: created.email });
    expect(onlyMail(created.email).link).toBeDefined();
    const taken = await store(tenant)('POST', REGISTER, { email: fresh.json().data.customer.email, password: 'long enough' });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().error.code).toBe('CUSTOMER_EMAIL_TAKEN');
  });

  it('claim: registering a store-created customer’s e-mail sets its password at once, as the store chose', async () => {
    const tenant = await t.createTenant();
    const created = await createCustomer(t, tenant, { email: unique('claimed'), first_name: 'Rosa' });
    await registrationMode(t, tenant, 'claim');
    const res = await store(tenant)('POST', REGISTER, { email: created.email, password: 'my own password', last_name: 'Quispe' });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.customer).toMatchObject({ id: created.id, first_name: 'Rosa', last_name: 'Quispe', has_account: true });
    expect(mail.to(created.email)).toEqual([]);
    expect((await store(tenant)('POST', REGISTER, { email: created.email, password: 'a takeover attempt' })).statusCode).toBe(409);

    // Back to the platform's default: the safe one.
    await registrationMode(t, tenant, null);
    const settings = await caller(t, tenant)('GET', '/api/v1/customers/settings');
    expect(settings.json().data).toMatchObject({ registration: 'verify', registration_is_default: true });
    expect((await store(tenant)('POST', REGISTER, { email: unique('after'), password: 'long enough' })).statusCode).toBe(202);
  });

  it('is changed by an admin key only, with a valid value', async () => {
    const put = (token: string, body: unknown) => caller(t, shop, token)('PUT', '/api/v1/customers/settings', body);
    expect((await put(shop.storefrontToken, { registration: 'claim' })).statusCode).toBe(403);
    expect((await caller(t, shop, shop.storefrontToken)('GET', '/api/v1/customers/settings')).statusCode).toBe(403);
    for (const body of [{ registration: 'open' }, { account_url: 'javascript:alert(1)' }, { account_url: 'not a url' }, { link_ttl_hours: 48 }]) {
      const res = await put(shop.adminToken, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
    expect((await api('GET', '/api/v1/customers/settings')).json().data.registration).toBe('verify');
  });
});

describe('the platform default', () => {
  it('follows QHATU_CUSTOMERS_REGISTRATION and QHATU_CUSTOMERS_LINK_TTL_HOURS; a store’s own choice wins', async () => {
    const relaxed = await customersApp({ env: { SMTP_URL: mail.url, QHATU_CUSTOMERS_REGISTRATION: 'instant', QHATU_CUSTOMERS_LINK_TTL_HOURS: '2' } });
    try {
      const tenant = await relaxed.createTenant();
      const settings = (await caller(relaxed, tenant)('GET', '/api/v1/customers/settings')).json().data;
      expect(settings).toMatchObject({ registration: 'instant', registration_is_default: true, link_ttl_hours: 2, account_url: `${relaxed.app.config.publicUrl}/account/activate` });
      const as = caller(relaxed, tenant, tenant.storefrontToken);
      expect((await as('POST', REGISTER, { email: unique('platform'), password: 'long enough' })).statusCode).toBe(201);
      await caller(relaxed, tenant)('PUT', '/api/v1/customers/settings', { registration: 'verify' });
      const email = unique('store-choice');
      expect((await as('POST', REGISTER, { email, password: 'long enough' })).statusCode).toBe(202);
      const [row] = await relaxed.app.orm.em.getConnection().execute<Array<{ hours: number }>>(
        `select round(extract(epoch from expires_at - created_at) / 3600)::int as hours from customers_account_link where email = ?`, [email]);
      expect(row.hours).toBe(2);
    } finally {
      await relaxed.close();
    }
  });
});

describe('when the e-mail cannot be sent', () => {
  it('answers 502 MAIL_DELIVERY_FAILED and keeps no link', async () => {
    const refusing = await customersApp({ env: { SMTP_URL: 'smtp://127.0.0.1:9' } });
    try {
      const tenant = await refusing.createTenant();
      const email = unique('unsent');
      const res = await caller(refusing, tenant, tenant.storefrontToken)('POST', REGISTER, { email });
      expect(res.statusCode).toBe(502);
      // Nothing of the mail server (its address, its words) reaches a storefront caller.
      expect(res.json().error).toEqual({ code: 'MAIL_DELIVERY_FAILED', message: 'The e-mail could not be sent; nothing was changed, try again later', details: [] });
      const [{ n }] = await refusing.app.orm.em.getConnection().execute<Array<{ n: number }>>(`select count(*)::int as n from customers_account_link where email = ?`, [email]);
      expect(n).toBe(0);
    } finally {
      await refusing.close();
    }
  });
});

describe('the mailbox', () => {
  it('gets at most five registration e-mails an hour; the answer stays the same past the cap', async () => {
    for (const [email, make] of [[unique('capped-new'), null], [unique('capped-account'), 'account']] as const) {
      if (make) {
        await store()('POST', REGISTER, { email });
        await store()('POST', ACTIVATE, { token: tokenOf(onlyMail(email).link!), password: 'long enough' });
      }
      const before = mail.to(email).length;
      const answers = [];
      for (let i = 0; i < 6; i++) answers.push((await store()('POST', REGISTER, { email })).json());
      expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
      expect(mail.to(email).length - before).toBe(make ? 4 : 5); // the account's first link counts too
      offsetMs = HOUR + 1000;
      expect((await store()('POST', REGISTER, { email })).statusCode).toBe(202);
      expect(mail.to(email).length - before).toBe(make ? 5 : 6);
      offsetMs = 0;
    }
  });
});

describe('rate limits', () => {
  it('answer 429 RATE_LIMITED after ten registrations of one e-mail, or ten activations, in a minute', async () => {
    const limited = await customersApp({ env: { SMTP_URL: mail.url } });
    try {
      const tenant = await limited.createTenant();
      const as = caller(limited, tenant, tenant.storefrontToken);
      const email = unique('flood');
      const registered = [];
      for (let i = 0; i < 11; i++) registered.push((await as('POST', REGISTER, { email })).statusCode);
      expect(registered).toEqual([...Array(10).fill(202), 429]);
      expect(mail.to(email)).toHaveLength(5); // the hourly cap per address, below
      expect((await as('POST', REGISTER, { email: unique('other') })).statusCode).toBe(202);
      const activated = [];
      for (let i = 0; i < 11; i++) activated.push((await as('POST', ACTIVATE, { token: `qhl_guess${i}`, password: 'long enough' })).statusCode);
      expect(activated).toEqual([...Array(10).fill(404), 429]);
      expect((await as('POST', ACTIVATE, { token: 'qhl_guess', password: 'long enough' })).json().error.code).toBe('RATE_LIMITED');
    } finally {
      await limited.close();
    }
  });
});
