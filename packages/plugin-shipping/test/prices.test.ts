import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHIPPING_PRICES, ShippingPrices, type ShippingPrice, type ShippingPriceRequest } from '../src/index.js';
import { addRate, caller, CHECKOUT_CUSCO as CUSCO, CHECKOUT_LIMA as LIMA, inTenant, parcel, priceIn, priceRefusal, priceRequest, RATES, shippingApp } from './helpers.js';

/**
 * The store prices shipping: the checkout's shipping step asks `ShippingPrices` inside its own
 * transaction, whatever price the shopper sent. The rate table is kept through the HTTP API.
 */
let t: TestApp;
let shop: TestTenant;
let bare: TestTenant;
let rates: Record<string, string>;
beforeAll(async () => {
  t = await shippingApp();
  shop = await t.createTenant({ currency: 'PEN' });
  bare = await t.createTenant({ currency: 'PEN' });
  // The store sells in dollars too, at prices of its own (no rate: nothing is converted).
  const listed = await caller(t, shop)('PUT', '/api/v1/currencies', { currencies: [{ code: 'USD', rate: null }] });
  expect(listed.statusCode, listed.body).toBe(200);
  rates = {
    standard5: (await addRate(t, shop, { carrier: 'olva', service_code: 'standard', weight_g: 5000, amount: 1500 })).id,
    standard20: (await addRate(t, shop, { carrier: 'olva', service_code: 'standard', weight_g: 20_000, amount: 3000 })).id,
    express: (await addRate(t, shop, { carrier: 'olva', service_code: 'express', service_name: 'Olva Express', weight_g: 5000, amount: 2500, estimated_days: 1 })).id,
    dollars: (await addRate(t, shop, { carrier: 'olva', service_code: 'standard', weight_g: 5000, amount: 500, currency: 'USD' })).id,
    fromChile: (await addRate(t, shop, { carrier: 'olva', service_code: 'standard', weight_g: 5000, amount: 900, origin_country: 'CL' })).id,
  };
});
afterAll(async () => t?.close());

const request = priceRequest;

const priceFor = (tenant: TestTenant, req: ShippingPriceRequest) => priceIn(t, tenant, req);
const refusal = (tenant: TestTenant, req: ShippingPriceRequest) => priceRefusal(t, tenant, req);

