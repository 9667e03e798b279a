import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrder, createVariants, getOrder, inTenant, levelOf, ordersApp, outbox, stockPolicy, stockUp, track } from './helpers.js';

// The payments plugin publishes payments.payment.confirmed; the outbox relay hands it to the
// orders plugin, which queues a job after commit. Workers run here, as in production.
let t: TestApp;
let shop: TestTenant;
let warehouse: string;
beforeAll(async () => {
  t = await ordersApp({ workers: true });
  shop = await t.createTenant();
  warehouse = await stockUp(t, shop, [], 0);
  // Paid orders short of stock wait for it here; the default (refund) is tested below.
  await stockPolicy(t, shop, 'wait');
});
afterAll(async () => t?.close());

async function until(check: () => Promise<boolean>, ms = 15_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('timed out waiting');
}

const raise = (data: Record<string, unknown>) => inTenant(t, shop, async (tx) => void tx.publish('payments.payment.confirmed', data));

describe('payments.payment.confirmed', () => {
  it('moves the order pending → confirmed → paid through the job, reserving its stock', async () => {
    const [v] = await createVariants(t, shop, [2500]);
    await stockUp(t, shop, [v.id], 6, warehouse);
    const order = await createOrder(t, shop, [{ variant_id: v.id, quantity: 2 }]);
    await raise({ payment_id: 'pay_1', order_id: order.id, amount: order.total, currency: order.currency });
    await until(async () => (await getOrder(t, shop, order.id)).status === 'paid');
    const read = await getOrder(t, shop, order.id);
    expect(read.history.map((h) => [h.from, h.to, h.note])).toEqual([['pending', 'confirmed', 'payment pay_1'], ['confirmed', 'paid', 'payment pay_1']]);
    expect(await levelOf(t, shop, warehouse, v.id)).toEqual({ on_hand: 6, reserved: 2, available: 4 });
  });

  it('short of stock, stops at confirmed and publishes orders.order.stock_shortage', async () => {
    const [v] = await createVariants(t, shop, [2500]);
    await track(t, shop, v.id);
    const order = await createOrder(t, shop, [{ variant_id: v.id, quantity: 1 }]);
    await raise({ payment_id: 'pay_2', order_id: order.id, amount: order.total, currency: order.currency });
    await until(async () => (await outbox(t, 'orders.order.stock_shortage', order.id)).length > 0);
    expect((await getOrder(t, shop, order.id)).status).toBe('confirmed');
  });

  it('short of stock, it waits: stock received for it moves it on to paid, oldest order first', async () => {
    const [v] = await createVariants(t, shop, [2500]);
    await track(t, shop, v.id);
    const first = await createOrder(t, shop, [{ variant_id: v.id, quantity: 2 }]);
    const second = await createOrder(t, shop, [{ variant_id: v.id, quantity: 2 }]);
    const unpaid = await createOrder(t, shop, [{ variant_id: v.id, quantity: 1 }]);
    await raise({ payment_id: 'pay_3', order_id: first.id, amount: first.total, currency: first.currency });
    await raise({ payment_id: 'pay_4', order_id: second.id, amount: second.total, currency: second.currency });
    await until(async () => (await outbox(t, 'orders.order.stock_shortage', second.id)).length > 0 && (await outbox(t, 'orders.order.stock_shortage', first.id)).length > 0);

    // Not enough for either: both keep waiting, nothing is half-reserved.
    await stockUp(t, shop, [v.id], 1, warehouse);
    await new Promise((r) => setTimeout(r, 1500));
    expect((await getOrder(t, shop, first.id)).status).toBe('confirmed');
    expect(await levelOf(t, shop, warehouse, v.id)).toEqual({ on_hand: 1, reserved: 0, available: 1 });

    // Two more: the older order gets its two; the other still waits for one more.
    await stockUp(t, shop, [v.id], 2, warehouse);
    await until(async () => (await getOrder(t, shop, first.id)).status === 'paid');
    const history = (await getOrder(t, shop, first.id)).history.map((h: { to: string; note: string | null }) => `${h.to}:${h.note}`);
    expect(history.at(-1)).toBe('paid:payment pay_3; stock arrived');
    expect((await getOrder(t, shop, second.id)).status).toBe('confirmed');
    expect(await levelOf(t, shop, warehouse, v.id)).toEqual({ on_hand: 3, reserved: 2, available: 1 });

    await stockUp(t, shop, [v.id], 1, warehouse);
    await until(async () => (await getOrder(t, shop, second.id)).status === 'paid');
    expect(await levelOf(t, shop, warehouse, v.id)).toEqual({ on_hand: 4, reserved: 4, available: 0 });
    // An order nobody paid for never takes stock.
    expect((await getOrder(t, shop, unpaid.id)).status).toBe('pending');
  });

  it('a cancelled order waiting for stock waits no more', async () => {
    const [v] = await createVariants(t, shop, [2500]);
    await track(t, shop, v.id);
    const order = await createOrder(t, shop, [{ variant_id: v.id, quantity: 1 }]);
    await raise({ payment_id: 'pay_5', order_id: order.id, amount: order.total, currency: order.currency });
    await until(async () => (await outbox(t, 'orders.order.stock_shortage', order.id)).length > 0);
    const cancelled = await t.request({ method: 'POST', url: `/api/v1/orders/${order.id}/cancel`, headers: shop.headers(), payload: { reason: 'out of stock' } });
    expect(cancelled.statusCode).toBe(200);
    await stockUp(t, shop, [v.id], 3, warehouse);
    await new Promise((r) => setTimeout(r, 1500));
    expect((await getOrder(t, shop, order.id)).status).toBe('cancelled');
    expect(await levelOf(t, shop, warehouse, v.id)).toEqual({ on_hand: 3, reserved: 0, available: 3 });
  });
});
