import { AppError } from '@qhatu/core';
import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Orders } from '../src/index.js';
import { caller, confirmPayment, createOrder, createVariants, getOrder, inTenant, levelOf, MISSING, ORDERS, ordersApp, outbox, stockUp, type OrderJson } from './helpers.js';

let t: TestApp;
let shop: TestTenant;
let warehouse: string;
beforeAll(async () => {
  t = await ordersApp();
  shop = await t.createTenant();
  warehouse = await stockUp(t, shop, [], 0);
});
afterAll(async () => t?.close());

const admin = () => caller(t, shop);
const post = (id: string, action: string, body: unknown = {}) => admin()('POST', `${ORDERS}/${id}/${action}`, body);

/** An order of `qty` units of a fresh variant with `units` in stock. */
async function newOrder(qty = 2, units = 10) {
  const [v] = await createVariants(t, shop, [1500]);
  if (units > 0) await stockUp(t, shop, [v.id], units, warehouse);
  const order = await createOrder(t, shop, [{ variant_id: v.id, quantity: qty }]);
  return { order, variant: v.id };
}

async function paidOrder(qty = 2, units = 10) {
  const made = await newOrder(qty, units);
  await confirmPayment(t, shop, made.order);
  return made;
}

async function expectStatus(id: string, status: string) {
  expect((await getOrder(t, shop, id)).status).toBe(status);
}

async function expect409(id: string, action: string, body: unknown = {}) {
  const res = await post(id, action, body);
  expect(res.statusCode, `${action}: ${res.body}`).toBe(409);
  expect(res.json().error.code).toBe('INVALID_STATE_TRANSITION');
}

