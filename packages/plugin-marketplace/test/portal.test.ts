import type { TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, email, MARKET, marketApp, MISSING, offer, ok, outbox, PASSWORD, PORTAL, product, refused, signIn, store, vendor, type Store } from './helpers.js';

let t: TestApp;
let s: Store;
let other: Store;
beforeAll(async () => {
  t = await marketApp();
  s = await store(t);
  other = await store(t);
});
afterAll(async () => t?.close());

const as = (shop: Store, token: string) => caller(t, shop.tenant, token);

describe('POST /vendor/login', () => {
  it('gives a vendor token with its expiry and the vendor, with the storefront key (or the admin key) and X-Tenant-ID', async () => {
    const v = await vendor(s);
    const res = await s.storefront('POST', `${PORTAL}/login`, { email: v.email.toUpperCase(), password: PASSWORD });
    const session = await ok(res);
    expect(session).toMatchObject({ token: expect.stringMatching(/^qhv_/), vendor: { id: v.id, email: v.email, status: 'active', has_password: true } });
    expect(new Date(session.expires_at).getTime()).toBeGreaterThan(Date.now() + 6 * 24 * 3600_000);
    expect(JSON.stringify(session.vendor)).not.toMatch(/scrypt/);
    expect((await ok(await s.admin('POST', `${PORTAL}/login`, { email: v.email, password: PASSWORD }))).vendor.id).toBe(v.id);
    expect(await ok(await as(s, session.token)('GET', `${PORTAL}/me`))).toEqual(session.vendor);
  });

  it('is 401 for a wrong password, an unknown e-mail and a vendor without a password, all alike', async () => {
    const v = await vendor(s);
    const none = await vendor(s, { password: undefined });
    for (const body of [{ email: v.email, password: 'not the password' }, { email: email(), password: PASSWORD }, { email: none.email, password: PASSWORD }]) {
      const res = await s.storefront('POST', `${PORTAL}/login`, body);
      expect(await refused(res, 401)).toBe('UNAUTHENTICATED');
      expect(res.json().error.message).toBe('The e-mail or password is not correct');
    }
    expect(await refused(await s.storefront('POST', `${PORTAL}/login`, { email: v.email }), 400)).toBe('VALIDATION_ERROR');
  });

  it('refuses a suspended vendor (403 VENDOR_SUSPENDED, with the right password only); suspending signs the vendor out', async () => {
    const v = await vendor(s);
    const token = await signIn(s, v.email);
    await ok(await s.admin('PATCH', `${MARKET}/vendors/${v.id}/status`, { status: 'suspended' }));
    expect(await refused(await as(s, token)('GET', `${PORTAL}/me`), 401)).toBe('UNAUTHENTICATED');
    expect(await refused(await s.storefront('POST', `${PORTAL}/login`, { email: v.email, password: PASSWORD }), 403)).toBe('VENDOR_SUSPENDED');
    expect(await refused(await s.storefront('POST', `${PORTAL}/login`, { email: v.email, password: 'wrong one' }), 401)).toBe('UNAUTHENTICATED');
    // Reinstated, it signs in again with a new token.
    await ok(await s.admin('PATCH', `${MARKET}/vendors/${v.id}/status`, { status: 'active' }));
    expect((await ok(await as(s, await signIn(s, v.email))('GET', `${PORTAL}/me`))).status).toBe('active');
  });

  it("a pending vendor signs in (to see its profile) and a password set later opens the portal", async () => {
    const v = await vendor(s, { password: undefined }, 'pending');
    await ok(await s.admin('PATCH', `${MARKET}/vendors/${v.id}`, { password: 'nueva clave segura' }));
    expect((await ok(await as(s, await signIn(s, v.email, 'nueva clave segura'))('GET', `${PORTAL}/me`))).status).toBe('pending');
  });

  it("is another store's business: a vendor of one store cannot sign in to another", async () => {
    const v = await vendor(s);
    expect(await refused(await other.storefront('POST', `${PORTAL}/login`, { email: v.email, password: PASSWORD }), 401)).toBe('UNAUTHENTICATED');
  });
});

