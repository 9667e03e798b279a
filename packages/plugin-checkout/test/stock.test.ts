import { Database } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addItem, ADDRESS, caller, CHECKOUTS, checkoutApp, createCart, createCoupon, createProduct, RATE, until, type Caller } from './helpers.js';

// A checkout places its order only with the stock of its tracked variants held (or backordered
// where the variant allows it), and completes once its order is paid (decisions 0054, 0055).
// Workers run here, as in production: the payment's event reaches the order, the order's the checkout.
let t: TestApp;
let shop: TestTenant;
let admin: Caller;
let store: Caller;
let warehouse: string;
beforeAll(async () => {
  t = await checkoutApp({ workers: true });
  shop = await t.createTenant({ currency: 'PEN' });
  admin = caller(t, shop);
  store = caller(t, shop, shop.storefrontToken);
  const res = await admin('POST', '/api/v1/inventory/warehouses', { name: 'Main', code: 'MAIN' });
  warehouse = res.json().data.id;
});
afterAll(async () => t?.close());

const ORDERS = '/api/v1/orders';
const read = async (id: string) => (await store('GET', `${CHECKOUTS}/${id}`)).json().data;
const order = async (id: string) => (await admin('GET', `${ORDERS}/${id}`)).json().data;
const outbox = (type: string, id: string) =>
  t.app.orm.em.getConnection().execute<Array<{ data: Record<string, unknown> }>>(`select data from core_outbox where type = ? and data->>'id' = ?`, [type, id]);
const pay = (data: { order_id: string; amount: number; payment_id: string }) =>
  t.app.container.resolve(Database).tenant(async (tx) => void tx.publish('payments.payment.confirmed', { currency: 'PEN', ...data }), shop.id);

async function variant(units: number | null, settings?: Record<string, unknown>): Promise<string> {
  const product = await createProduct(admin, { variants: [{ title: 'One', price: 2000 }] });
  const id = product.variants[0].id;
  if (units !== null) {
    const res = await admin('POST', `/api/v1/inventory/warehouses/${warehouse}/stock/adjust`, { variant_id: id, delta: units, reason: 'correction' });
    if (res.statusCode !== 200) throw new Error(`stock not set: ${res.body}`);
  }
  if (settings) expect((await admin('PUT', `/api/v1/inventory/variant-settings/${id}`, settings)).statusCode).toBe(200);
  return id;
}

async function level(variantId: string) {
  const [row] = (await admin('GET', `/api/v1/inventory/warehouses/${warehouse}/stock?filter[variant_id]=${variantId}`)).json().data;
  return { on_hand: row.on_hand, reserved: row.reserved, available: row.available };
}

async function checkoutOf(variantId: string, quantity = 1, coupon?: string) {
  const cart = await createCart(store);
  await addItem(store, cart.id, variantId, quantity);
  if (coupon) expect((await store('POST', `/api/v1/checkout/carts/${cart.id}/coupon`, { code: coupon })).statusCode).toBe(200);
  const res = await store('POST', CHECKOUTS, { cart_id: cart.id, email: 'rosa@example.com' });
  if (res.statusCode !== 201) throw new Error(`checkout not created: ${res.body}`);
  return res.json().data as { id: string };
}

const placeOrder = (id: string, rate = RATE) => store('PUT', `${CHECKOUTS}/${id}/shipping`, { shipping_address: ADDRESS, shipping_rate: rate });

describe('the last unit', () => {
  it('30 checkouts racing for it place one order, holding it; 29 are refused before anyone pays and can try again once restocked', async () => {
    const v = await variant(1);
    const checkouts = await Promise.all(Array.from({ length: 30 }, () => checkoutOf(v)));
    const answers = await Promise.all(checkouts.map((c) => placeOrder(c.id)));
    const placed = answers.filter((a) => a.statusCode === 200);
    const refused = answers.filter((a) => a.statusCode !== 200);
    expect(placed).toHaveLength(1);
    expect(refused).toHaveLength(29);
    for (const r of refused) {
      expect(r.statusCode, r.body).toBe(409);
      expect(r.json().error).toMatchObject({ code: 'INSUFFICIENT_STOCK', details: [{ variant_id: v, warehouse_id: warehouse, requested: 1, available: 0 }] });
    }
    expect(await level(v)).toEqual({ on_hand: 1, reserved: 1, available: 0 });
    const [{ n }] = await t.app.orm.em.getConnection().execute<Array<{ n: string }>>(`select count(*) as n from orders_line_item where variant_id = ?`, [v]);
    expect(Number(n)).toBe(1);
    // Nothing half-written: a refused checkout is still at its step, with no order.
    const loser = checkouts[answers.findIndex((a) => a.statusCode !== 200)];
    expect(await read(loser.id)).toMatchObject({ status: 'pending', order_id: null });

    await admin('POST', `/api/v1/inventory/warehouses/${warehouse}/stock/adjust`, { variant_id: v, delta: 1, reason: 'received' });
    const retried = await placeOrder(loser.id);
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.json().data).toMatchObject({ status: 'payment_pending', order_id: expect.any(String) });
    expect(await level(v)).toEqual({ on_hand: 2, reserved: 2, available: 0 });
  });

  it('abandoning the checkout gives the unit back', async () => {
    const v = await variant(1);
    const c = await checkoutOf(v);
    expect((await placeOrder(c.id)).statusCode).toBe(200);
    expect(await level(v)).toEqual({ on_hand: 1, reserved: 1, available: 0 });
    expect((await store('POST', `${CHECKOUTS}/${c.id}/abandon`)).statusCode).toBe(200);
    expect(await level(v)).toEqual({ on_hand: 1, reserved: 0, available: 1 });
  });

  it('a variant the store says it keeps no stock of (tracked: false, though it has a stock record) is sold without a reservation; its paid order is paid', async () => {
    const untracked = await variant(1, { tracked: false });
    const c = await checkoutOf(untracked, 5);
    const placed = await placeOrder(c.id);
    expect(placed.statusCode, placed.body).toBe(200);
    const { order_id: orderId, total } = placed.json().data;
    await pay({ order_id: orderId, amount: total, payment_id: 'pay_untracked' });
    await until(async () => (await read(c.id)).status === 'completed');
    expect(await order(orderId)).toMatchObject({ status: 'paid' });
    expect(await level(untracked)).toEqual({ on_hand: 1, reserved: 0, available: 1 });
  });
});

