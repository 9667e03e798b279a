import { randomInt, randomUUID } from 'node:crypto';
import type { TestApp } from '@qhatu/core/testing';
import b2b, { rucCheckDigit } from '@qhatu/plugin-b2b';
import checkout from '@qhatu/plugin-checkout';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import returns from '../src/index.js';
import { dollarOrder as dollarOrderOf, expectError, fulfilledOrder, linkedPage, newLines, ok, product, requestReturn, returnedAndRefunded, returnsApp, sellInDollars, shop, shopper, STORE, USD, type Caller, type Order, type Shop } from './helpers.js';

// An exchange's new items are priced for the order's customer in the order's currency through the
// catalog's price resolver, which the B2B plugin replaces with one that applies the company's price
// list (decisions 0097 and 0111). A list prices in its own currency only: on an order in another
// currency the buyer pays the catalog's price there, never the list's rules applied to it. The store
// sells in soles (18 % IGV added to its prices) and in US dollars at 0.27 per sol, rounded to the
// nearest cent, to its market `us` (Florida's 7 % added).
const B2B = '/api/v1/b2b';
let t: TestApp;
let s: Shop;
let zelle: string;

beforeAll(async () => {
  t = await returnsApp({ plugins: [...STORE.filter((p) => p !== returns), b2b, checkout, returns] });
  s = await shop(t, false);
  zelle = await sellInDollars(s);
});
afterAll(async () => t?.close());

