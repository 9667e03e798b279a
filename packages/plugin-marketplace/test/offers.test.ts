import type { TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MARKET, marketApp, MISSING, offer, ok, outbox, product, refused, store, vendor, type Store } from './helpers.js';

let t: TestApp;
let s: Store;
let other: Store;
beforeAll(async () => {
  t = await marketApp();
  s = await store(t);
  other = await store(t);
});
afterAll(async () => t?.close());

describe('POST /marketplace/vendor-products', () => {
  it("links a catalog product to an active vendor with its price, stock and commission; the vendor's products list it", async () => {
    const v = await vendor(s);
    const p = await product(s);
    const linked = await offer(s, v.id, p.id, { price_override: 4200, stock: 7, commission_pct: 8.5 });
    expect(linked).toMatchObject({ vendor_id: v.id, catalog_product_id: p.id, price_override: 4200, stock: 7, reserved: 0, available: 7, commission_pct: 8.5 });
    const plain = await offer(s, v.id, (await product(s)).id, { price_override: undefined, stock: 0 });
    expect(plain).toMatchObject({ price_override: null, commission_pct: null, stock: 0 });
    const listed = (await s.admin('GET', `${MARKET}/vendors/${v.id}/products`)).json();
    expect(listed.data.map((o: { id: string }) => o.id)).toEqual([plain.id, linked.id]);
    expect(listed.meta.pagination).toMatchObject({ has_next: false, cursor: null });
    expect((await outbox(t, 'marketplace.offer.linked', 'id', linked.id))[0].data).toMatchObject({ vendor_id: v.id, catalog_product_id: p.id, price_override: 4200, stock: 7 });
  });

  it('refuses the same pair twice: 409 PRODUCT_ALREADY_LINKED (another vendor may offer it)', async () => {
    const v = await vendor(s);
    const p = await product(s);
    await offer(s, v.id, p.id);
    expect(await refused(await s.admin('POST', `${MARKET}/vendor-products`, { vendor_id: v.id, catalog_product_id: p.id, price_override: 1, stock: 1 }), 409)).toBe('PRODUCT_ALREADY_LINKED');
    await offer(s, (await vendor(s)).id, p.id);
  });

  it('gives one link to concurrent requests for the same pair', async () => {
    const v = await vendor(s);
    const p = await product(s);
    const answers = await Promise.all(Array.from({ length: 3 }, () => s.admin('POST', `${MARKET}/vendor-products`, { vendor_id: v.id, catalog_product_id: p.id, price_override: 100, stock: 1 })));
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 409, 409]);
  });

  it('refuses a vendor that is not active: 422 VENDOR_NOT_ACTIVE (pending or suspended)', async () => {
    const p = await product(s);
    for (const status of ['pending', 'suspended'] as const) {
      const v = await vendor(s, {}, status);
      expect(await refused(await s.admin('POST', `${MARKET}/vendor-products`, { vendor_id: v.id, catalog_product_id: p.id, price_override: 1, stock: 1 }), 422)).toBe('VENDOR_NOT_ACTIVE');
    }
  });

  it("refuses an unknown or another store's vendor (404 VENDOR_NOT_FOUND) or product (422 PRODUCT_NOT_FOUND)", async () => {
    const v = await vendor(s);
    const theirs = await vendor(other);
    const p = await product(s);
    const theirProduct = await product(other);
    expect(await refused(await s.admin('POST', `${MARKET}/vendor-products`, { vendor_id: MISSING, catalog_product_id: p.id, price_override: 1, stock: 1 }), 404)).toBe('VENDOR_NOT_FOUND');
    expect(await refused(await s.admin('POST', `${MARKET}/vendor-products`, { vendor_id: theirs.id, catalog_product_id: p.id, price_override: 1, stock: 1 }), 404)).toBe('VENDOR_NOT_FOUND');
    expect(await refused(await s.admin('POST', `${MARKET}/vendor-products`, { vendor_id: v.id, catalog_product_id: theirProduct.id, price_override: 1, stock: 1 }), 422)).toBe('PRODUCT_NOT_FOUND');
  });

  it.each([
    ['a negative stock', { stock: -1 }],
    ['a fractional stock', { stock: 1.5 }],
    ['a negative price', { price_override: -5 }],
    ['a fractional price', { price_override: 10.5 }],
    ['a commission above 100', { commission_pct: 101 }],
    ['no stock', { stock: undefined }],
    ['a malformed vendor id', { vendor_id: 'abc' }],
  ])('refuses %s: 400', async (_, over) => {
    const v = await vendor(s);
    const p = await product(s);
    const res = await s.admin('POST', `${MARKET}/vendor-products`, { vendor_id: v.id, catalog_product_id: p.id, price_override: 100, stock: 1, ...over });
    expect(await refused(res, 400)).toBe('VALIDATION_ERROR');
  });
});

describe('DELETE /marketplace/vendor-products/:id', () => {
  it('unlinks (204): gone from the list, a second delete is 404, and the pair may be linked again', async () => {
    const v = await vendor(s);
    const p = await product(s);
    const linked = await offer(s, v.id, p.id);
    await ok(await s.admin('DELETE', `${MARKET}/vendor-products/${linked.id}`), 204);
    expect(await ok(await s.admin('GET', `${MARKET}/vendors/${v.id}/products`))).toEqual([]);
    expect(await refused(await s.admin('DELETE', `${MARKET}/vendor-products/${linked.id}`), 404)).toBe('VENDOR_PRODUCT_NOT_FOUND');
    expect((await outbox(t, 'marketplace.offer.unlinked', 'id', linked.id))).toHaveLength(1);
    await offer(s, v.id, p.id);
  });

  it("answers 404 for another store's offer and leaves it linked", async () => {
    const v = await vendor(other);
    const linked = await offer(other, v.id, (await product(other)).id);
    expect(await refused(await s.admin('DELETE', `${MARKET}/vendor-products/${linked.id}`), 404)).toBe('VENDOR_PRODUCT_NOT_FOUND');
    expect(await ok(await other.admin('GET', `${MARKET}/vendors/${v.id}/products`))).toHaveLength(1);
  });
});

describe('GET /marketplace/vendors/:id/products and /payouts', () => {
  it('answer 404 VENDOR_NOT_FOUND for an unknown vendor and pages with limit and cursor', async () => {
    expect(await refused(await s.admin('GET', `${MARKET}/vendors/${MISSING}/products`), 404)).toBe('VENDOR_NOT_FOUND');
    expect(await refused(await s.admin('GET', `${MARKET}/vendors/${MISSING}/payouts`), 404)).toBe('VENDOR_NOT_FOUND');
    const v = await vendor(s);
    const ids = [];
    for (let n = 0; n < 3; n++) ids.push((await offer(s, v.id, (await product(s)).id)).id);
    const first = (await s.admin('GET', `${MARKET}/vendors/${v.id}/products?limit=2`)).json();
    const second = (await s.admin('GET', `${MARKET}/vendors/${v.id}/products?limit=2&cursor=${first.meta.pagination.cursor}`)).json();
    expect([...first.data, ...second.data].map((o: { id: string }) => o.id)).toEqual(ids.reverse());
    expect(await ok(await s.admin('GET', `${MARKET}/vendors/${v.id}/payouts?status=pending`))).toEqual([]);
  });
});
