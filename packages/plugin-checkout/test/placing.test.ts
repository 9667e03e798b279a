import pg from 'pg';
import { answersMatch, dataOf } from '@qhatu/core';
import { createTestApp, type TestApp, type TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fullStore from '../../../starters/full-store/qhatu.config.js';
import { CheckoutOut } from '../src/schemas/checkout.js';
import { ADDRESS, addItem, caller, CARTS, CHECKOUTS, createCart, createCoupon, createProduct, RATE, type Caller } from './helpers.js';

// The checkout's path to a placed order in the full store (every plugin installed, as the
// benchmark runs it): what it costs in statements, and order numbers when shoppers check out of
// one store at once (decisions 0080 and 0081).
let t: TestApp;
let shop: TestTenant;
let admin: Caller;
let store: Caller;
let variants: string[];
beforeAll(async () => {
  t = await createTestApp({ plugins: fullStore.plugins });
  shop = await t.createTenant({ currency: 'USD' });
  admin = caller(t, shop);
  store = caller(t, shop, shop.storefrontToken);
  const product = await createProduct(admin, { variants: [{ title: 'S', price: 1000 }, { title: 'M', price: 1100 }] });
  variants = product.variants.map((v) => v.id);
}, 120_000);
afterAll(async () => t?.close());

/** A cart of one unit of each variant, ready to check out. */
async function cartOf(ids = variants): Promise<string> {
  const cart = await createCart(store);
  for (const id of ids) await addItem(store, cart.id, id, 1);
  return cart.id;
}

async function checkOut(cartId: string, api = store): Promise<string> {
  const res = await api('POST', CHECKOUTS, { cart_id: cartId, email: 'rosa@example.com' });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id;
}

const ship = (checkoutId: string) => store('PUT', `${CHECKOUTS}/${checkoutId}/shipping`, { shipping_address: ADDRESS, shipping_rate: RATE });

async function numberOf(orderId: string): Promise<number> {
  return (await admin('GET', `/api/v1/orders/${orderId}`)).json().data.number;
}

describe('the checkout path in statements', () => {
  it('making a checkout and the shipping step that places its order take 4 round trips at most', async () => {
    const cartId = await cartOf();
    const made = await t.countQueries(() => store('POST', CHECKOUTS, { cart_id: cartId, email: 'rosa@example.com' }));
    expect(made.result.statusCode, made.result.body).toBe(201);
    const placed = await t.countQueries(() => ship(made.result.json().data.id));
    expect(placed.result.statusCode, placed.result.body).toBe(200);
    expect(placed.result.json().data).toMatchObject({ status: 'payment_pending', total: 2100 + RATE.price });
    expect(made.count + placed.count, [...made.statements, '--', ...placed.statements].join('\n')).toBeLessThanOrEqual(4);
    // The number is taken and committed in a transaction of its own before the placing transaction
    // begins, in the round trip of its BEGIN, without waiting for the disk.
    expect(placed.statements[0]).toMatch(/^BEGIN; .*SET LOCAL synchronous_commit = off; insert into orders_counter[\s\S]*returning last_number; COMMIT; BEGIN; select set_config/s);
    expect(placed.statements.slice(1).some((s) => s.includes('orders_counter'))).toBe(false);
    // The order, its lines and the checkout go out in the round trip of COMMIT, on a transaction
    // without the ORM's (decision 0114): its COMMIT is the app's own, after the queued writes.
    const writes = placed.statements.find((s) => s.includes('insert into orders_order'));
    expect(writes).toMatch(/insert into orders_line_item[\s\S]*update checkout_checkout[\s\S]*; COMMIT$/);
  });
});

describe('the shipping step with the ORM started where it needs it (decision 0114)', () => {
  it('places a coupon’s order and one that holds stock, the ORM started on their transaction, numbered one after another', async () => {
    const coupon = await createCoupon(admin, { type: 'percentage', value: 1000 });
    const withCoupon = await cartOf([variants[0]]);
    expect((await store('POST', `${CARTS}/${withCoupon}/coupon`, { code: coupon.code })).statusCode).toBe(200);
    const tracked = await createProduct(admin, { title: 'Poncho', variants: [{ title: 'Red', price: 4000 }] });
    const warehouse = (await admin('POST', '/api/v1/inventory/warehouses', { name: 'Main', code: 'PLACING' })).json().data.id;
    await admin('POST', `/api/v1/inventory/warehouses/${warehouse}/stock/adjust`, { variant_id: tracked.variants[0].id, delta: 3, reason: 'received' });
    const plain = await checkOut(await cartOf());
    const couponed = await checkOut(withCoupon);
    const stocked = await checkOut(await cartOf([tracked.variants[0].id]));
    const numbers: number[] = [];
    for (const id of [plain, couponed, stocked]) {
      const placed = await ship(id);
      expect(placed.statusCode, placed.body).toBe(200);
      numbers.push(await numberOf(placed.json().data.order_id));
    }
    expect(numbers).toEqual([numbers[0], numbers[0] + 1, numbers[0] + 2]);
    // What the ORM did is there: the coupon used once, the poncho held.
    expect((await admin('GET', `/api/v1/discounts/coupons/${coupon.id}`)).json().data.uses_count).toBe(1);
    const poncho = (await admin('GET', `/api/v1/catalog/products/${tracked.id}`)).json().data;
    expect(poncho.variants[0].inventory_quantity).toBe(2);
  });
});

describe('the answers of the two steps', () => {
  // Sent as built, without zod's check of the response (the hot path): held to the schema here.
  it('are exactly CheckoutOut: made, addresses only, placed (with a coupon), refused', async () => {
    const coupon = await createCoupon(admin, { type: 'percentage', value: 1000 });
    const plain = await cartOf();
    const withCoupon = await cartOf([variants[0]]);
    expect((await store('POST', `${CARTS}/${withCoupon}/coupon`, { code: coupon.code })).statusCode).toBe(200);
    const answers = [];
    for (const cartId of [plain, withCoupon]) {
      const made = await store('POST', CHECKOUTS, { cart_id: cartId, email: 'Rosa@Example.com' });
      expect(made.statusCode, made.body).toBe(201);
      const id = made.json().data.id;
      const addressed = await store('PUT', `${CHECKOUTS}/${id}/shipping`, { shipping_address: ADDRESS, billing_address: { ...ADDRESS, address1: 'Jr. Lima 45' } });
      expect(addressed.statusCode, addressed.body).toBe(200);
      expect(addressed.json().data.status).toBe('shipping_set');
      const placed = await ship(id);
      expect(placed.json().data).toMatchObject({ status: 'payment_pending', order_id: expect.any(String) });
      answers.push(made, addressed, placed);
    }
    expect(answers[4].json().data.discount_total).toBeGreaterThan(0);
    for (const answer of answers) expect(answersMatch(dataOf(CheckoutOut), answer.json()), answer.body).toBe(true);
    // A field the schema does not name would fail the check.
    expect(answersMatch(dataOf(CheckoutOut), { data: { ...answers[2].json().data, internal: 1 } })).toBe(false);
    // Refusals keep the error body.
    const again = await store('POST', CHECKOUTS, { cart_id: plain, email: 'rosa@example.com' });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('CHECKOUT_EXISTS');
    const closed = await ship(answers[2].json().data.id);
    expect(closed.statusCode).toBe(409);
    expect(closed.json().error.code).toBe('CHECKOUT_ORDER_PLACED');
  });
});

describe('order numbers without a queue', () => {
  it('50 shoppers checking out of one store at once each get an order, numbered one after another', async () => {
    const checkouts: string[] = [];
    for (let n = 0; n < 50; n++) checkouts.push(await checkOut(await cartOf([variants[n % 2]])));
    const answers = await Promise.all(checkouts.map((id) => ship(id)));
    for (const res of answers) expect(res.statusCode, res.body).toBe(200);
    const numbers = await Promise.all(answers.map((res) => numberOf(res.json().data.order_id)));
    expect(new Set(numbers).size).toBe(50);
    const first = Math.min(...numbers);
    expect([...numbers].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, n) => first + n));
  });

  it('a placement that waits inside its transaction keeps no other checkout of the store waiting', async () => {
    const coupon = await createCoupon(admin, { type: 'percentage', value: 1000 });
    const cartId = await cartOf();
    expect((await store('POST', `${CARTS}/${cartId}/coupon`, { code: coupon.code })).statusCode).toBe(200);
    const slow = await checkOut(cartId);
    const quick = await checkOut(await cartOf());
    // Another transaction holds the coupon's row: the slow step waits on it once its order is being placed.
    const other = new pg.Client({ connectionString: t.databaseUrl });
    await other.connect();
    try {
      await other.query('begin');
      await other.query('select 1 from discounts_coupon where tenant_id = $1 and id = $2 for update', [shop.id, coupon.id]);
      const waiting = ship(slow);
      await new Promise((r) => setTimeout(r, 500));
      const meanwhile = await ship(quick);
      expect(meanwhile.statusCode, meanwhile.body).toBe(200);
      await other.query('commit');
      const late = await waiting;
      expect(late.statusCode, late.body).toBe(200);
      // The waiting step took its number first: numbers follow the order the steps began in.
      expect(await numberOf(late.json().data.order_id)).toBeLessThan(await numberOf(meanwhile.json().data.order_id));
    } finally {
      await other.query('rollback').catch(() => undefined);
      await other.end();
    }
  });

  it('a step refused after its number was taken leaves a gap; numbers stay unique', async () => {
    const before = await checkOut(await cartOf());
    const first = await numberOf((await ship(before)).json().data.order_id);
    const refused = await checkOut(await cartOf());
    // The product is archived meanwhile: nothing of the checkout can be sold, and nothing is placed.
    const product = await createProduct(admin, { variants: [{ title: 'Only', price: 500 }] });
    const gone = await checkOut(await cartOf([product.variants[0].id]));
    expect((await admin('PATCH', `/api/v1/catalog/products/${product.id}`, { status: 'archived' })).statusCode).toBe(200);
    const no = await ship(gone);
    expect(no.statusCode, no.body).toBe(422);
    expect(no.json().error.code).toBe('CART_EMPTY');
    expect((await store('GET', `${CHECKOUTS}/${gone}`)).json().data).toMatchObject({ status: 'pending', order_id: null });
    const next = await numberOf((await ship(refused)).json().data.order_id);
    expect(next).toBe(first + 2);
  });
});