const ruc = () => {
  const ten = `20${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
  return ten + rucCheckDigit(ten);
};

interface Buyer {
  id: string;
  email: string;
  api: Caller;
  list: string;
}

/** A signed-in customer who buys for a company whose price list, in `currency`, has `rules`. */
async function buyerWithList(currency: 'PEN' | 'USD', rules: Array<Record<string, unknown>>): Promise<Buyer> {
  const list = (await ok(await s.admin('POST', `${B2B}/price-lists`, { name: `Mayoristas ${currency}`, currency }), 201)).id as string;
  for (const rule of rules) await ok(await s.admin('POST', `${B2B}/price-lists/${list}/rules`, rule), 201);
  const company = await ok(await s.admin('POST', `${B2B}/customers`, { company_name: 'Andes Distribuciones S.A.C.', ruc: ruc(), email: `compras-${randomUUID().slice(0, 6)}@andes.pe`, price_list_id: list }), 201);
  expect(company).toMatchObject({ status: 'active', price_list_id: list });
  const customer = await shopper(t, s);
  await ok(await s.admin('POST', `${B2B}/customers/${company.id}/buyers`, { customer_id: customer.id }), 201);
  return { id: customer.id, email: customer.email, api: customer.api, list };
}

/** One unit of `variantId` placed by staff for the buyer as a draft order in soles, paid and fulfilled; the order. */
async function solesOrder(buyer: Buyer, variantId: string): Promise<Order> {
  return fulfilledOrder(t, s, { customer_id: buyer.id, email: buyer.email, line_items: [{ variant_id: variantId, quantity: 1 }] });
}

/** One unit of `variantId` checked out by the signed-in buyer in the market `us`, shipped to Miami, paid in dollars and fulfilled; the order. */
async function dollarOrder(buyer: Buyer, variantId: string): Promise<Order> {
  const fulfilled = await dollarOrderOf(t, s, buyer.api, zelle, buyer.email, variantId);
  expect(fulfilled).toMatchObject({ status: 'fulfilled', currency: 'USD', customer_id: buyer.id });
  return fulfilled;
}

/** The unit price of one unit of `variantId` in a new cart of the buyer's in `currency`. */
async function cartPrice(buyer: Buyer, currency: string, variantId: string): Promise<number> {
  const cart = await ok(await buyer.api('POST', '/api/v1/checkout/carts', { currency }), 201);
  const added = await ok(await buyer.api('POST', `/api/v1/checkout/carts/${cart.id}/items`, { variant_id: variantId, quantity: 1 }), 201);
  expect(added.currency).toBe(currency);
  return added.line_items[0].unit_price;
}

const exchangeOf = (o: Order, newItems: Array<{ variant_id: string; quantity: number }>) => ({
  order_id: o.id, kind: 'exchange', lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }], new_items: newItems,
});


describe('an exchange for a buyer whose company’s price list is in the order’s currency', () => {
  it('on an order in soles prices the new items through the list in soles, rule by rule, under the catalog’s price, and asks for the difference in soles', async () => {
    const poncho = await product(s, 12_000, 5);
    const chullo = await product(s, 5000, 5);
    const scarf = await product(s, 4000, 5);
    // 10.00 off the chullo, 25 % off anything else.
    const buyer = await buyerWithList('PEN', [
      { type: 'fixed', value: 1000, applies_to: 'product', product_id: chullo.productId },
      { type: 'percentage', value: 25, applies_to: 'all' },
    ]);
    const o = await solesOrder(buyer, poncho.variantId);
    // The poncho was bought through the list too: 120.00 less 25 %, 18 % added.
    expect(o).toMatchObject({ currency: 'PEN', customer_id: buyer.id, prices_include_tax: false });
    expect(o.line_items[0]).toMatchObject({ unit_price_amount: 9000, tax_amount: 1620 });

    // The buyer asks, signed in.
    const asked = await requestReturn(buyer.api, exchangeOf(o, [{ variant_id: chullo.variantId, quantity: 1 }, { variant_id: scarf.variantId, quantity: 2 }]));
    // Chullo: 50.00 − 10.00 = 40.00 + 7.20; scarves: 2 × (40.00 − 25 %) = 60.00 + 10.80.
    expect(asked).toMatchObject({ kind: 'exchange', currency: 'PEN', requested_by: 'customer', new_items_amount: 4720 + 7080 });
    expect(newLines(asked)).toEqual([[chullo.variantId, 4000, 720, 4720], [scarf.variantId, 3000, 1080, 7080]]);
    const catalog = await ok(await s.admin('GET', `/api/v1/catalog/products/${scarf.productId}`), 200);
    expect(catalog.variants[0]).toMatchObject({ price: 4000, currency: 'PEN' });

    // Asked by staff for the buyer's order, the prices are the same.
    await ok(await s.admin('POST', `/api/v1/returns/${asked.id}/cancel`), 200);
    const byStaff = await requestReturn(s.admin, exchangeOf(o, [{ variant_id: chullo.variantId, quantity: 1 }, { variant_id: scarf.variantId, quantity: 2 }]));
    expect(byStaff).toMatchObject({ requested_by: 'staff', new_items_amount: 11_800 });
    expect(newLines(byStaff)).toEqual(newLines(asked));

    // The poncho is worth 106.20 back, the new items 118.00: 11.80 to pay, in soles.
    const approved = await ok(await s.admin('POST', `/api/v1/returns/${byStaff.id}/approve`), 200);
    expect(approved).toMatchObject({ status: 'approved', currency: 'PEN', amount_due: 11_800 - 10_620, payment_url: expect.stringContaining('token=') });
    expect(await linkedPage(t, approved.payment_url)).toMatchObject({ return_id: byStaff.id, currency: 'PEN', amount_due: 1180 });
  });

  it('on an order in dollars prices the new items through the list in dollars, on the explicit and the derived dollar price, and refunds the difference in dollars', async () => {
    const poncho = await product(s, 11_800, 5, { prices: [{ currency: 'USD', amount: 4000 }] });
    // S/ 50.00, set at $16.00; S/ 40.00 derived at $10.80.
    const chullo = await product(s, 5000, 5, { prices: [{ currency: 'USD', amount: 1600 }] });
    const scarf = await product(s, 4000, 5);
    const buyer = await buyerWithList('USD', [{ type: 'percentage', value: 25, applies_to: 'all' }]);
    const o = await dollarOrder(buyer, poncho.variantId);
    // $40.00 less 25 % = $30.00, with Florida's 7 %: $2.10.
    expect(o.line_items[0]).toMatchObject({ unit_price_amount: 3000, tax_amount: 210 });

    const asked = await requestReturn(s.admin, exchangeOf(o, [{ variant_id: chullo.variantId, quantity: 1 }, { variant_id: scarf.variantId, quantity: 1 }]));
    // $16.00 − 25 % = $12.00 + $0.84; $10.80 − 25 % = $8.10 + $0.57 ($0.567).
    expect(asked).toMatchObject({ currency: 'USD', new_items_amount: 1284 + 867 });
    expect(newLines(asked)).toEqual([[chullo.variantId, 1200, 84, 1284], [scarf.variantId, 810, 57, 867]]);

    // The poncho is worth $32.10 back, the new items $21.51: $10.59 refunded through the dollar payment.
    const refunded = await returnedAndRefunded(s, asked);
    expect(refunded).toMatchObject({ status: 'refunded', currency: 'USD', items_amount: 3210, refund_amount: 3210 - 2151 });
    await t.settle();
    expect(await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200)).toMatchObject({ currency: 'USD', amount_refunded: 1059 });
  });
});

describe('an exchange for a buyer whose company’s price list is in another currency than the order’s', () => {
  it('a list in dollars leaves an order in soles at the catalog’s soles prices, and the difference is asked for in soles', async () => {
    const poncho = await product(s, 4000, 5);
    // S/ 100.00, and $30.00 explicitly: the list would make it $22.50, which is nothing in soles.
    const chullo = await product(s, 10_000, 5, { prices: [{ currency: 'USD', amount: 3000 }] });
    const buyer = await buyerWithList('USD', [{ type: 'percentage', value: 25, applies_to: 'all' }]);
    // The list does price the buyer's dollars.
    expect(await cartPrice(buyer, 'USD', chullo.variantId)).toBe(2250);
    expect(await cartPrice(buyer, 'PEN', chullo.variantId)).toBe(10_000);
    const o = await solesOrder(buyer, poncho.variantId);
    expect(o).toMatchObject({ currency: 'PEN', customer_id: buyer.id });
    expect(o.line_items[0]).toMatchObject({ unit_price_amount: 4000, tax_amount: 720 });

    const asked = await requestReturn(buyer.api, exchangeOf(o, [{ variant_id: chullo.variantId, quantity: 1 }]));
    // S/ 100.00 + 18 %: not 75.00 (25 % off in soles), nor 30.00 or 22.50 (the dollar amounts) taken as soles.
    expect(asked).toMatchObject({ currency: 'PEN', new_items_amount: 11_800 });
    expect(newLines(asked)).toEqual([[chullo.variantId, 10_000, 1800, 11_800]]);

    // The poncho is worth 47.20 back: 70.80 to pay, in soles; once paid, nothing is refunded.
    const approved = await ok(await s.admin('POST', `/api/v1/returns/${asked.id}/approve`), 200);
    expect(approved).toMatchObject({ status: 'approved', currency: 'PEN', amount_due: 11_800 - 4720 });
    expect(await linkedPage(t, approved.payment_url)).toMatchObject({ return_id: asked.id, currency: 'PEN', amount_due: 7080 });
    expect(await ok(await s.admin('POST', `/api/v1/returns/${asked.id}/payments`, { amount: 7080, reference: 'Yape 456' }), 200)).toMatchObject({ amount_due: 0, amount_paid: 7080 });
    await ok(await s.admin('POST', `/api/v1/returns/${asked.id}/receive`, { lines: [{ line_id: asked.lines[0].id, quantity: 1 }] }), 200);
    expect(await ok(await s.admin('POST', `/api/v1/returns/${asked.id}/refund`, {}), 200)).toMatchObject({ status: 'refunded', items_amount: 4720, refund_amount: 0, refunds: [] });
  });

  it('a list in soles leaves an order in dollars at the catalog’s dollar prices, explicit or derived, and the difference is refunded in dollars', async () => {
    const poncho = await product(s, 11_800, 5, { prices: [{ currency: 'USD', amount: 4000 }] });
    const chullo = await product(s, 5000, 5, { prices: [{ currency: 'USD', amount: 1600 }] });
    const scarf = await product(s, 4000, 5);
    const buyer = await buyerWithList('PEN', [{ type: 'percentage', value: 25, applies_to: 'all' }]);
    expect(await cartPrice(buyer, 'PEN', scarf.variantId)).toBe(3000);
    const o = await dollarOrder(buyer, poncho.variantId);
    // $40.00, not 25 % off: the list is in soles.
    expect(o.line_items[0]).toMatchObject({ unit_price_amount: 4000, tax_amount: 280 });

    const asked = await requestReturn(buyer.api, exchangeOf(o, [{ variant_id: chullo.variantId, quantity: 1 }, { variant_id: scarf.variantId, quantity: 1 }]));
    // $16.00 + $1.12; S/ 40.00 × 0.27 = $10.80 + $0.76 ($0.756).
    expect(asked).toMatchObject({ currency: 'USD', requested_by: 'customer', new_items_amount: 1712 + 1156 });
    expect(newLines(asked)).toEqual([[chullo.variantId, 1600, 112, 1712], [scarf.variantId, 1080, 76, 1156]]);

    // The poncho is worth $42.80 back, the new items $28.68: $14.12 refunded through the dollar payment.
    const refunded = await returnedAndRefunded(s, asked);
    expect(refunded).toMatchObject({ status: 'refunded', currency: 'USD', items_amount: 4280, refund_amount: 4280 - 2868 });
    await t.settle();
    expect(await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200)).toMatchObject({ currency: 'USD', amount_refunded: 1412 });
  });
});

describe('a new item with no price in the order’s currency', () => {
  it('is refused with 422 VARIANT_CURRENCY_MISMATCH for a buyer with a list in that currency, and no return is written', async () => {
    const poncho = await product(s, 11_800, 5, { prices: [{ currency: 'USD', amount: 4000 }] });
    const chullo = await product(s, 5000, 5, { prices: [{ currency: 'USD', amount: 1600 }] });
    const beret = await product(s, 4000, 5);
    const buyer = await buyerWithList('USD', [{ type: 'percentage', value: 25, applies_to: 'all' }]);
    const o = await dollarOrder(buyer, poncho.variantId);
    try {
      // Without a rate the store sells in dollars only what has a dollar price: the beret has none, and the list cannot give it one.
      await ok(await s.admin('PUT', '/api/v1/currencies', { currencies: [{ code: 'USD', rate: null }] }), 200);
      const refused = expectError(
        await buyer.api('POST', '/api/v1/returns', { reason_code: 'wrong_size', ...exchangeOf(o, [{ variant_id: chullo.variantId, quantity: 1 }, { variant_id: beret.variantId, quantity: 1 }]) }),
        422, 'VARIANT_CURRENCY_MISMATCH',
      );
      expect(refused.details).toEqual([{ path: 'body.new_items.1', code: 'VARIANT_CURRENCY_MISMATCH', message: "has no price in the order's USD", variant_id: beret.variantId }]);
      expect(await ok(await s.admin('GET', `/api/v1/returns?filter[order_id]=${o.id}`), 200)).toEqual([]);
      expect(await ok(await buyer.api('GET', '/api/v1/returns'), 200)).toEqual([]);

      // Without the beret the exchange is taken, the chullo at the list's price on its dollar price.
      const asked = await requestReturn(buyer.api, exchangeOf(o, [{ variant_id: chullo.variantId, quantity: 1 }]));
      expect(newLines(asked)).toEqual([[chullo.variantId, 1200, 84, 1284]]);
      expect(await ok(await s.admin('GET', `/api/v1/returns?filter[order_id]=${o.id}`), 200)).toEqual([expect.objectContaining({ id: asked.id })]);
    } finally {
      await ok(await s.admin('PUT', '/api/v1/currencies', { currencies: [USD] }), 200);
    }
  });
});
