import type { TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { email, MARKET, marketApp, MISSING, ok, outbox, refused, store, vendor, type Store } from './helpers.js';

let t: TestApp;
let s: Store;
let other: Store;
beforeAll(async () => {
  t = await marketApp();
  s = await store(t);
  other = await store(t);
});
afterAll(async () => t?.close());

describe('POST /marketplace/vendors', () => {
  it('creates a pending vendor, the e-mail lower-cased, the commission kept exactly, the password never shown', async () => {
    const address = email('Awana').toUpperCase();
    const made = await ok(await s.admin('POST', `${MARKET}/vendors`, { name: 'Tejidos Awana', email: address, country_code: 'PE', default_commission_pct: 12.5, password: 'una clave larga' }), 201);
    expect(made).toMatchObject({ name: 'Tejidos Awana', email: address.toLowerCase(), country_code: 'PE', default_commission_pct: 12.5, status: 'pending', has_password: true });
    expect(JSON.stringify(made)).not.toMatch(/clave|scrypt|password_hash/);
    expect(await ok(await s.admin('GET', `${MARKET}/vendors/${made.id}`))).toEqual(made);
    const [event] = await outbox(t, 'marketplace.vendor.created', 'id', made.id);
    expect(event.data).toMatchObject({ id: made.id, status: 'pending', default_commission_pct: 12.5 });
    expect(event.source).toBe('/qhatu/marketplace');
  });

  it('keeps two decimals exactly (7.25, 0.01, 100) and creates a vendor without a password', async () => {
    for (const pct of [7.25, 0.01, 0, 100]) {
      expect((await ok(await s.admin('POST', `${MARKET}/vendors`, { name: 'Cerámica Chulucanas', email: email(), country_code: 'CL', default_commission_pct: pct }), 201)).default_commission_pct).toBe(pct);
    }
    expect((await vendor(s, { password: undefined }, 'pending')).has_password).toBe(false);
  });

  it('refuses an e-mail the store already has, whatever its case: 409 VENDOR_ALREADY_EXISTS; another store may have it', async () => {
    const address = email();
    await vendor(s, { email: address }, 'pending');
    expect(await refused(await s.admin('POST', `${MARKET}/vendors`, { name: 'Otro', email: address.toUpperCase(), country_code: 'PE', default_commission_pct: 5 }), 409)).toBe('VENDOR_ALREADY_EXISTS');
    await vendor(other, { email: address }, 'pending');
  });

  it('gives one vendor to concurrent creations with the same e-mail, the others 409', async () => {
    const address = email();
    const answers = await Promise.all(Array.from({ length: 4 }, () => s.admin('POST', `${MARKET}/vendors`, { name: 'Carrera', email: address, country_code: 'PE', default_commission_pct: 5 })));
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 409, 409, 409]);
    expect(answers.filter((a) => a.statusCode === 409).map((a) => a.json().error.code)).toEqual(['VENDOR_ALREADY_EXISTS', 'VENDOR_ALREADY_EXISTS', 'VENDOR_ALREADY_EXISTS']);
  });

  it.each([
    ['a country that is not ISO 3166-1', { country_code: 'XX' }, 'country_code'],
    ['a three-letter country', { country_code: 'PER' }, 'country_code'],
    ['a commission above 100', { default_commission_pct: 100.5 }, 'default_commission_pct'],
    ['a negative commission', { default_commission_pct: -1 }, 'default_commission_pct'],
    ['three decimals', { default_commission_pct: 12.345 }, 'default_commission_pct'],
    ['a commission as text', { default_commission_pct: '10' }, 'default_commission_pct'],
    ['no name', { name: '  ' }, 'name'],
    ['a bad e-mail', { email: 'no-es-correo' }, 'email'],
    ['a short password', { password: 'corta' }, 'password'],
    ['an unknown field', { iban: 'PE00' }, ''],
  ])('refuses %s: 400 VALIDATION_ERROR', async (_, over, field) => {
    const res = await s.admin('POST', `${MARKET}/vendors`, { name: 'Taller', email: email(), country_code: 'PE', default_commission_pct: 10, ...over });
    expect(await refused(res, 400)).toBe('VALIDATION_ERROR');
    if (field) expect(JSON.stringify(res.json().error.details)).toContain(field);
  });
});

describe('GET /marketplace/vendors/:id', () => {
  it("answers 404 VENDOR_NOT_FOUND for an unknown vendor and another store's, 400 for a malformed id", async () => {
    const theirs = await vendor(other, {}, 'pending');
    expect(await refused(await s.admin('GET', `${MARKET}/vendors/${MISSING}`), 404)).toBe('VENDOR_NOT_FOUND');
    expect(await refused(await s.admin('GET', `${MARKET}/vendors/${theirs.id}`), 404)).toBe('VENDOR_NOT_FOUND');
    expect(await refused(await s.admin('PATCH', `${MARKET}/vendors/${theirs.id}/status`, { status: 'active' }), 404)).toBe('VENDOR_NOT_FOUND');
    expect((await s.admin('GET', `${MARKET}/vendors/not-a-uuid`)).statusCode).toBe(400);
    expect((await ok(await other.admin('GET', `${MARKET}/vendors/${theirs.id}`))).status).toBe('pending');
  });
});

