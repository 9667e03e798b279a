import { AppError, Database, definePlugin } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import abandonedCarts from '@qhatu/plugin-abandoned-carts';
import { ORDER_CANCEL_GUARD, type OrderCancelGuard } from '@qhatu/plugin-orders';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckoutHolds } from '../src/index.js';
import { addItem, ADDRESS, caller, CHECKOUTS, checkoutApp, createCart, createProduct, RATE, TestClock, until, type Caller } from './helpers.js';

// Stock held by an unpaid checkout has a lifetime (decision 0059): a checkout left awaiting payment
// longer than QHATU_CHECKOUT_HOLD_MINUTES (60 here) is abandoned by the periodic job (every second
// here), its order cancelled through Orders.cancel and its stock released. The clock is the test's.
const HOLD = 60 * 60_000;

/** Orders with a payment in flight, refused by the guard below as the payments plugin's guard refuses them. */
const inFlight = new Set<string>();
const paymentGuard: OrderCancelGuard = {
  check(_tx, order) {
    if (!inFlight.has(order.id)) return;
    throw AppError.conflict('A payment of this order is in progress', 'PAYMENT_IN_PROGRESS', [{ path: 'params.id', message: 'wait for it', order_id: order.id }]);
  },
};
const paymentsInFlight = definePlugin({
  name: 'payments-in-flight',
  dependsOn: ['orders'],
  register: (container) => void container.register(ORDER_CANCEL_GUARD, { useValue: paymentGuard }),
});

const clock = new TestClock();
let t: TestApp;
let shop: TestTenant;
let admin: Caller;
let store: Caller;
let warehouse: string;
beforeAll(async () => {
  t = await checkoutApp({ clock, workers: true, plugins: [abandonedCarts, paymentsInFlight], env: { QHATU_CHECKOUT_HOLD_MINUTES: '60', QHATU_CHECKOUT_HOLD_SWEEP_SECONDS: '1' } });
  shop = await t.createTenant({ currency: 'PEN' });
  admin = caller(t, shop);
  store = caller(t, shop, shop.storefrontToken);
  warehouse = (await admin('POST', '/api/v1/inventory/warehouses', { name: 'Main', code: 'MAIN' })).json().data.id;
});
afterAll(async () => t?.close());

async function variant(units: number | null): Promise<string> {
  const id = (await createProduct(admin, { variants: [{ title: 'One', price: 2000 }] })).variants[0].id;
  if (units !== null) expect((await admin('POST', `/api/v1/inventory/warehouses/${warehouse}/stock/adjust`, { variant_id: id, delta: units, reason: 'received' })).statusCode).toBe(200);
  return id;
}

/** A checkout of `variantId` with its order placed (stock held): the checkout as answered. */
async function placed(variantId: string): Promise<{ id: string; order_id: string; cart_id: string; total: number }> {
  const cart = await createCart(store);
  await addItem(store, cart.id, variantId, 1);
  const made = await store('POST', CHECKOUTS, { cart_id: cart.id, email: 'rosa@example.com' });
  const res = await store('PUT', `${CHECKOUTS}/${made.json().data.id}/shipping`, { shipping_address: ADDRESS, shipping_rate: RATE });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json().data.status).toBe('payment_pending');
  return res.json().data;
}

const read = async (id: string) => (await store('GET', `${CHECKOUTS}/${id}`)).json().data;
const orderOf = async (id: string) => (await admin('GET', `/api/v1/orders/${id}`)).json().data;
async function level(variantId: string) {
  const [row] = (await admin('GET', `/api/v1/inventory/warehouses/${warehouse}/stock?filter[variant_id]=${variantId}`)).json().data;
  return { reserved: row.reserved, available: row.available };
}
/** A run of the sweep, as the job runs it; the checkouts it kept for a later run. */
async function sweep(): Promise<string[]> {
  const kept: string[] = [];
  await t.app.container.resolve(CheckoutHolds).sweep((error, row) => {
    expect(error).toMatchObject({ code: 'PAYMENT_IN_PROGRESS' });
    kept.push(row.id);
  });
  return kept;
}