describe('backorders', () => {
  it('a variant that allows them is placed beyond its stock, the answer says how much is backordered; paid, it waits and completes once stock arrives', async () => {
    const v = await variant(1, { allow_backorder: true });
    const c = await checkoutOf(v, 3);
    const placed = await placeOrder(c.id);
    expect(placed.statusCode, placed.body).toBe(200);
    const awaiting = placed.json().data;
    expect(awaiting.line_items[0]).toMatchObject({ variant_id: v, quantity: 3, backordered_quantity: 2 });
    expect((await order(awaiting.order_id)).line_items[0]).toMatchObject({ quantity: 3, backordered_quantity: 2 });
    expect(await level(v)).toEqual({ on_hand: 1, reserved: 1, available: 0 });

    // Paid in full, the order waits for its stock (whatever the policy: the shopper bought a backorder).
    await pay({ order_id: awaiting.order_id, amount: awaiting.total, payment_id: 'pay_back' });
    await until(async () => (await outbox('orders.order.stock_shortage', awaiting.order_id)).length > 0);
    expect(await order(awaiting.order_id)).toMatchObject({ status: 'confirmed', amount_due: 0 });
    expect(await outbox('orders.order.stock_unavailable', awaiting.order_id)).toEqual([]);
    expect((await read(c.id)).status).toBe('payment_pending');
    expect((await store('POST', `${CHECKOUTS}/${c.id}/complete`, { order_id: awaiting.order_id })).json().error.code).toBe('PAYMENT_NOT_CONFIRMED');

    await admin('POST', `/api/v1/inventory/warehouses/${warehouse}/stock/adjust`, { variant_id: v, delta: 5, reason: 'received' });
    await until(async () => (await read(c.id)).status === 'completed');
    const paid = await order(awaiting.order_id);
    expect(paid.status).toBe('paid');
    expect(paid.line_items[0].backordered_quantity).toBe(0);
    expect(await level(v)).toEqual({ on_hand: 6, reserved: 3, available: 3 });
  });

  it('a variant that does not allow them is refused with its numbers', async () => {
    const v = await variant(2);
    const c = await checkoutOf(v, 3);
    const refused = await placeOrder(c.id);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toMatchObject({ code: 'INSUFFICIENT_STOCK', details: [{ variant_id: v, requested: 3, available: 2 }] });
  });
});

describe('a variant tracked after its order was placed', () => {
  it('the payment finds no stock: by default its money goes back (orders.order.stock_unavailable) and the checkout never completes', async () => {
    const v = await variant(null);
    const c = await checkoutOf(v);
    const placed = (await placeOrder(c.id)).json().data;
    // The store starts keeping its stock: none yet.
    expect((await admin('PUT', `/api/v1/inventory/variant-settings/${v}`, { tracked: true })).json().data).toMatchObject({ is_tracked: true });
    await pay({ order_id: placed.order_id, amount: placed.total, payment_id: 'pay_late_track' });
    await until(async () => (await outbox('orders.order.stock_unavailable', placed.order_id)).length > 0);
    const [event] = await outbox('orders.order.stock_unavailable', placed.order_id);
    expect(event.data).toMatchObject({ id: placed.order_id, status: 'confirmed', currency: 'PEN', payment_id: 'pay_late_track', code: 'INSUFFICIENT_STOCK', details: [{ variant_id: v, requested: 1, available: 0 }] });
    await new Promise((r) => setTimeout(r, 300));
    expect((await read(c.id)).status).toBe('payment_pending');
    expect((await order(placed.order_id)).status).toBe('confirmed');
  });
});

describe('an order of total 0', () => {
  it('(a 100 % coupon, free shipping) is placed, reserved, confirmed and paid at once; its checkout answers completed', async () => {
    const v = await variant(4);
    const coupon = await createCoupon(admin, { type: 'percentage', value: 10000 });
    const c = await checkoutOf(v, 2, coupon.code);
    const done = await placeOrder(c.id, { ...RATE, price: 0 });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().data).toMatchObject({ status: 'completed', total: 0, completed_at: expect.any(String) });
    const free = await order(done.json().data.order_id);
    expect(free).toMatchObject({ status: 'paid', total: 0, amount_due: 0, paid_at: expect.any(String) });
    expect(free.history.map((h: { action: string; note: string }) => [h.action, h.note])).toEqual([
      ['confirm', 'total 0: nothing to pay'],
      ['pay', 'total 0: nothing to pay'],
    ]);
    expect(await level(v)).toEqual({ on_hand: 4, reserved: 2, available: 2 });
    expect((await store('POST', `${CHECKOUTS}/${c.id}/complete`, { order_id: free.id })).statusCode).toBe(200);
  });
});
