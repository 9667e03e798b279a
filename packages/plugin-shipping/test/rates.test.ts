import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addRate, caller, CUSCO, LIMA, MISSING, parcel, rate, RATES, SANTIAGO, shippingApp } from './helpers.js';

let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
beforeAll(async () => {
  t = await shippingApp();
  shop = await t.createTenant({ currency: 'PEN' });
  other = await t.createTenant({ currency: 'PEN' });
});
afterAll(async () => t?.close());

const admin = () => caller(t, shop);
const calculate = (body: unknown, tenant = shop, token?: string) => caller(t, tenant, token)('POST', `${RATES}/calculate`, body);

describe('the rate table', () => {
  it('POST adds a rate with the fields of the specification', async () => {
    const res = await admin()('POST', RATES, rate({ origin_country: 'pe', destination_country: 'cl', carrier: 'DHL', service_code: 'EXPRESS_WW' }));
    expect(res.statusCode, res.body).toBe(201);
    const data = res.json().data;
    expect(data).toEqual({
      id: expect.any(String),
      tenant_id: shop.id,
      carrier: 'DHL',
      service_name: 'Olva Estándar',
      service_code: 'EXPRESS_WW',
      currency: 'PEN',
      amount: 1500,
      estimated_days: 3,
      weight_g: 5000,
      origin_country: 'PE',
      destination_country: 'CL',
      source: 'table',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const read = await admin()('GET', `${RATES}/${data.id}`);
    expect(read.json().data).toEqual(data);
  });

  it('refuses what is not a rate, field by field (400 VALIDATION_ERROR)', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ origin_country: 'XX' }, 'body.origin_country'],
      [{ destination_country: 'PER' }, 'body.destination_country'],
      [{ amount: -1 }, 'body.amount'],
      [{ amount: 10.5 }, 'body.amount'],
      [{ weight_g: 0 }, 'body.weight_g'],
      [{ estimated_days: -2 }, 'body.estimated_days'],
      [{ currency: 'soles' }, 'body.currency'],
      [{ carrier: '' }, 'body.carrier'],
      [{ service_code: 'has space' }, 'body.service_code'],
      [{ unknown_field: 1 }, 'body'],
    ];
    for (const [over, path] of cases) {
      const res = await admin()('POST', RATES, rate(over));
      expect(res.statusCode, JSON.stringify(over)).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
      expect(JSON.stringify(res.json().error.details)).toContain(path.replace('body.', ''));
    }
    const { service_name: _, ...missing } = rate();
    const res = await admin()('POST', RATES, missing);
    expect(res.statusCode).toBe(400);
    expect(JSON.stringify(res.json().error.details)).toContain('service_name');
  });

  it('one price per service, route, currency and weight: the same bracket again is a 409', async () => {
    const body = rate({ carrier: 'serpost', weight_g: 2000 });
    expect((await admin()('POST', RATES, body)).statusCode).toBe(201);
    const again = await admin()('POST', RATES, { ...body, amount: 999 });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('SHIPPING_RATE_EXISTS');
    // Another bracket of the same service is fine.
    expect((await admin()('POST', RATES, { ...body, weight_g: 3000 })).statusCode).toBe(201);
  });

  it('GET lists newest first, a page at a time, filtered by carrier and countries', async () => {
    const store = await t.createTenant({ currency: 'PEN' });
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await addRate(t, store, { carrier: i % 2 ? 'olva' : 'shalom', weight_g: 1000 * (i + 1), destination_country: i === 4 ? 'CL' : 'PE' }));
    const list = caller(t, store);
    const first = await list('GET', `${RATES}?limit=2`);
    expect(first.statusCode).toBe(200);
    expect(first.json().data.map((r: { id: string }) => r.id)).toEqual([made[4].id, made[3].id]);
    expect(first.json().meta.pagination).toMatchObject({ has_next: true, limit: 2 });
    const second = await list('GET', `${RATES}?limit=2&cursor=${first.json().meta.pagination.cursor}`);
    expect(second.json().data.map((r: { id: string }) => r.id)).toEqual([made[2].id, made[1].id]);
    const third = await list('GET', `${RATES}?limit=2&cursor=${second.json().meta.pagination.cursor}`);
    expect(third.json().data.map((r: { id: string }) => r.id)).toEqual([made[0].id]);
    expect(third.json().meta.pagination).toMatchObject({ cursor: null, has_next: false });
    const olva = await list('GET', `${RATES}?filter[carrier]=olva`);
    expect(olva.json().data.map((r: { id: string }) => r.id)).toEqual([made[3].id, made[1].id]);
    const chile = await list('GET', `${RATES}?filter[destination_country]=CL&filter[origin_country]=PE`);
    expect(chile.json().data.map((r: { id: string }) => r.id)).toEqual([made[4].id]);
    expect((await list('GET', `${RATES}?filter[destination_country]=ZZ`)).statusCode).toBe(400);
    expect((await list('GET', `${RATES}?filter[weight]=1`)).statusCode).toBe(400);
  });

  it('DELETE removes a rate (204), then it is gone (404)', async () => {
    const made = await addRate(t, shop, { carrier: 'to-delete' });
    const res = await admin()('DELETE', `${RATES}/${made.id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    const again = await admin()('DELETE', `${RATES}/${made.id}`);
    expect(again.statusCode).toBe(404);
    expect(again.json().error.code).toBe('SHIPPING_RATE_NOT_FOUND');
    expect((await admin()('GET', `${RATES}/${made.id}`)).statusCode).toBe(404);
    expect((await admin()('DELETE', `${RATES}/not-a-uuid`)).statusCode).toBe(400);
  });

  it('is the admin\'s: a storefront key may not change or list it, no token is a 401', async () => {
    const storefront = caller(t, shop, shop.storefrontToken);
    expect((await storefront('POST', RATES, rate({ carrier: 'x' }))).statusCode).toBe(403);
    expect((await storefront('GET', RATES)).statusCode).toBe(403);
    const anonymous = await t.request({ method: 'GET', url: RATES, headers: { 'x-tenant-id': shop.id } });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().error.code).toBe('UNAUTHENTICATED');
  });
});

describe('calculate', () => {
  let store: TestTenant;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    store = await t.createTenant({ currency: 'PEN' });
    // The store sells in dollars too, at prices of its own (no rate: nothing is converted).
    const listed = await caller(t, store)('PUT', '/api/v1/currencies', { currencies: [{ code: 'USD', rate: null }] });
    expect(listed.statusCode, listed.body).toBe(200);
    // Domestic brackets of two carriers, one international rate, one in another currency.
    ids.olva1 = (await addRate(t, store, { carrier: 'olva', service_code: 'standard', weight_g: 1000, amount: 1000, estimated_days: 3 })).id;
    ids.olva5 = (await addRate(t, store, { carrier: 'olva', service_code: 'standard', weight_g: 5000, amount: 1800, estimated_days: 3 })).id;
    ids.olva20 = (await addRate(t, store, { carrier: 'olva', service_code: 'standard', weight_g: 20000, amount: 4000, estimated_days: 4 })).id;
    ids.shalom2 = (await addRate(t, store, { carrier: 'shalom', service_name: 'Shalom Express', service_code: 'express', weight_g: 2000, amount: 1000, estimated_days: 1 })).id;
    ids.shalom10 = (await addRate(t, store, { carrier: 'shalom', service_name: 'Shalom Express', service_code: 'express', weight_g: 10000, amount: 2500, estimated_days: 1 })).id;
    ids.usd = (await addRate(t, store, { carrier: 'dhl', service_name: 'DHL Domestic', service_code: 'dom', currency: 'USD', weight_g: 3000, amount: 1200, estimated_days: 2 })).id;
    ids.chile = (await addRate(t, store, { carrier: 'olva', service_code: 'intl', destination_country: 'CL', weight_g: 30000, amount: 9000, estimated_days: 7 })).id;
  });
  const run = async (body: unknown) => {
    const res = await calculate(body, store);
    expect(res.statusCode, res.body).toBe(200);
    expect(Array.isArray(res.json())).toBe(true);
    return res.json() as Array<{ id: string; amount: number; estimated_days: number; weight_g: number; source: string }>;
  };

  it('answers a bare array of the route\'s rates that cover the parcel, cheapest first, ties by estimated days', async () => {
    const rates = await run(parcel({ weight_g: 900 }));
    // 1000 (olva, 3 days) and 1000 (shalom, 1 day): the faster first; then DHL in USD.
    expect(rates.map((r) => r.id)).toEqual([ids.shalom2, ids.olva1, ids.usd]);
    expect(rates[0]).toMatchObject({ carrier: 'shalom', service_code: 'express', amount: 1000, estimated_days: 1, weight_g: 2000, origin_country: 'PE', destination_country: 'PE', tenant_id: store.id, source: 'table' });
  });

  it('a weight exactly at a rate\'s weight_g is covered; one gram more is not', async () => {
    expect((await run(parcel({ weight_g: 1000 }))).map((r) => r.id)).toContain(ids.olva1);
    const over = (await run(parcel({ weight_g: 1001 }))).map((r) => r.id);
    expect(over).not.toContain(ids.olva1);
    // The next bracket of the same service takes it.
    expect(over).toEqual([ids.shalom2, ids.usd, ids.olva5]);
  });

  it('of one service, only the tightest bracket that covers the parcel', async () => {
    const rates = (await run(parcel({ weight_g: 4000 }))).map((r) => r.id);
    expect(rates).toEqual([ids.olva5, ids.shalom10]);
  });

  it('the billable weight is the volumetric one when it is larger (L × W × H ÷ 5000 cm³/kg)', async () => {
    // 40 × 30 × 10 cm = 12000 cm³ → 2400 g, above the 500 g it weighs.
    const rates = await run(parcel({ weight_g: 500, length_cm: 40, width_cm: 30, height_cm: 10 }));
    expect(rates.map((r) => r.id)).toEqual([ids.usd, ids.olva5, ids.shalom10]);
    // 2000 g exactly (40 × 25 × 10 cm): the 2 kg bracket still covers it.
    expect((await run(parcel({ weight_g: 500, length_cm: 40, width_cm: 25, height_cm: 10 }))).map((r) => r.id)).toEqual([ids.shalom2, ids.usd, ids.olva5]);
    // The actual weight when it is the larger.
    expect((await run(parcel({ weight_g: 6000, length_cm: 10, width_cm: 10, height_cm: 10 }))).map((r) => r.id)).toEqual([ids.shalom10, ids.olva20]);
  });

  it('no rate for the route or the weight: an empty array', async () => {
    expect(await run(parcel({ destination_address: { ...SANTIAGO, country: 'AR' } }))).toEqual([]);
    expect(await run(parcel({ weight_g: 20_001 }))).toEqual([]);
    // The route has a direction: Chile to Peru is not Peru to Chile.
    expect(await run(parcel({ origin_address: SANTIAGO, destination_address: CUSCO }))).toEqual([]);
    expect((await run(parcel({ origin_address: LIMA, destination_address: SANTIAGO }))).map((r) => r.id)).toEqual([ids.chile]);
  });

  it('currency narrows the answer to one currency', async () => {
    expect((await run(parcel({ weight_g: 900, currency: 'USD' }))).map((r) => r.id)).toEqual([ids.usd]);
    expect(await run(parcel({ weight_g: 900, currency: 'EUR' }))).toEqual([]);
  });

  it('storefront keys may calculate (checkout asks it)', async () => {
    const res = await calculate(parcel({ weight_g: 900 }), store, store.storefrontToken);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toHaveLength(3);
  });

  it('refuses a parcel or an address that is not one (400 with the failing field)', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ weight_g: 0 }, 'weight_g'],
      [{ length_cm: 1.5 }, 'length_cm'],
      [{ height_cm: undefined }, 'height_cm'],
      [{ destination_address: { ...CUSCO, country: 'XX' } }, 'destination_address.country'],
      [{ destination_address: { ...CUSCO, name: '' } }, 'destination_address.name'],
      [{ origin_address: { ...LIMA, line1: undefined } }, 'origin_address.line1'],
      [{ origin_address: { ...LIMA, postal_code: undefined } }, 'origin_address.postal_code'],
      [{ origin_address: { ...LIMA, city: '   ' } }, 'origin_address.city'],
    ];
    for (const [over, field] of cases) {
      const res = await calculate(parcel(over), store);
      expect(res.statusCode, JSON.stringify(over)).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
      expect(res.json().error.details.map((d: { path: string }) => d.path).join(' '), JSON.stringify(over)).toContain(field);
    }
  });

  it('runs in one read-only transaction: three statements', async () => {
    const { result, count } = await t.countQueries(() => calculate(parcel({ weight_g: 900 }), store));
    expect(result.statusCode).toBe(200);
    expect(count).toBeLessThanOrEqual(3);
  });
});

describe('tenant isolation', () => {
  it("another store's rates are never quoted, read or deleted", async () => {
    const theirs = await addRate(t, other, { carrier: 'their-carrier', amount: 1 });
    const mine = await calculate(parcel({ weight_g: 100 }));
    expect(mine.json().map((r: { carrier: string }) => r.carrier)).not.toContain('their-carrier');
    expect((await calculate(parcel({ weight_g: 100 }), other)).json().map((r: { id: string }) => r.id)).toEqual([theirs.id]);
    expect((await admin()('GET', `${RATES}/${theirs.id}`)).statusCode).toBe(404);
    expect((await admin()('DELETE', `${RATES}/${theirs.id}`)).statusCode).toBe(404);
    expect((await admin()('GET', `${RATES}?limit=100`)).json().data.map((r: { id: string }) => r.id)).not.toContain(theirs.id);
    expect((await caller(t, other)('GET', `${RATES}/${theirs.id}`)).statusCode).toBe(200);
  });

  it('a token of one store with the id of another is refused', async () => {
    const res = await t.request({ method: 'GET', url: RATES, headers: { ...shop.headers(), 'x-tenant-id': other.id } });
    expect([401, 403]).toContain(res.statusCode);
  });

  it('an unknown id is a 404', async () => {
    expect((await admin()('GET', `${RATES}/${MISSING}`)).json().error.code).toBe('SHIPPING_RATE_NOT_FOUND');
  });
});