describe('PATCH /marketplace/vendors/:id/status', () => {
  // [from, to, allowed]
  const table: Array<[string, string, boolean]> = [
    ['pending', 'active', true],
    ['pending', 'suspended', true],
    ['pending', 'pending', false],
    ['active', 'suspended', true],
    ['active', 'pending', false],
    ['active', 'active', false],
    ['suspended', 'active', true],
    ['suspended', 'pending', false],
    ['suspended', 'suspended', false],
  ];
  it.each(table)('%s → %s: allowed %s (others 409 INVALID_STATE_TRANSITION)', async (from, to, allowed) => {
    const v = await vendor(s, {}, from as 'pending' | 'active' | 'suspended');
    expect(v.status).toBe(from);
    const res = await s.admin('PATCH', `${MARKET}/vendors/${v.id}/status`, { status: to });
    if (allowed) {
      expect((await ok(res)).status).toBe(to);
      const events = await outbox(t, 'marketplace.vendor.status_changed', 'id', v.id);
      expect(events.at(-1)!.data).toMatchObject({ id: v.id, from, to, status: to });
    } else {
      expect(await refused(res, 409)).toBe('INVALID_STATE_TRANSITION');
      expect((await ok(await s.admin('GET', `${MARKET}/vendors/${v.id}`))).status).toBe(from);
    }
  });

  it('refuses an unknown status: 400', async () => {
    const v = await vendor(s, {}, 'pending');
    expect(await refused(await s.admin('PATCH', `${MARKET}/vendors/${v.id}/status`, { status: 'banned' }), 400)).toBe('VALIDATION_ERROR');
  });
});

describe('PATCH /marketplace/vendors/:id', () => {
  it('changes the fields sent, and refuses an e-mail another vendor has', async () => {
    const a = await vendor(s, {}, 'pending');
    const b = await vendor(s, {}, 'pending');
    const changed = await ok(await s.admin('PATCH', `${MARKET}/vendors/${a.id}`, { name: 'Awana SAC', default_commission_pct: 15.75, country_code: 'BO' }));
    expect(changed).toMatchObject({ name: 'Awana SAC', default_commission_pct: 15.75, country_code: 'BO', email: a.email, status: 'pending' });
    expect(await refused(await s.admin('PATCH', `${MARKET}/vendors/${a.id}`, { email: b.email }), 409)).toBe('VENDOR_ALREADY_EXISTS');
    expect(await refused(await s.admin('PATCH', `${MARKET}/vendors/${a.id}`, { status: 'active' }), 400)).toBe('VALIDATION_ERROR');
  });
});

describe('GET /marketplace/vendors', () => {
  it('lists newest first, filtered by status (status or filter[status]), in keyset pages', async () => {
    const shop = await store(t);
    const made = [];
    for (const status of ['pending', 'active', 'suspended', 'active', 'active'] as const) made.push(await vendor(shop, {}, status));
    const all = await shop.admin('GET', `${MARKET}/vendors`);
    expect((await ok(all)).map((v: { id: string }) => v.id)).toEqual(made.map((v) => v.id).reverse());
    const active = made.filter((v) => v.status === 'active').map((v) => v.id).reverse();
    expect((await ok(await shop.admin('GET', `${MARKET}/vendors?status=active`))).map((v: { id: string }) => v.id)).toEqual(active);
    expect((await ok(await shop.admin('GET', `${MARKET}/vendors?filter[status]=active`))).map((v: { id: string }) => v.id)).toEqual(active);
    const first = (await shop.admin('GET', `${MARKET}/vendors?status=active&limit=2`)).json();
    expect(first.meta.pagination).toMatchObject({ has_next: true, limit: 2 });
    const second = (await shop.admin('GET', `${MARKET}/vendors?status=active&limit=2&cursor=${first.meta.pagination.cursor}`)).json();
    expect([...first.data, ...second.data].map((v: { id: string }) => v.id)).toEqual(active);
    expect(second.meta.pagination).toMatchObject({ has_next: false, cursor: null });
    expect(await refused(await shop.admin('GET', `${MARKET}/vendors?status=banned`), 400)).toBe('VALIDATION_ERROR');
  });
});

describe('who may call', () => {
  it('needs an admin key (or staff with the permission): the storefront key is 403, no token 401', async () => {
    expect((await s.storefront('GET', `${MARKET}/vendors`)).statusCode).toBe(403);
    expect((await t.request({ method: 'GET', url: `${MARKET}/vendors`, headers: { 'x-tenant-id': s.tenant.id } })).statusCode).toBe(401);
  });
});