describe('the hold of an unpaid checkout', () => {
  it('ties the last unit for the hold only: then the job abandons the checkout, cancels its order, releases the unit and says so', async () => {
    const v = await variant(1);
    const first = await placed(v);
    // Someone else's checkout cannot have it meanwhile.
    const cart = await createCart(store);
    await addItem(store, cart.id, v, 1);
    const second = (await store('POST', CHECKOUTS, { cart_id: cart.id, email: 'ana@example.com' })).json().data;
    const refused = await store('PUT', `${CHECKOUTS}/${second.id}/shipping`, { shipping_address: ADDRESS, shipping_rate: RATE });
    expect(refused.json().error.code).toBe('INSUFFICIENT_STOCK');

    clock.advance(HOLD - 60_000);
    await sweep();
    expect((await read(first.id)).status).toBe('payment_pending');

    clock.advance(2 * 60_000);
    // The periodic job, queued every second by the workers' background.
    await until(async () => (await read(first.id)).status === 'abandoned');
    expect(await read(first.id)).toMatchObject({ status: 'abandoned', abandoned_at: clock.now().toISOString(), order_id: first.order_id });
    const order = await orderOf(first.order_id);
    expect(order.status).toBe('cancelled');
    expect(order.history.at(-1)).toMatchObject({ action: 'cancel', from: 'pending', to: 'cancelled', note: 'checkout expired: not paid within 60 minutes of placing the order' });
    expect(await level(v)).toEqual({ reserved: 0, available: 1 });
    const [event] = await t.app.orm.em.getConnection().execute<Array<{ data: Record<string, unknown> }>>(
      `select data from core_outbox where type = 'checkout.checkout.abandoned' and data->>'id' = ?`,
      [first.id],
    );
    expect(event.data).toMatchObject({ id: first.id, status: 'abandoned', order_id: first.order_id });
    // The abandoned-carts plugin's hook ran in the same transaction: its list shows the cart.
    const listed = (await admin('GET', '/admin/abandoned-carts?status=all')).json().data as Array<{ cart_id: string; checkout_id: string; status: string }>;
    expect(listed).toContainEqual(expect.objectContaining({ cart_id: first.cart_id, checkout_id: first.id, status: 'abandoned' }));
    // The unit is for sale again: the other checkout places its order.
    const retried = await store('PUT', `${CHECKOUTS}/${second.id}/shipping`, { shipping_address: ADDRESS, shipping_rate: RATE });
    expect(retried.statusCode, retried.body).toBe(200);
  });

  it('keeps a checkout whose order has a payment in progress (the cancel guard refuses), and abandons it on a later run', async () => {
    const v = await variant(2);
    const busy = await placed(v);
    inFlight.add(busy.order_id);
    clock.advance(HOLD + 60_000);
    expect(await sweep()).toContain(busy.id);
    await new Promise((r) => setTimeout(r, 1500)); // a run of the job or two
    expect((await read(busy.id)).status).toBe('payment_pending');
    expect((await orderOf(busy.order_id)).status).toBe('pending');
    expect(await level(v)).toEqual({ reserved: 1, available: 1 });

    inFlight.delete(busy.order_id);
    await until(async () => (await read(busy.id)).status === 'abandoned');
    expect((await orderOf(busy.order_id)).status).toBe('cancelled');
    expect(await level(v)).toEqual({ reserved: 0, available: 2 });
  });

  it('leaves alone a checkout paid in part, one that holds no stock, and one within its hold', async () => {
    const partly = await placed(await variant(3));
    const untracked = await placed(await variant(null));
    // Part of the total paid: the money decides, not the clock.
    await t.app.container.resolve(Database).tenant(async (tx) => void tx.publish('payments.payment.confirmed', { payment_id: 'pay_part', order_id: partly.order_id, amount: 500, currency: 'PEN' }), shop.id);
    await until(async () => (await orderOf(partly.order_id)).amount_paid === 500);
    clock.advance(HOLD + 60_000);
    const young = await placed(await variant(3));
    clock.advance(HOLD - 60_000);
    expect(await sweep()).toEqual([]);
    await new Promise((r) => setTimeout(r, 1500));
    for (const c of [partly, untracked, young]) expect((await read(c.id)).status).toBe('payment_pending');
    expect((await orderOf(partly.order_id)).status).toBe('pending');

    clock.advance(2 * 60_000);
    await until(async () => (await read(young.id)).status === 'abandoned');
    expect((await read(partly.id)).status).toBe('payment_pending');
  });
});