describe('the portal', () => {
  it('shows a vendor its own offers and lets it change their price and stock only', async () => {
    const mine = await vendor(s);
    const theirs = await vendor(s);
    const a = await offer(s, mine.id, (await product(s)).id, { price_override: 1000, stock: 3, commission_pct: 5 });
    const b = await offer(s, theirs.id, (await product(s)).id);
    const portal = as(s, await signIn(s, mine.email));
    expect((await ok(await portal('GET', `${PORTAL}/products`))).map((o: { id: string }) => o.id)).toEqual([a.id]);
    const changed = await ok(await portal('PATCH', `${PORTAL}/products/${a.id}`, { price_override: 1200, stock: 9 }));
    expect(changed).toMatchObject({ id: a.id, price_override: 1200, stock: 9, available: 9, commission_pct: 5 });
    expect((await outbox(t, 'marketplace.offer.updated', 'id', a.id))[0].data).toMatchObject({ price_override: 1200, stock: 9, changed: ['price_override', 'stock'] });
    expect((await ok(await portal('PATCH', `${PORTAL}/products/${a.id}`, { price_override: null }))).price_override).toBeNull();
    expect(await refused(await portal('PATCH', `${PORTAL}/products/${a.id}`, { commission_pct: 0 }), 400)).toBe('VALIDATION_ERROR');
    expect(await refused(await portal('PATCH', `${PORTAL}/products/${a.id}`, { vendor_id: theirs.id }), 400)).toBe('VALIDATION_ERROR');
    expect(await refused(await portal('PATCH', `${PORTAL}/products/${a.id}`, { stock: -1 }), 400)).toBe('VALIDATION_ERROR');
    // Another vendor's offer is as unknown as a missing one, and stays as it was.
    expect(await refused(await portal('PATCH', `${PORTAL}/products/${b.id}`, { stock: 0 }), 404)).toBe('VENDOR_PRODUCT_NOT_FOUND');
    expect(await refused(await portal('PATCH', `${PORTAL}/products/${MISSING}`, { stock: 0 }), 404)).toBe('VENDOR_PRODUCT_NOT_FOUND');
    expect((await ok(await s.admin('GET', `${MARKET}/vendors/${theirs.id}/products`)))[0]).toMatchObject({ stock: b.stock });
  });

  it("shows a vendor its own payouts only (none yet)", async () => {
    const v = await vendor(s);
    const portal = as(s, await signIn(s, v.email));
    const res = (await portal('GET', `${PORTAL}/payouts?status=pending`)).json();
    expect(res).toEqual({ data: [], meta: { pagination: { cursor: null, has_next: false, limit: 25 } } });
    expect(await refused(await portal('GET', `${PORTAL}/payouts?status=archived`), 400)).toBe('VALIDATION_ERROR');
  });

  it('keeps vendor tokens out of the admin API, and store keys and customers out of the portal', async () => {
    const v = await vendor(s);
    const portal = as(s, await signIn(s, v.email));
    expect(await refused(await portal('GET', `${MARKET}/vendors`), 403)).toBe('FORBIDDEN');
    expect(await refused(await portal('GET', `${MARKET}/vendors/${v.id}`), 403)).toBe('FORBIDDEN');
    expect(await refused(await portal('POST', `${MARKET}/vendor-products`, { vendor_id: v.id, catalog_product_id: MISSING, price_override: 1, stock: 1 }), 403)).toBe('FORBIDDEN');
    expect(await refused(await s.admin('GET', `${PORTAL}/me`), 403)).toBe('FORBIDDEN');
    expect(await refused(await s.storefront('GET', `${PORTAL}/products`), 403)).toBe('FORBIDDEN');
    expect(await refused(await t.request({ method: 'GET', url: `${PORTAL}/me`, headers: { 'x-tenant-id': s.tenant.id } }), 401)).toBe('UNAUTHENTICATED');
  });

  it("keeps stores apart: a vendor token with another store's X-Tenant-ID is refused, and the other store's offers are unknown", async () => {
    const v = await vendor(s);
    const token = await signIn(s, v.email);
    const foreign = await vendor(other);
    const foreignOffer = await offer(other, foreign.id, (await product(other)).id);
    const wrongStore = await t.request({ method: 'GET', url: `${PORTAL}/me`, headers: { authorization: `Bearer ${token}`, 'x-tenant-id': other.tenant.id } });
    expect([401, 403]).toContain(wrongStore.statusCode);
    expect(await refused(await as(s, token)('PATCH', `${PORTAL}/products/${foreignOffer.id}`, { stock: 0 }), 404)).toBe('VENDOR_PRODUCT_NOT_FOUND');
    expect((await ok(await other.admin('GET', `${MARKET}/vendors/${foreign.id}/products`)))[0].stock).toBe(foreignOffer.stock);
  });
});

describe('stock held by orders', () => {
  it('cannot be set below what unpaid orders hold: 422 STOCK_BELOW_RESERVED', async () => {
    const v = await vendor(s);
    const o = await offer(s, v.id, (await product(s)).id, { stock: 5 });
    await t.app.orm.em.getConnection().execute(`update marketplace_offer set reserved = 3 where id = ?`, [o.id]);
    const portal = as(s, await signIn(s, v.email));
    const res = await portal('PATCH', `${PORTAL}/products/${o.id}`, { stock: 2 });
    expect(await refused(res, 422)).toBe('STOCK_BELOW_RESERVED');
    expect((await ok(await portal('PATCH', `${PORTAL}/products/${o.id}`, { stock: 3 }))).available).toBe(0);
  });
});
