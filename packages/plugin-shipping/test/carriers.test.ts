import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ChaskiDouble, chaskiPlugin } from './fixtures/chaski.js';
import { addRate, caller, CHECKOUT_CUSCO, LIMA, parcel, priceIn, priceRefusal, priceRequest, RATES, SANTIAGO, shippingApp } from './helpers.js';

let t: TestApp;
let shop: TestTenant;
let chaski: ChaskiDouble;
let tableRate: string;
beforeAll(async () => {
  chaski = await new ChaskiDouble().start();
  t = await shippingApp({ plugins: [chaskiPlugin(chaski.url, chaski.apiKey)], env: { QHATU_SHIPPING_QUOTE_TIMEOUT_MS: '400' } });
  shop = await t.createTenant({ currency: 'PEN' });
  tableRate = (await addRate(t, shop, { carrier: 'olva', weight_g: 10_000, amount: 1000, estimated_days: 3 })).id;
});
afterAll(async () => {
  await t?.close();
  await chaski?.close();
});
beforeEach(() => {
  chaski.mode = 'ok';
  chaski.requests.length = 0;
});

type Rate = { id: string; carrier: string; service_code: string; amount: number; estimated_days: number; weight_g: number; source: string };
const calculate = async (body: unknown) => {
  const res = await caller(t, shop)('POST', `${RATES}/calculate`, body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Rate[];
};

describe('a carrier that quotes live', () => {
  it("is asked with the billable weight and the route; its quotes join the table's, cheapest first", async () => {
    // 50 × 40 × 30 cm = 60000 cm³ → 12000 g billable, over the 2000 g it weighs.
    const rates = await calculate(parcel({ weight_g: 2000, length_cm: 50, width_cm: 40, height_cm: 30 }));
    expect(chaski.requests).toHaveLength(1);
    expect(chaski.requests[0]).toMatchObject({
      path: '/v1/quotes',
      authorization: `Bearer ${chaski.apiKey}`,
      json: { from: { country: 'PE', postal_code: '15001' }, to: { country: 'PE', postal_code: '08002' }, parcel: { weight_grams: 12_000, length_cm: 50, width_cm: 40, height_cm: 30 } },
    });
    // The table's 10 kg bracket does not cover 12 kg; Chaski prices 12 kg: eco 800 + 600, 24h 1200 + 1200.
    expect(rates.map((r) => [r.carrier, r.service_code, r.amount, r.source])).toEqual([
      ['chaski', 'chaski_eco', 1400, 'live'],
      ['chaski', 'chaski_24h', 2400, 'live'],
    ]);
    expect(rates[0]).toMatchObject({ id: expect.any(String), tenant_id: shop.id, currency: 'PEN', estimated_days: 5, weight_g: 12_000, origin_country: 'PE', destination_country: 'PE', service_name: 'Chaski Económico' });
  });

  it('merged with the rate table: ties by estimated days', async () => {
    // 1 kg: table 1000 (3 days), Chaski eco 850 (5 days), 24h 1300 (1 day).
    const rates = await calculate(parcel({ weight_g: 1000 }));
    expect(rates.map((r) => [r.carrier, r.amount])).toEqual([['chaski', 850], ['olva', 1000], ['chaski', 1300]]);
    expect(rates.find((r) => r.carrier === 'olva')).toMatchObject({ id: tableRate, source: 'table', weight_g: 10_000 });
    await addRate(t, shop, { carrier: 'shalom', service_code: 'eco', weight_g: 5000, amount: 850, estimated_days: 2 });
    const tied = await calculate(parcel({ weight_g: 1000 }));
    expect(tied.slice(0, 2).map((r) => [r.carrier, r.amount, r.estimated_days])).toEqual([['shalom', 850, 2], ['chaski', 850, 5]]);
  });

  it('a route it does not serve: only the table answers', async () => {
    expect(await calculate(parcel({ origin_address: LIMA, destination_address: SANTIAGO }))).toEqual([]);
    expect(chaski.requests).toHaveLength(1);
  });

  it('a carrier that fails is left out; the table still answers', async () => {
    chaski.mode = 'error';
    const rates = await calculate(parcel({ weight_g: 1000 }));
    expect(chaski.requests).toHaveLength(1);
    expect(rates.every((r) => r.source === 'table')).toBe(true);
    expect(rates.map((r) => r.id)).toContain(tableRate);
  });

  it('a carrier that does not answer in time is left out', async () => {
    chaski.mode = 'slow';
    const rates = await calculate(parcel({ weight_g: 1000 }));
    expect(chaski.requests).toHaveLength(1);
    expect(rates.every((r) => r.source === 'table')).toBe(true);
    expect(rates.map((r) => r.id)).toContain(tableRate);
  });

  it("a quote no store could charge is dropped, the carrier's others kept", async () => {
    chaski.mode = 'junk';
    const rates = await calculate(parcel({ weight_g: 1000 }));
    expect(rates.map((r) => r.service_code)).not.toContain('chaski_free');
    expect(rates.filter((r) => r.carrier === 'chaski')).toHaveLength(2);
  });
});

describe('the store prices a live service at the carrier\'s quote', () => {
  const live = (over: Parameters<typeof priceRequest>[0] = {}) => priceRequest({ carrier: 'chaski', service: 'chaski_eco', weightGrams: 2000, ...over });

  it('a live service is priced at its quote now; a service of the table never asks the carrier', async () => {
    expect(await priceIn(t, shop, live())).toEqual({ priced: true, price: 900, carrier: 'chaski', service: 'chaski_eco', serviceName: 'Chaski Económico', estimatedDays: 5, source: 'live' });
    expect(chaski.requests[0].json).toMatchObject({ from: { country: 'PE', postal_code: '15001' }, to: { country: 'PE', postal_code: '08002' }, parcel: { weight_grams: 2000 }, currency: 'PEN' });
    expect(await priceIn(t, shop, live({ service: 'chaski_24h', dimensions: { lengthCm: 50, widthCm: 40, heightCm: 30 } }))).toMatchObject({ price: 2400 });
    chaski.requests.length = 0;
    expect(await priceIn(t, shop, priceRequest({ weightGrams: 2000 }))).toMatchObject({ price: 1000, source: 'table', rateId: tableRate });
    expect(chaski.requests).toHaveLength(0);
  });

  it('an unknown carrier or service is 422 once the carriers answered; a carrier down is 503', async () => {
    expect(await priceRefusal(t, shop, live({ carrier: 'nobody' }))).toMatchObject({ status: 422, code: 'SHIPPING_CARRIER_UNKNOWN' });
    expect(await priceRefusal(t, shop, live({ service: 'chaski_free' }))).toMatchObject({ status: 422, code: 'SHIPPING_SERVICE_UNKNOWN', details: [{ path: 'body.shipping_rate.service' }] });
    // Chaski serves Peru only: it answers nothing for Chile, so it is unknown there.
    expect((await priceRefusal(t, shop, live({ destination: { ...CHECKOUT_CUSCO, country_code: 'CL' } }))).code).toBe('SHIPPING_CARRIER_UNKNOWN');
    chaski.mode = 'error';
    expect(await priceRefusal(t, shop, live())).toMatchObject({ status: 503, code: 'SHIPPING_QUOTE_UNAVAILABLE' });
    chaski.mode = 'slow';
    expect(await priceRefusal(t, shop, live())).toMatchObject({ status: 503, code: 'SHIPPING_QUOTE_UNAVAILABLE' });
    // The table's own services do not wait for a carrier that is down.
    expect(await priceIn(t, shop, priceRequest())).toMatchObject({ price: 1000, source: 'table' });
  });

  it('without an origin the default warehouse is asked from; none with a country: 422 SHIPPING_ORIGIN_UNKNOWN', async () => {
    expect(await priceRefusal(t, shop, live({ origin: undefined }))).toMatchObject({ status: 422, code: 'SHIPPING_ORIGIN_UNKNOWN' });
    // A service of the table: what is missing is a rate for the route, whatever the origin.
    const abroad = priceRequest({ origin: undefined, destination: { ...CHECKOUT_CUSCO, country_code: 'CL' } });
    expect(await priceRefusal(t, shop, abroad)).toMatchObject({ status: 422, code: 'SHIPPING_RATE_NOT_FOUND' });
    const made = await caller(t, shop)('POST', '/api/v1/inventory/warehouses', { name: 'Arequipa', code: 'AQP-01', address: { line1: 'Calle Mercaderes 100', city: 'Arequipa', postal_code: '04001', country: 'PE' } });
    expect(made.statusCode, made.body).toBe(201);
    expect(await priceIn(t, shop, live({ origin: undefined }))).toMatchObject({ price: 900, source: 'live' });
    expect(chaski.requests.at(-1)!.json.from).toEqual({ country: 'PE', postal_code: '04001' });
  });
});