describe('ShippingPrices.priceFor', () => {
  it("prices the chosen service at the rate table's price: the offer calculate showed", async () => {
    const offered = await caller(t, shop)('POST', `${RATES}/calculate`, parcel({ weight_g: 1200, currency: 'PEN' }));
    const standard = (offered.json() as Array<{ id: string; carrier: string; service_code: string; amount: number }>).find((r) => r.carrier === 'olva' && r.service_code === 'standard')!;
    expect(standard).toMatchObject({ id: rates.standard5, amount: 1500 });
    const price = await priceFor(shop, request());
    expect(price).toEqual({ priced: true, price: 1500, carrier: 'olva', service: 'standard', serviceName: 'Olva Estándar', estimatedDays: 3, source: 'table', rateId: rates.standard5 });
    expect(await priceFor(shop, request({ service: 'express' }))).toMatchObject({ price: 2500, rateId: rates.express, estimatedDays: 1 });
    expect(await priceFor(shop, request({ currency: 'USD' }))).toMatchObject({ price: 500, rateId: rates.dollars });
  });

  it('the tightest bracket that covers the billable weight (the volume counts when the sides are known)', async () => {
    expect(await priceFor(shop, request({ weightGrams: 5000 }))).toMatchObject({ price: 1500, rateId: rates.standard5 });
    expect(await priceFor(shop, request({ weightGrams: 5001 }))).toMatchObject({ price: 3000, rateId: rates.standard20 });
    // 50 × 40 × 30 cm: 12 kg by volume.
    expect(await priceFor(shop, request({ weightGrams: 900, dimensions: { lengthCm: 50, widthCm: 40, heightCm: 30 } }))).toMatchObject({ price: 3000 });
  });

  it('an unknown carrier, an unknown service, a route or parcel no rate covers: 422 naming the field', async () => {
    const nobody = await refusal(shop, request({ carrier: 'nobody', service: 'teleport' }));
    expect(nobody).toMatchObject({ status: 422, code: 'SHIPPING_CARRIER_UNKNOWN', details: [{ path: 'body.shipping_rate.carrier' }] });
    const teleport = await refusal(shop, request({ service: 'teleport' }));
    expect(teleport).toMatchObject({ status: 422, code: 'SHIPPING_SERVICE_UNKNOWN', details: [{ path: 'body.shipping_rate.service' }] });
    // Codes are compared as they are: the store's carrier is `olva`.
    expect((await refusal(shop, request({ carrier: 'OLVA' }))).code).toBe('SHIPPING_CARRIER_UNKNOWN');
    const abroad = await refusal(shop, request({ destination: { ...CUSCO, country_code: 'CL' } }));
    expect(abroad).toMatchObject({ status: 422, code: 'SHIPPING_RATE_NOT_FOUND', details: [{ path: 'body.shipping_rate', destination_country: 'CL', billable_weight_g: 1200, currency: 'PEN' }] });
    expect((await refusal(shop, request({ weightGrams: 20_001 }))).code).toBe('SHIPPING_RATE_NOT_FOUND');
    expect((await refusal(shop, request({ currency: 'EUR' }))).code).toBe('SHIPPING_RATE_NOT_FOUND');
    expect((await refusal(shop, request({ carrier: 'olva', service: 'express', origin: { ...LIMA, country_code: 'CL' } }))).code).toBe('SHIPPING_RATE_NOT_FOUND');
  });

  it('without an origin, the default warehouse is where parcels leave from', async () => {
    // No warehouse address yet: every origin's tightest bracket, the cheapest of them (from Chile, 900).
    expect(await priceFor(shop, request({ origin: undefined }))).toMatchObject({ price: 900, rateId: rates.fromChile });
    const admin = caller(t, shop);
    const made = await admin('POST', '/api/v1/inventory/warehouses', { name: 'Lima', code: 'LIM-01', address: { line1: 'Av. Argentina 1234', city: 'Lima', postal_code: '15001', country: 'PE' } });
    expect(made.statusCode, made.body).toBe(201);
    expect(made.json().data.is_default).toBe(true);
    expect(await priceFor(shop, request({ origin: undefined }))).toMatchObject({ price: 1500, rateId: rates.standard5 });
    expect(await priceFor(shop, request({ origin: { ...LIMA, country_code: 'CL' } }))).toMatchObject({ price: 900 });
  });

  it("a store without rates prices nothing: the client's price stands (any carrier)", async () => {
    expect(await priceFor(bare, request())).toEqual({ priced: false });
    expect(await priceFor(bare, request({ carrier: 'nobody', service: 'teleport' }))).toEqual({ priced: false });
  });

  it("runs in the caller's transaction, in one statement, and sees that store's rates only", async () => {
    const prices = t.app.container.resolve<ShippingPrices>(SHIPPING_PRICES);
    expect(prices).toBe(t.app.container.resolve(ShippingPrices));
    const rolledBack = new Error('roll back');
    let seen: ShippingPrice | undefined;
    await expect(
      inTenant(t, bare, async (tx) => {
        // A rate written in this transaction, not yet committed, is the one priced.
        await tx.query(
          `insert into shipping_rate (tenant_id, id, carrier, service_name, service_code, currency, amount, estimated_days, weight_g, origin_country, destination_country, created_at, updated_at)
           values (?, gen_random_uuid(), 'shalom', 'Shalom Eco', 'eco', 'PEN', 700, 4, 5000, 'PE', 'PE', now(), now())`,
          [bare.id],
        );
        const { result, count } = await t.countQueries(() => prices.priceFor(tx, request({ carrier: 'shalom', service: 'eco' })));
        expect(count).toBe(1);
        seen = result;
        throw rolledBack;
      }),
    ).rejects.toBe(rolledBack);
    expect(seen).toMatchObject({ priced: true, price: 700, source: 'table' });
    expect(await priceFor(bare, request({ carrier: 'shalom', service: 'eco' }))).toEqual({ priced: false });
    // The shop does not know the other store's carrier either.
    expect((await refusal(shop, request({ carrier: 'shalom', service: 'eco' }))).code).toBe('SHIPPING_CARRIER_UNKNOWN');
  });

  it('a malformed request is a VALIDATION_ERROR, not a price', async () => {
    const bad = await refusal(shop, request({ weightGrams: -1 }));
    expect(bad).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', details: [{ path: 'weightGrams' }] });
  });
});