describe('payment confirmed (the job body; the event path is in payments.test.ts)', () => {
  it('pending → confirmed → paid: the stock of every line is reserved', async () => {
    const { order, variant } = await newOrder(3, 5);
    await confirmPayment(t, shop, order);
    const read = await getOrder(t, shop, order.id);
    expect(read.status).toBe('paid');
    expect(read.paid_at).toEqual(expect.any(String));
    expect(read.history.map((h) => [h.action, h.from, h.to])).toEqual([['confirm', 'pending', 'confirmed'], ['pay', 'confirmed', 'paid']]);
    expect(await levelOf(t, shop, warehouse, variant)).toEqual({ on_hand: 5, reserved: 3, available: 2 });
    expect((await outbox(t, 'orders.order.confirmed', order.id)).map((e) => e.data.status)).toEqual(['confirmed']);
    expect((await outbox(t, 'orders.order.paid', order.id))[0].data).toMatchObject({ id: order.id, number: order.number, status: 'paid', previous_status: 'confirmed' });
    // Raised twice: nothing moves again.
    await confirmPayment(t, shop, order);
    expect(await levelOf(t, shop, warehouse, variant)).toEqual({ on_hand: 5, reserved: 3, available: 2 });
  });

  it('short of stock, by default (refund): orders.order.stock_unavailable asks for the refund; the order is never paid, the refund ends it', async () => {
    const { order, variant } = await newOrder(4, 1);
    // A staff order: the unit in stock is held, the rest backordered.
    expect(order.line_items[0]).toMatchObject({ quantity: 4, backordered_quantity: 3 });
    expect(await levelOf(t, shop, warehouse, variant)).toEqual({ on_hand: 1, reserved: 1, available: 0 });
    await confirmPayment(t, shop, order);
    const read = await getOrder(t, shop, order.id);
    expect(read.status).toBe('confirmed');
    expect(read.history.at(-1)).toMatchObject({ action: 'note', from: 'confirmed', to: 'confirmed', note: 'stock unavailable (INSUFFICIENT_STOCK): what was paid is refunded' });
    const [unavailable] = await outbox(t, 'orders.order.stock_unavailable', order.id);
    expect(unavailable.data).toEqual({
      id: order.id, number: order.number, status: 'confirmed', currency: order.currency, payment_id: `pay_${order.id.slice(0, 8)}`,
      code: 'INSUFFICIENT_STOCK', message: expect.any(String),
      details: [{ message: '3 requested, 0 available', variant_id: variant, warehouse_id: warehouse, requested: 3, available: 0 }],
    });
    expect(await outbox(t, 'orders.order.stock_shortage', order.id)).toEqual([]);
    // Stock arriving, or the job raised again, does not pay it while its money goes back.
    await stockUp(t, shop, [variant], 10, warehouse);
    await confirmPayment(t, shop, order);
    await expectStatus(order.id, 'confirmed');
    expect(await outbox(t, 'orders.order.stock_unavailable', order.id)).toHaveLength(1);
    expect(await outbox(t, 'orders.order.paid', order.id)).toEqual([]);
    const payment = { payment_id: `pay_${order.id.slice(0, 8)}`, amount: order.total, currency: order.currency, refunded_amount: order.total };
    await inTenant(t, shop, (tx) => t.app.container.resolve(Orders).recordRefunds(tx, order.id, [payment], 'stock unavailable'));
    await expectStatus(order.id, 'refunded');
    expect(await levelOf(t, shop, warehouse, variant)).toEqual({ on_hand: 11, reserved: 0, available: 11 });
  });

  it('short of stock with the policy wait: the order stays confirmed and orders.order.stock_shortage says why; a later confirmation pays it', async () => {
    expect((await admin()('PUT', `${ORDERS}/settings`, { stock_policy: 'wait' })).json().data).toMatchObject({ stock_policy: 'wait', stock_policy_is_default: false });
    try {
      const { order, variant } = await newOrder(4, 1);
      await confirmPayment(t, shop, order);
      await expectStatus(order.id, 'confirmed');
      const [shortage] = await outbox(t, 'orders.order.stock_shortage', order.id);
      expect(shortage.data).toMatchObject({ id: order.id, status: 'confirmed', code: 'INSUFFICIENT_STOCK' });
      expect(await outbox(t, 'orders.order.stock_unavailable', order.id)).toEqual([]);
      expect(await levelOf(t, shop, warehouse, variant)).toEqual({ on_hand: 1, reserved: 1, available: 0 });
      await stockUp(t, shop, [variant], 10, warehouse);
      await confirmPayment(t, shop, order);
      await expectStatus(order.id, 'paid');
      expect(await levelOf(t, shop, warehouse, variant)).toMatchObject({ reserved: 4 });
      expect((await getOrder(t, shop, order.id)).line_items[0].backordered_quantity).toBe(0);
    } finally {
      await admin()('PUT', `${ORDERS}/settings`, { stock_policy: 'refund' });
    }
  });

  it('the store settings: refund by default, admin only, a precise 400 for anything else', async () => {
    const other = await t.createTenant();
    expect((await caller(t, other)('GET', `${ORDERS}/settings`)).json().data).toEqual({ stock_policy: 'refund', stock_policy_is_default: true, updated_at: null });
    expect((await caller(t, other)('PUT', `${ORDERS}/settings`, { stock_policy: 'later' })).json().error.code).toBe('VALIDATION_ERROR');
    expect((await caller(t, other, other.storefrontToken)('GET', `${ORDERS}/settings`)).statusCode).toBe(403);
    expect((await caller(t, other)('PUT', `${ORDERS}/settings`, { stock_policy: 'wait' })).statusCode).toBe(200);
    // Another store's setting is its own.
    expect((await admin()('GET', `${ORDERS}/settings`)).json().data.stock_policy).toBe('refund');
  });

  it('a part payment leaves the order pending with what is due; the payments that cover it pay it, each counted once', async () => {
    const { order } = await newOrder(1);
    const part = () => confirmPayment(t, shop, order, { payment_id: 'pay_part', amount: order.total - 1 });
    await part();
    await part();
    await expectStatus(order.id, 'pending');
    expect(await getOrder(t, shop, order.id)).toMatchObject({ amount_paid: order.total - 1, amount_due: 1 });
    await confirmPayment(t, shop, order, { payment_id: 'pay_rest', amount: 1 });
    await expectStatus(order.id, 'paid');
    expect(await getOrder(t, shop, order.id)).toMatchObject({ amount_paid: order.total, amount_due: 0 });
    expect(await outbox(t, 'orders.order.payment_mismatch', order.id)).toEqual([]);
  });

  it('a payment in another currency is not counted and says so (orders.order.payment_mismatch)', async () => {
    const { order } = await newOrder(1);
    await confirmPayment(t, shop, order, { currency: 'EUR' });
    await expectStatus(order.id, 'pending');
    expect(await getOrder(t, shop, order.id)).toMatchObject({ amount_paid: 0, amount_due: order.total });
    expect((await outbox(t, 'orders.order.payment_mismatch', order.id))[0].data).toMatchObject({ reason: 'currency', currency: 'EUR', order_currency: order.currency });
  });

  it('a payment confirmed after the order was cancelled leaves it cancelled and says so (orders.order.payment_mismatch)', async () => {
    const { order } = await newOrder(1);
    expect((await post(order.id, 'cancel', { reason: 'customer changed their mind' })).statusCode).toBe(200);
    await confirmPayment(t, shop, order);
    await expectStatus(order.id, 'cancelled');
    const [late] = await outbox(t, 'orders.order.payment_mismatch', order.id);
    expect(late.data).toMatchObject({ id: order.id, status: 'cancelled', reason: 'late', payment_id: `pay_${order.id.slice(0, 8)}`, amount: order.total, order_total: order.total });
  });

  it('ignores unknown orders and unusable data', async () => {
    expect(await confirmPayment(t, shop, { id: MISSING, total: 1, currency: 'USD' })).toBeNull();
    expect(await confirmPayment(t, shop, { id: 'not-a-uuid', total: 1, currency: 'USD' })).toBeNull();
  });
});

