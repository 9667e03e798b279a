import { Database } from '@qhatu/core';
import type { TestApp } from '@qhatu/core/testing';
import checkout from '@qhatu/plugin-checkout';
import discounts from '@qhatu/plugin-discounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PriceListResolver } from '../src/index.js';
import { B2B, b2bApp, caller, company, priceList, product, ruc, signUp, store, type Store } from './helpers.js';

/**
 * Price lists per currency (decision 0097): a store in soles that sells in dollars at 0.27. A list
 * prices carts and orders in its own currency only; in another, the buyer pays the catalog's price there.
 */
let t: TestApp;
let s: Store;
beforeAll(async () => {
  t = await b2bApp({ extra: [discounts, checkout] });
  s = await store(t);
  const set = await s.admin('PUT', '/api/v1/currencies', { currencies: [{ code: 'USD', rate: '0.27' }] });
  if (set.statusCode !== 200) throw new Error(`currencies not set: ${set.body}`);
});
afterAll(async () => t?.close());

const CARTS = '/api/v1/checkout/carts';

/** A company with a list of 25% off everything in `currency`, and a signed-in buyer of it. */
async function buyerWithList(currency: string) {
  const list = await priceList(s, [{ type: 'percentage', value: 25, applies_to: 'all' }], currency);
  const c = await company(s, { price_list_id: list });
  const buyer = await signUp(t, s);
  await s.admin('POST', `${B2B}/customers/${c.id}/buyers`, { customer_id: buyer.id });
  return { list, company: c, buyer, shopper: caller(t, s.tenant, buyer.token) };
}

/** The unit price a buyer's new cart in `currency` gives one unit of the variant. */
async function cartPrice(shopper: ReturnType<typeof caller>, currency: string, variantId: string): Promise<{ unit: number; currency: string }> {
  const made = await shopper('POST', CARTS, { currency });
  expect(made.statusCode, made.body).toBe(201);
  const added = await shopper('POST', `${CARTS}/${made.json().data.id}/items`, { variant_id: variantId, quantity: 1 });
  expect(added.statusCode, added.body).toBe(201);
  return { unit: added.json().data.line_items[0].unit_price, currency: added.json().data.currency };
}

describe('a price list’s currency', () => {
  it('is any of the store’s currencies: another is 422 CURRENCY_NOT_LISTED, nothing written', async () => {
    const usd = await s.admin('POST', `${B2B}/price-lists`, { name: 'Distribuidores USA', currency: 'USD' });
    expect(usd.statusCode, usd.body).toBe(201);
    expect(usd.json().data).toMatchObject({ currency: 'USD' });
    const before = (await s.admin('GET', `${B2B}/price-lists?limit=100`)).json().data.length;
    const gbp = await s.admin('POST', `${B2B}/price-lists`, { name: 'UK', currency: 'GBP' });
    expect(gbp.statusCode).toBe(422);
    expect(gbp.json().error).toMatchObject({ code: 'CURRENCY_NOT_LISTED', details: [{ path: 'body.currency', currency: 'GBP', currencies: ['PEN', 'USD'] }] });
    expect((await s.admin('GET', `${B2B}/price-lists?limit=100`)).json().data).toHaveLength(before);
  });

  it('a single-currency store takes its own currency only', async () => {
    const single = await store(t);
    expect((await single.admin('POST', `${B2B}/price-lists`, { name: 'Mayoristas', currency: 'PEN' })).statusCode).toBe(201);
    const usd = await single.admin('POST', `${B2B}/price-lists`, { name: 'Dólares', currency: 'USD' });
    expect(usd.json().error).toMatchObject({ code: 'CURRENCY_NOT_LISTED', details: [{ currencies: ['PEN'] }] });
  });
});

describe('the price resolver with the buyer’s currency', () => {
  it('applies a list to its own currency only, on the catalog’s price in it (set, or derived)', async () => {
    const derived = await product(s, 10000); // $27.00 by the rate
    const set = await product(s, 10000, { variant: { prices: [{ currency: 'USD', amount: 3000 }] } });
    const pen = await buyerWithList('PEN');
    const usd = await buyerWithList('USD');
    const resolver = t.app.container.resolve(PriceListResolver);
    const db = t.app.container.resolve(Database);
    const variants = [
      { id: derived.variantId, productId: derived.id, price: 10000, currency: 'PEN' },
      { id: set.variantId, productId: set.id, price: 10000, currency: 'PEN' },
    ];
    const prices = (customerId: string, currency?: string) =>
      db.tenant(async (tx) => [...(await resolver.resolve(tx, variants, { customerId, ...(currency && { currency }) })).values()], s.tenant.id);
    expect((await prices(pen.buyer.id, 'PEN')).map((p) => [p.currency, p.catalogPrice, p.price, p.priceListId])).toEqual([['PEN', 10000, 7500, pen.list], ['PEN', 10000, 7500, pen.list]]);
    expect((await prices(pen.buyer.id)).map((p) => p.price)).toEqual([7500, 7500]);
    expect((await prices(pen.buyer.id, 'USD')).map((p) => [p.currency, p.catalogPrice, p.price, p.priceListId])).toEqual([['USD', 2700, 2700, null], ['USD', 3000, 3000, null]]);
    expect((await prices(usd.buyer.id, 'USD')).map((p) => [p.currency, p.catalogPrice, p.price, p.priceListId])).toEqual([['USD', 2700, 2025, usd.list], ['USD', 3000, 2250, usd.list]]);
    expect((await prices(usd.buyer.id, 'PEN')).map((p) => [p.price, p.priceListId])).toEqual([[10000, null], [10000, null]]);
  });
});

describe('a buyer’s cart in each currency', () => {
  it('a list in soles gives nothing to the buyer’s dollar cart: the catalog price in dollars', async () => {
    const p = await product(s, 10000);
    const { shopper } = await buyerWithList('PEN');
    expect(await cartPrice(shopper, 'PEN', p.variantId)).toEqual({ unit: 7500, currency: 'PEN' });
    expect(await cartPrice(shopper, 'USD', p.variantId)).toEqual({ unit: 2700, currency: 'USD' });
  });

  it('a list in dollars prices the dollar cart, and leaves the soles cart at catalog prices', async () => {
    const p = await product(s, 10000, { variant: { prices: [{ currency: 'USD', amount: 3000 }] } });
    const { shopper } = await buyerWithList('USD');
    expect(await cartPrice(shopper, 'USD', p.variantId)).toEqual({ unit: 2250, currency: 'USD' });
    expect(await cartPrice(shopper, 'PEN', p.variantId)).toEqual({ unit: 10000, currency: 'PEN' });
  });

  it('another store’s buyer and list price nothing here', async () => {
    const other = await store(t);
    const p = await product(s, 10000);
    const list = await priceList(other, [{ type: 'percentage', value: 50, applies_to: 'all' }]);
    expect((await s.admin('POST', `${B2B}/customers`, { company_name: 'X S.A.C.', ruc: ruc(), email: 'x@x.pe', price_list_id: list })).json().error.code).toBe('PRICE_LIST_NOT_FOUND');
    const guest = caller(t, s.tenant, s.tenant.storefrontToken);
    expect(await cartPrice(guest, 'USD', p.variantId)).toEqual({ unit: 2700, currency: 'USD' });
  });
});
