import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestTenant } from '../src/testing/index.js';
import { definePlugin } from '../src/index.js';
import { notesPlugin } from './fixtures/notes-plugin.js';

/** A real SMTP server on 127.0.0.1: the invitation and reset e-mails arrive here. */
interface Received {
  to: string[];
  text: string;
}
const inbox: Received[] = [];
let smtp: SMTPServer;

/** The body of a raw message, quoted-printable undone. */
function bodyOf(raw: string): string {
  const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  return body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

let now = Date.parse('2026-11-24T10:00:00Z');
const clock = { now: () => new Date(now) };
const HOUR = 3_600_000;

let t: TestApp;
let a: TestTenant;
let b: TestTenant;
const roles: Record<string, string> = {};
const PASSWORD = 'correct horse battery';

async function call(method: string, url: string, headers: Record<string, string>, payload?: unknown) {
  return t.request({ method: method as never, url, headers, ...(payload === undefined ? {} : { payload: payload as never }) });
}
const tenantOnly = (tenant: TestTenant) => ({ 'x-tenant-id': tenant.id });

async function login(tenant: TestTenant, email: string, password = PASSWORD) {
  return call('POST', '/api/v1/auth/staff/login', tenantOnly(tenant), { email, password });
}

/** A member with a password, signed in: their id and token. */
async function member(tenant: TestTenant, email: string, roleId: string): Promise<{ id: string; token: string }> {
  const created = await call('POST', '/api/v1/staff', tenant.headers(), { email, first_name: 'Ana', last_name: 'Quispe', role_id: roleId, password: PASSWORD });
  expect(created.statusCode, created.body).toBe(201);
  const session = await login(tenant, email);
  expect(session.statusCode, session.body).toBe(200);
  return { id: created.json().data.id, token: session.json().data.token };
}

/** The link token of the newest message to `email`. */
function linkTokenFor(email: string): string {
  const message = [...inbox].reverse().find((m) => m.to.includes(email));
  expect(message, `a message to ${email}`).toBeDefined();
  const match = /token=([A-Za-z0-9_-]{43})/.exec(message!.text);
  expect(match).not.toBeNull();
  return match![1];
}

async function roleId(tenant: TestTenant, name: string): Promise<string> {
  const list = await call('GET', '/api/v1/roles', tenant.headers());
  return list.json().data.find((r: { name: string }) => r.name === name).id;
}

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        inbox.push({ to: session.envelope.rcptTo.map((r) => r.address), text: bodyOf(Buffer.concat(chunks).toString('utf8')) });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const port = (smtp.server.address() as AddressInfo).port;
  t = await createTestApp({
    plugins: [notesPlugin],
    clock,
    env: { SMTP_URL: `smtp://127.0.0.1:${port}`, QHATU_STAFF_PASSWORD_URL: 'https://admin.example.com/password' },
  });
  a = await t.createTenant({ name: 'Store A' });
  b = await t.createTenant({ name: 'Store B' });
  roles.owner = await roleId(a, 'owner');
  roles.admin = await roleId(a, 'admin');
}, 60_000);
afterAll(async () => {
  await t?.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

describe('roles and permissions', () => {
  it('lists the built-in roles with every permission, and every declared permission', async () => {
    const list = await call('GET', '/api/v1/roles', a.headers());
    expect(list.statusCode).toBe(200);
    const names = list.json().data.map((r: { name: string; built_in: boolean }) => [r.name, r.built_in]);
    expect(names.sort()).toEqual([['admin', true], ['owner', true]]);
    const permissions = await call('GET', '/api/v1/permissions', a.headers());
    expect(permissions.statusCode).toBe(200);
    expect(permissions.json().data).toEqual([
      { name: 'currencies.manage', description: expect.any(String) },
      { name: 'locales.manage', description: expect.any(String) },
      { name: 'markets.manage', description: expect.any(String) },
      { name: 'notes.read', description: 'Read notes, the unfiltered list included' },
      { name: 'notes.write', description: 'Write, close and echo notes' },
      { name: 'staff.manage', description: expect.any(String) },
      { name: 'staff.read', description: expect.any(String) },
      { name: 'store.manage', description: expect.any(String) },
      { name: 'store.read', description: expect.any(String) },
    ]);
    expect(list.json().data.find((r: { name: string }) => r.name === 'owner').permissions).toEqual(['currencies.manage', 'locales.manage', 'markets.manage', 'notes.read', 'notes.write', 'staff.manage', 'staff.read', 'store.manage', 'store.read']);
  });

  it('checks a role body against the installed permissions and names', async () => {
    const unknown = await call('POST', '/api/v1/roles', a.headers(), { name: 'Clerk', permissions: ['notes.read', 'orders.fly'] });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().error).toMatchObject({ code: 'UNKNOWN_PERMISSION', details: [{ path: 'body.permissions.1', permission: 'orders.fly' }] });
    const reserved = await call('POST', '/api/v1/roles', a.headers(), { name: 'Owner', permissions: [] });
    expect(reserved.statusCode).toBe(409);
    expect(reserved.json().error.code).toBe('ROLE_NAME_TAKEN');
    const created = await call('POST', '/api/v1/roles', a.headers(), { name: 'Reader', permissions: ['notes.read', 'notes.read'] });
    expect(created.statusCode).toBe(201);
    expect(created.json().data).toMatchObject({ name: 'Reader', built_in: false, permissions: ['notes.read'] });
    const again = await call('POST', '/api/v1/roles', a.headers(), { name: 'reader', permissions: [] });
    expect(again.json().error.code).toBe('ROLE_NAME_TAKEN');
    const builtIn = await call('PATCH', `/api/v1/roles/${roles.owner}`, a.headers(), { permissions: [] });
    expect(builtIn.statusCode).toBe(409);
    expect(builtIn.json().error.code).toBe('ROLE_BUILT_IN');
    expect((await call('DELETE', `/api/v1/roles/${roles.admin}`, a.headers())).json().error.code).toBe('ROLE_BUILT_IN');
    const gone = await call('DELETE', `/api/v1/roles/${created.json().data.id}`, a.headers());
    expect(gone.statusCode).toBe(204);
    expect((await call('GET', `/api/v1/roles/${created.json().data.id}`, a.headers())).statusCode).toBe(404);
  });

  it('refuses a route to a role without its permission with 403 FORBIDDEN naming it, in REST and GraphQL', async () => {
    const reader = (await call('POST', '/api/v1/roles', a.headers(), { name: 'Note reader', permissions: ['notes.read'] })).json().data;
    const m = await member(a, 'reader@example.com', reader.id);
    const headers = a.headers(m.token);
    expect(m.token).toMatch(/^qhm_/);
    expect((await call('GET', '/api/v1/notes-unfiltered', headers)).statusCode).toBe(200);
    const write = await call('POST', '/api/v1/notes', headers, { body: 'no' });
    expect(write.statusCode).toBe(403);
    expect(write.json().error).toMatchObject({ code: 'FORBIDDEN', details: [{ permission: 'notes.write' }] });
    expect(write.json().error.message).toContain('notes.write');
    const gql = await call('POST', '/graphql', headers, { query: '{ adminSecret }' });
    expect(gql.json().data).toEqual({ adminSecret: 'admins only' });
    // The role changes: the member's next request sees it.
    const patched = await call('PATCH', `/api/v1/roles/${reader.id}`, a.headers(), { permissions: ['notes.write'] });
    expect(patched.statusCode).toBe(200);
    expect((await call('POST', '/api/v1/notes', headers, { body: 'yes' })).statusCode).toBe(201);
    expect((await call('GET', '/api/v1/notes-unfiltered', headers)).statusCode).toBe(403);
    const refused = await call('POST', '/graphql', headers, { query: '{ adminSecret }' });
    expect(refused.json().errors[0]).toMatchObject({ extensions: { code: 'FORBIDDEN' } });
    expect(refused.json().errors[0].message).toContain('notes.read');
    // A role given to someone cannot be deleted.
    const inUse = await call('DELETE', `/api/v1/roles/${reader.id}`, a.headers());
    expect(inUse.statusCode).toBe(409);
    expect(inUse.json().error.code).toBe('ROLE_IN_USE');
    // Staff-only routes are the member's own; admin keys are not staff.
    const me = await call('GET', '/api/v1/staff/me', headers);
    expect(me.json().data).toMatchObject({ id: m.id, email: 'reader@example.com', role: { id: reader.id, built_in: false }, permissions: ['notes.write'] });
    expect((await call('GET', '/api/v1/staff/me', a.headers())).statusCode).toBe(403);
    // Storefront keys never reach admin routes.
    expect((await call('GET', '/api/v1/notes-unfiltered', a.headers(a.storefrontToken))).statusCode).toBe(403);
  });

  it('keeps every permission for admin API keys, and gives a role-bound key its role only', async () => {
    const reader = (await call('POST', '/api/v1/roles', a.headers(), { name: 'Key reader', permissions: ['notes.read'] })).json().data;
    const platform = { authorization: `Bearer ${t.platformToken}` };
    const issued = await call('POST', `/api/v1/tenants/${a.id}/api-keys`, platform, { name: 'Reports', scope: 'admin', role_id: reader.id });
    expect(issued.statusCode).toBe(201);
    expect(issued.json().data.role_id).toBe(reader.id);
    const key = issued.json().data.token;
    expect((await call('GET', '/api/v1/notes-unfiltered', a.headers(key))).statusCode).toBe(200);
    expect((await call('POST', '/api/v1/notes', a.headers(key), { body: 'x' })).statusCode).toBe(403);
    expect((await call('POST', '/api/v1/notes', a.headers(), { body: 'x' })).statusCode).toBe(201);
    // A role of another store is unknown.
    const foreign = await call('POST', `/api/v1/tenants/${b.id}/api-keys`, platform, { name: 'X', scope: 'admin', role_id: reader.id });
    expect(foreign.statusCode).toBe(422);
    expect(foreign.json().error.code).toBe('ROLE_NOT_FOUND');
  });

  it('lets nobody grant what they do not hold', async () => {
    const hr = (await call('POST', '/api/v1/roles', a.headers(), { name: 'People', permissions: ['staff.read', 'staff.manage'] })).json().data;
    const m = await member(a, 'people@example.com', hr.id);
    const h = a.headers(m.token);
    const role = await call('POST', '/api/v1/roles', h, { name: 'Sneaky', permissions: ['notes.write'] });
    expect(role.statusCode).toBe(403);
    expect(role.json().error.details[0]).toMatchObject({ permission: 'notes.write' });
    const asAdmin = await call('POST', '/api/v1/staff', h, { email: 'friend@example.com', first_name: 'F', last_name: 'G', role_id: roles.admin, password: PASSWORD });
    expect(asAdmin.statusCode).toBe(403);
    const selfPromotion = await call('PATCH', `/api/v1/staff/${m.id}`, h, { role_id: roles.owner });
    expect(selfPromotion.statusCode).toBe(403);
    const peer = await call('POST', '/api/v1/staff', h, { email: 'peer@example.com', first_name: 'P', last_name: 'Q', role_id: hr.id, password: PASSWORD });
    expect(peer.statusCode).toBe(201);
  });
});

describe('refusals to change roles', () => {
  it('name once each permission the caller lacks, and say whether it was granting, changing or deleting', async () => {
    const hr = (await call('POST', '/api/v1/roles', a.headers(), { name: 'Role keepers', permissions: ['staff.read', 'staff.manage'] })).json().data;
    const h = a.headers((await member(a, 'keeper@example.com', hr.id)).token);
    const writers = (await call('POST', '/api/v1/roles', a.headers(), { name: 'Writers', permissions: ['notes.write', 'notes.read'] })).json().data;
    const readers = (await call('POST', '/api/v1/roles', a.headers(), { name: 'Readers', permissions: ['staff.read'] })).json().data;
    const changed = await call('PATCH', `/api/v1/roles/${writers.id}`, h, { permissions: ['notes.write', 'notes.read'] });
    expect(changed.statusCode).toBe(403);
    expect(changed.json().error).toEqual({
      code: 'FORBIDDEN',
      message: 'You cannot change a role that holds permissions you do not hold: notes.read, notes.write',
      details: [{ path: 'params.id', message: 'not held by you', permission: 'notes.read' }, { path: 'params.id', message: 'not held by you', permission: 'notes.write' }],
    });
    const granted = await call('PATCH', `/api/v1/roles/${readers.id}`, h, { permissions: ['staff.read', 'notes.write'] });
    expect(granted.statusCode).toBe(403);
    expect(granted.json().error).toEqual({
      code: 'FORBIDDEN',
      message: 'You cannot grant permissions you do not hold: notes.write',
      details: [{ path: 'body.permissions', message: 'not held by you', permission: 'notes.write' }],
    });
    const deleted = await call('DELETE', `/api/v1/roles/${writers.id}`, h);
    expect(deleted.statusCode).toBe(403);
    expect(deleted.json().error.message).toBe('You cannot delete a role that holds permissions you do not hold: notes.read, notes.write');
    // Nothing changed, and what the caller holds stays theirs to change.
    const kept = (await call('GET', `/api/v1/roles/${writers.id}`, a.headers())).json().data;
    expect(kept.permissions).toEqual(['notes.read', 'notes.write']);
    expect((await call('PATCH', `/api/v1/roles/${readers.id}`, h, { permissions: ['staff.read', 'staff.manage'] })).statusCode).toBe(200);
  });
});

describe('staff members and sign-in', () => {
  it('creates a member with a password who signs in, and never shows a password', async () => {
    const created = await call('POST', '/api/v1/staff', a.headers(), { email: ' Owner@Example.com ', first_name: 'Rosa', last_name: 'Quispe', role_id: roles.owner, password: PASSWORD });
    expect(created.statusCode).toBe(201);
    const staff = created.json().data;
    expect(Object.keys(staff).sort()).toEqual(['created_at', 'email', 'first_name', 'id', 'last_login_at', 'last_name', 'role_id', 'status', 'updated_at']);
    expect(staff).toMatchObject({ email: 'owner@example.com', status: 'active', role_id: roles.owner, last_login_at: null });
    expect(created.body).not.toContain(PASSWORD);
    expect(created.body).not.toContain('scrypt');
    const session = await login(a, 'OWNER@example.com');
    expect(session.statusCode).toBe(200);
    expect(session.json().data).toMatchObject({ token: expect.stringMatching(/^qhm_/), expires_at: new Date(now + 12 * HOUR).toISOString(), staff: { id: staff.id, last_login_at: new Date(now).toISOString() } });
    const me = await call('GET', '/api/v1/staff/me', a.headers(session.json().data.token));
    expect(me.json().data).toMatchObject({ role: { name: 'owner', built_in: true }, permissions: ['currencies.manage', 'locales.manage', 'markets.manage', 'notes.read', 'notes.write', 'staff.manage', 'staff.read', 'store.manage', 'store.read'] });
    // The principal id: the staff member for a staff token, the key for an API key.
    expect((await call('GET', '/api/v1/notes/whoami', a.headers(session.json().data.token))).json()).toEqual({ principal_id: staff.id });
    const keys = await call('GET', `/api/v1/tenants/${a.id}/api-keys`, { authorization: `Bearer ${t.platformToken}` });
    const adminKey = keys.json().data.find((k: { name: string }) => k.name === 'admin key').id;
    expect((await call('GET', '/api/v1/notes/whoami', a.headers())).json()).toEqual({ principal_id: adminKey });
    // Taken e-mails are refused, whatever the case.
    const twice = await call('POST', '/api/v1/staff', a.headers(), { email: 'OWNER@example.com', first_name: 'R', last_name: 'Q', role_id: roles.admin, password: PASSWORD });
    expect(twice.statusCode).toBe(409);
    expect(twice.json().error.code).toBe('STAFF_EMAIL_TAKEN');
    // An unknown role is a 422 like any unknown reference.
    const noRole = await call('POST', '/api/v1/staff', a.headers(), { email: 'x@example.com', first_name: 'R', last_name: 'Q', role_id: '00000000-0000-4000-8000-000000000000' });
    expect(noRole.statusCode).toBe(422);
    expect(noRole.json().error.code).toBe('ROLE_NOT_FOUND');
  });

  it('answers the same 401 for an unknown e-mail and a wrong password, and logs out', async () => {
    const m = await member(a, 'clerk@example.com', roles.admin);
    const wrong = await login(a, 'clerk@example.com', 'not the password');
    const unknown = await login(a, 'nobody@example.com');
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json()).toEqual(unknown.json());
    expect(wrong.json().error.code).toBe('UNAUTHENTICATED');
    expect((await call('POST', '/api/v1/auth/staff/login', {}, { email: 'clerk@example.com', password: PASSWORD })).json().error.code).toBe('TENANT_REQUIRED');
    // The store named decides: the same e-mail is nobody in store B.
    expect((await login(b, 'clerk@example.com')).statusCode).toBe(401);
    const out = await call('POST', '/api/v1/auth/staff/logout', a.headers(m.token));
    expect(out.statusCode).toBe(204);
    expect((await call('GET', '/api/v1/staff/me', a.headers(m.token))).statusCode).toBe(401);
  });

  it('lets a member change their own password with the current one; their other sessions end', async () => {
    const first = await member(a, 'changer@example.com', roles.admin);
    const second = (await login(a, 'changer@example.com')).json().data.token;
    const wrong = await call('POST', '/api/v1/staff/me/password', a.headers(first.token), { current_password: 'not it at all', password: 'a newer password' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error.details[0].path).toBe('body.current_password');
    const short = await call('POST', '/api/v1/staff/me/password', a.headers(first.token), { current_password: PASSWORD, password: 'short' });
    expect(short.statusCode).toBe(400);
    const changed = await call('POST', '/api/v1/staff/me/password', a.headers(first.token), { current_password: PASSWORD, password: 'a newer password' });
    expect(changed.statusCode).toBe(204);
    expect((await call('GET', '/api/v1/staff/me', a.headers(first.token))).statusCode).toBe(200);
    expect((await call('GET', '/api/v1/staff/me', a.headers(second))).statusCode).toBe(401);
    expect((await login(a, 'changer@example.com')).statusCode).toBe(401);
    expect((await login(a, 'changer@example.com', 'a newer password')).statusCode).toBe(200);
    expect((await call('POST', '/api/v1/staff/me/password', a.headers(), { current_password: PASSWORD, password: 'a newer password' })).statusCode).toBe(403);
  });

  it('limits sign-in attempts per store, client and e-mail', async () => {
    let last = 0;
    for (let i = 0; i < 11; i++) last = (await login(b, 'guess@example.com', `guess-${i}`)).statusCode;
    expect(last).toBe(429);
  });

  it('disables a member: their tokens stop at once, and sign-in says so only with the right password', async () => {
    const m = await member(a, 'leaver@example.com', roles.admin);
    expect((await call('GET', '/api/v1/staff/me', a.headers(m.token))).statusCode).toBe(200);
    const disabled = await call('PATCH', `/api/v1/staff/${m.id}`, a.headers(), { status: 'disabled' });
    expect(disabled.statusCode).toBe(200);
    expect(disabled.json().data.status).toBe('disabled');
    expect((await call('GET', '/api/v1/staff/me', a.headers(m.token))).statusCode).toBe(401);
    expect((await call('GET', '/api/v1/notes-unfiltered', a.headers(m.token))).statusCode).toBe(401);
    const right = await login(a, 'leaver@example.com');
    expect(right.statusCode).toBe(403);
    expect(right.json().error.code).toBe('STAFF_DISABLED');
    expect((await login(a, 'leaver@example.com', 'wrong password!')).statusCode).toBe(401);
    const filtered = await call('GET', '/api/v1/staff?filter[status]=disabled', a.headers());
    expect(filtered.json().data.map((s: { email: string }) => s.email)).toEqual(['leaver@example.com']);
    const search = await call('GET', '/api/v1/staff?q=leaver', a.headers());
    expect(search.json().data).toHaveLength(1);
    await call('PATCH', `/api/v1/staff/${m.id}`, a.headers(), { status: 'active' });
    expect((await login(a, 'leaver@example.com')).statusCode).toBe(200);
  });

  it('invites by e-mail: the link sets the password once, and not after it expired', async () => {
    const invited = await call('POST', '/api/v1/staff', a.headers(), { email: 'new@example.com', first_name: 'Nina', last_name: 'Mamani', role_id: roles.admin });
    expect(invited.statusCode).toBe(201);
    const message = inbox.at(-1)!;
    expect(message.to).toEqual(['new@example.com']);
    expect(message.text).toContain('https://admin.example.com/password?');
    expect(message.text).toContain(`tenant=${a.id}`);
    const token = linkTokenFor('new@example.com');
    // No password yet: nothing signs in.
    expect((await login(a, 'new@example.com')).statusCode).toBe(401);
    const set = await call('POST', '/api/v1/auth/staff/password', tenantOnly(a), { token, password: 'my own password' });
    expect(set.statusCode).toBe(200);
    expect(set.json().data.staff.email).toBe('new@example.com');
    const twice = await call('POST', '/api/v1/auth/staff/password', tenantOnly(a), { token, password: 'another password' });
    expect(twice.statusCode).toBe(422);
    expect(twice.json().error.code).toBe('LINK_USED');
    expect((await login(a, 'new@example.com', 'my own password')).statusCode).toBe(200);
    // The link is the store's: with another store's id it is nothing.
    expect((await call('POST', '/api/v1/auth/staff/password', tenantOnly(b), { token, password: 'another password' })).json().error.code).toBe('LINK_INVALID');

    await call('POST', '/api/v1/staff', a.headers(), { email: 'late@example.com', first_name: 'Late', last_name: 'Comer', role_id: roles.admin });
    const stale = linkTokenFor('late@example.com');
    now += 73 * HOUR;
    const expired = await call('POST', '/api/v1/auth/staff/password', tenantOnly(a), { token: stale, password: 'my own password' });
    expect(expired.statusCode).toBe(422);
    expect(expired.json().error.code).toBe('LINK_EXPIRED');
    // A new invitation: the old link stops working, the new one works.
    const lateId = (await call('GET', '/api/v1/staff?q=late', a.headers())).json().data[0].id;
    expect((await call('POST', `/api/v1/staff/${lateId}/invitation`, a.headers())).statusCode).toBe(200);
    const fresh = linkTokenFor('late@example.com');
    expect(fresh).not.toBe(stale);
    expect((await call('POST', '/api/v1/auth/staff/password', tenantOnly(a), { token: fresh, password: 'my own password' })).statusCode).toBe(200);
    expect((await call('POST', `/api/v1/staff/${lateId}/invitation`, a.headers())).json().error.code).toBe('STAFF_HAS_PASSWORD');
  });

  it('resets a password by e-mail: once, before it expires, and the old sessions end', async () => {
    const m = await member(a, 'forgetful@example.com', roles.admin);
    const before = inbox.length;
    const unknown = await call('POST', '/api/v1/auth/staff/password-reset', tenantOnly(a), { email: 'stranger@example.com' });
    expect(unknown.statusCode).toBe(204);
    expect(inbox.length).toBe(before);
    const asked = await call('POST', '/api/v1/auth/staff/password-reset', tenantOnly(a), { email: 'forgetful@example.com' });
    expect(asked.statusCode).toBe(204);
    expect(inbox.length).toBe(before + 1);
    const token = linkTokenFor('forgetful@example.com');
    const reset = await call('POST', '/api/v1/auth/staff/password', tenantOnly(a), { token, password: 'a brand new one' });
    expect(reset.statusCode).toBe(200);
    expect((await call('GET', '/api/v1/staff/me', a.headers(m.token))).statusCode).toBe(401);
    expect((await call('GET', '/api/v1/staff/me', a.headers(reset.json().data.token))).statusCode).toBe(200);
    expect((await login(a, 'forgetful@example.com')).statusCode).toBe(401);
    expect((await login(a, 'forgetful@example.com', 'a brand new one')).statusCode).toBe(200);
    const twice = await call('POST', '/api/v1/auth/staff/password', tenantOnly(a), { token, password: 'again and again' });
    expect(twice.json().error.code).toBe('LINK_USED');

    await call('POST', '/api/v1/auth/staff/password-reset', tenantOnly(a), { email: 'forgetful@example.com' });
    const late = linkTokenFor('forgetful@example.com');
    now += 61 * 60_000;
    const expired = await call('POST', '/api/v1/auth/staff/password', tenantOnly(a), { token: late, password: 'too late now' });
    expect(expired.statusCode).toBe(422);
    expect(expired.json().error.code).toBe('LINK_EXPIRED');
  });

  it('protects the last active owner', async () => {
    const owners = (await call('GET', `/api/v1/staff?filter[role_id]=${roles.owner}`, a.headers())).json().data;
    expect(owners).toHaveLength(1);
    const sole = owners[0].id;
    for (const [method, body] of [['DELETE', undefined], ['PATCH', { status: 'disabled' }], ['PATCH', { role_id: roles.admin }]] as const) {
      const res = await call(method, `/api/v1/staff/${sole}`, a.headers(), body);
      expect(res.statusCode, `${method} ${JSON.stringify(body)}`).toBe(409);
      expect(res.json().error.code).toBe('LAST_OWNER');
    }
    // An admin may not touch an owner.
    const admin = await member(a, 'admin2@example.com', roles.admin);
    expect((await call('PATCH', `/api/v1/staff/${sole}`, a.headers(admin.token), { first_name: 'X', email: 'x2@example.com' })).statusCode).toBe(403);
    const second = await member(a, 'owner2@example.com', roles.owner);
    const removed = await call('DELETE', `/api/v1/staff/${sole}`, a.headers(second.token));
    expect(removed.statusCode).toBe(204);
    expect((await call('GET', `/api/v1/staff/${sole}`, a.headers())).statusCode).toBe(404);
    expect((await call('DELETE', `/api/v1/staff/${second.id}`, a.headers(second.token))).json().error.code).toBe('LAST_OWNER');
  });
});

describe('tenant isolation', () => {
  it('keeps staff and roles inside their store', async () => {
    const m = await member(a, 'isolated@example.com', roles.admin);
    // A token of store A with X-Tenant-ID of B is refused.
    const crossed = await call('GET', '/api/v1/staff/me', { authorization: `Bearer ${m.token}`, 'x-tenant-id': b.id });
    expect(crossed.statusCode).toBe(403);
    expect((await call('GET', '/api/v1/staff', { authorization: `Bearer ${m.token}`, 'x-tenant-id': b.id })).statusCode).toBe(403);
    // B's admin sees none of A's members or roles.
    expect((await call('GET', `/api/v1/staff/${m.id}`, b.headers())).statusCode).toBe(404);
    expect((await call('PATCH', `/api/v1/staff/${m.id}`, b.headers(), { status: 'disabled' })).statusCode).toBe(404);
    expect((await call('DELETE', `/api/v1/staff/${m.id}`, b.headers())).statusCode).toBe(404);
    expect((await call('GET', `/api/v1/roles/${roles.owner}`, b.headers())).statusCode).toBe(404);
    expect((await call('GET', '/api/v1/staff', b.headers())).json().data).toEqual([]);
    const bRoles = (await call('GET', '/api/v1/roles', b.headers())).json().data;
    expect(bRoles.map((r: { name: string }) => r.name).sort()).toEqual(['admin', 'owner']);
    expect(bRoles.map((r: { id: string }) => r.id)).not.toContain(roles.owner);
    const foreignRole = await call('POST', '/api/v1/staff', b.headers(), { email: 'b@example.com', first_name: 'B', last_name: 'B', role_id: roles.admin, password: PASSWORD });
    expect(foreignRole.statusCode).toBe(422);
    expect(foreignRole.json().error.code).toBe('ROLE_NOT_FOUND');
    // A staff reference (owner_id, assigned_to) to another store's member is a 422.
    expect((await call('POST', '/api/v1/notes/assign', a.headers(), { staff_id: m.id })).statusCode).toBe(200);
    const foreign = await call('POST', '/api/v1/notes/assign', b.headers(), { staff_id: m.id });
    expect(foreign.statusCode).toBe(422);
    expect(foreign.json().error).toMatchObject({ code: 'STAFF_NOT_FOUND', details: [{ path: 'body.staff_id' }] });
  });
});

describe('the token lookup', () => {
  it('costs a staff request no more SQL statements than an API-key request, cold and cached', async () => {
    const m = await member(b, 'counted@example.com', await roleId(b, 'admin'));
    const platform = { authorization: `Bearer ${t.platformToken}` };
    const key = (await call('POST', `/api/v1/tenants/${b.id}/api-keys`, platform, { name: 'Counted', scope: 'admin' })).json().data.token;
    const cost = async (token: string) => (await t.countQueries(() => call('GET', '/api/v1/notes-unfiltered', b.headers(token)))).count;
    const coldKey = await cost(key);
    const coldStaff = await cost(m.token);
    const warmKey = await cost(key);
    const warmStaff = await cost(m.token);
    expect(coldStaff).toBe(coldKey);
    expect(warmStaff).toBe(warmKey);
    expect(coldKey).toBe(warmKey + 1);
  });
});

describe('OpenAPI and start-up checks', () => {
  it('documents the permission of each admin operation', async () => {
    const doc = (await call('GET', '/openapi.json', {})).json();
    const op = doc.paths['/api/v1/notes'].post;
    expect(op['x-permission']).toBe('notes.write');
    expect(op.description).toContain('`notes.write`');
    expect(doc.paths['/api/v1/staff'].get['x-permission']).toBe('staff.read');
    expect(doc.paths['/api/v1/auth/staff/login'].post['x-permission']).toBeUndefined();
  });

  it('refuses to start a plugin whose admin route names no permission, or one nobody declares', async () => {
    const bare = definePlugin({ name: 'bare', routes: async (app) => void app.get('/bare', { config: { auth: ['admin'] } }, async () => ({})) });
    await expect(createTestApp({ plugins: [bare] })).rejects.toThrow(/GET \/api\/v1\/bare of plugin "bare" is an admin route and names no permission/);
    const typo = definePlugin({ name: 'typo', routes: async (app) => void app.get('/typo', { config: { auth: ['admin'], permission: 'typo.raed' } }, async () => ({})) });
    await expect(createTestApp({ plugins: [typo] })).rejects.toThrow(/names the permission "typo.raed", which no installed plugin declares/);
    const twice = definePlugin({ name: 'twice', permissions: [{ name: 'staff.read', description: 'again' }] });
    await expect(createTestApp({ plugins: [twice] })).rejects.toThrow(/declared by both "core" and "twice"/);
  });

  it('refuses to start a plugin whose GraphQL root field declares no access, or an admin one no permission', async () => {
    const graphql = (access: object, resolvers: object = { Query: { secret: () => 'x' } }) =>
      definePlugin({
        name: 'sales',
        permissions: [{ name: 'sales.read', description: 'Read the sales' }],
        graphql: { typeDefs: 'extend type Query { secret: String! }', resolvers, access } as never,
      });
    await expect(createTestApp({ plugins: [graphql({})] })).rejects.toThrow(/GraphQL field Query.secret of plugin "sales" declares no access/);
    await expect(createTestApp({ plugins: [graphql({ Query: { secret: { auth: ['admin'] } } })] })).rejects.toThrow(
      /GraphQL field Query.secret of plugin "sales" is an admin field and names no permission/,
    );
    await expect(createTestApp({ plugins: [graphql({ Query: { secret: { auth: ['admin'], permission: 'sales.raed' } } })] })).rejects.toThrow(
      /names the permission "sales.raed", which no installed plugin declares/,
    );
    await expect(
      createTestApp({ plugins: [graphql({ Query: { secret: { auth: ['admin'], permission: 'sales.read' }, other: { auth: ['customer'] } } })] }),
    ).rejects.toThrow(/declares access for Query.other, a field its typeDefs do not add/);
    await expect(
      createTestApp({ plugins: [graphql({ Query: { secret: { auth: ['storefront'], cache: { topic: 'sales', unless: 'sales.raed' } } } })] }),
    ).rejects.toThrow(/caches answers unless the caller holds "sales.raed", which no installed plugin declares/);
  });
});