describe('ready to ship, courier and delivery', () => {
  it('paid → ready_to_ship (note kept) → paid by operator reversal (reason required) → ready_to_ship', async () => {
    const { order } = await paidOrder();
    const ready = await post(order.id, 'ready-to-ship', { note: 'packed in box 3' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json().data.status).toBe('ready_to_ship');
    expect((await post(order.id, 'ready-to-ship/undo', {})).statusCode).toBe(400);
    const undone = await post(order.id, 'ready-to-ship/undo', { reason: 'label misprinted' });
    expect(undone.statusCode).toBe(200);
    expect(undone.json().data.status).toBe('paid');
    expect(undone.json().data.history.slice(-2).map((h: OrderJson['history'][0]) => [h.action, h.to, h.note])).toEqual([['ready_to_ship', 'ready_to_ship', 'packed in box 3'], ['undo_ready_to_ship', 'paid', 'label misprinted']]);
    expect((await outbox(t, 'orders.order.ready_to_ship_reverted', order.id))[0].data).toMatchObject({ status: 'paid', previous_status: 'ready_to_ship', note: 'label misprinted' });
    expect((await post(order.id, 'ready-to-ship')).json().data.status).toBe('ready_to_ship');
  });

  it('ready_to_ship → in_transit ships everything with the tracking; delivery confirmed → fulfilled', async () => {
    const { order, variant } = await paidOrder(2, 10);
    await post(order.id, 'ready-to-ship');
    const moving = await post(order.id, 'in-transit', { carrier: 'olva', tracking_number: 'OLV123', tracking_url: 'https://track.example.com/OLV123' });
    expect(moving.statusCode).toBe(200);
    const data = moving.json().data as OrderJson;
    expect(data.status).toBe('in_transit');
    expect(data.fulfillments).toHaveLength(1);
    expect(data.fulfillments[0]).toMatchObject({ status: 'shipped', carrier: 'olva', tracking_number: 'OLV123', line_items: [{ variant_id: variant, quantity: 2 }] });
    expect(await levelOf(t, shop, warehouse, variant)).toEqual({ on_hand: 8, reserved: 0, available: 8 });
    const delivered = await post(order.id, 'deliver');
    expect(delivered.json().data).toMatchObject({ status: 'fulfilled', fulfillments: [{ status: 'delivered' }] });
    const [event] = await outbox(t, 'orders.order.fulfilled', order.id);
    expect(event.data).toEqual({ id: order.id, status: 'fulfilled', tracking_number: 'OLV123', carrier: 'olva', fulfilled_at: delivered.json().data.fulfilled_at });
  });

  it('paid → fulfilled by direct delivery: the items become one delivered shipment and leave stock', async () => {
    const { order, variant } = await paidOrder(3, 10);
    const res = await post(order.id, 'deliver', { note: 'picked up at the shop' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'fulfilled', fulfillments: [{ status: 'delivered', carrier: null, line_items: [{ quantity: 3 }] }] });
    expect(await levelOf(t, shop, warehouse, variant)).toEqual({ on_hand: 7, reserved: 0, available: 7 });
    expect((await outbox(t, 'orders.order.fulfilled', order.id))[0].data).toMatchObject({ tracking_number: null, carrier: null });
  });

  it('refuses every move its state does not allow (409 INVALID_STATE_TRANSITION)', async () => {
    const { order: pending } = await newOrder();
    await expect409(pending.id, 'ready-to-ship');
    await expect409(pending.id, 'ready-to-ship/undo', { reason: 'x' });
    await expect409(pending.id, 'in-transit');
    await expect409(pending.id, 'deliver');
    const { order: paid } = await paidOrder();
    await expect409(paid.id, 'ready-to-ship/undo', { reason: 'x' });
    await expect409(paid.id, 'in-transit');
    await post(paid.id, 'ready-to-ship');
    await expect409(paid.id, 'ready-to-ship');
    await expect409(paid.id, 'deliver');
    await expect409(paid.id, 'cancel');
    await post(paid.id, 'in-transit');
    await expect409(paid.id, 'ready-to-ship/undo', { reason: 'x' });
    await expect409(paid.id, 'in-transit');
    await expect409(paid.id, 'cancel');
    await post(paid.id, 'deliver');
    for (const action of ['ready-to-ship', 'in-transit', 'deliver', 'cancel']) await expect409(paid.id, action);
    expect((await post(MISSING, 'ready-to-ship')).statusCode).toBe(404);
    expect((await post('nope', 'deliver')).statusCode).toBe(400);
  });
});

describe('cancel', () => {
  it('cancels pending, confirmed and paid orders; a paid order gives its stock back', async () => {
    const { order: pending } = await newOrder();
    const res = await post(pending.id, 'cancel', { reason: 'duplicate' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'cancelled', cancel_reason: 'duplicate', cancelled_at: expect.any(String) });
    expect((await outbox(t, 'orders.order.cancelled', pending.id))[0].data).toMatchObject({ status: 'cancelled', previous_status: 'pending', note: 'duplicate' });

    const short = await newOrder(5, 1);
    await confirmPayment(t, shop, short.order);
    await expectStatus(short.order.id, 'confirmed');
    expect((await post(short.order.id, 'cancel')).json().data.status).toBe('cancelled');

    const { order: paid, variant } = await paidOrder(2, 10);
    expect(await levelOf(t, shop, warehouse, variant)).toMatchObject({ reserved: 2, available: 8 });
    expect((await post(paid.id, 'cancel', {})).json().data.status).toBe('cancelled');
    expect(await levelOf(t, shop, warehouse, variant)).toEqual({ on_hand: 10, reserved: 0, available: 10 });
  });

  it('refuses cancelled, fulfilled and refunded orders (409) and bad bodies (400)', async () => {
    const { order } = await newOrder();
    expect((await post(order.id, 'cancel', { reason: 12 })).statusCode).toBe(400);
    expect((await post(order.id, 'cancel', { why: 'x' })).statusCode).toBe(400);
    await post(order.id, 'cancel');
    await expect409(order.id, 'cancel');
    const { order: done } = await paidOrder();
    await post(done.id, 'deliver');
    await expect409(done.id, 'cancel');
    const { order: refunded } = await paidOrder();
    await inTenant(t, shop, (tx) => t.app.container.resolve(Orders).markRefunded(tx, refunded.id));
    await expect409(refunded.id, 'cancel');
  });
});

describe('markRefunded (the payments plugin, inside its transaction)', () => {
  it('moves a paid order to refunded, gives its stock back and publishes orders.order.refunded', async () => {
    const { order, variant } = await paidOrder(2, 10);
    const moved = await inTenant(t, shop, (tx) => t.app.container.resolve(Orders).markRefunded(tx, order.id, 'refund re_1'));
    expect(moved.status).toBe('refunded');
    await expectStatus(order.id, 'refunded');
    expect(await levelOf(t, shop, warehouse, variant)).toEqual({ on_hand: 10, reserved: 0, available: 10 });
    expect((await outbox(t, 'orders.order.refunded', order.id))[0].data).toMatchObject({ status: 'refunded', previous_status: 'paid' });
  });

  it('refuses pending and already refunded orders, and rolls back with the caller', async () => {
    const orders = t.app.container.resolve(Orders);
    const { order } = await newOrder();
    const error = await inTenant(t, shop, (tx) => orders.markRefunded(tx, order.id)).catch((e) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ status: 409, code: 'INVALID_STATE_TRANSITION' });
    const { order: paid } = await paidOrder();
    await expect(inTenant(t, shop, async (tx) => {
      await orders.markRefunded(tx, paid.id);
      throw new Error('gateway refused the refund');
    })).rejects.toThrow('gateway refused');
    await expectStatus(paid.id, 'paid');
    await inTenant(t, shop, (tx) => orders.markRefunded(tx, paid.id));
    await expect(inTenant(t, shop, (tx) => orders.markRefunded(tx, paid.id))).rejects.toMatchObject({ status: 409 });
  });
});
