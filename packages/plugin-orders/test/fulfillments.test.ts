import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, confirmPayment, createOrder, createVariants, getOrder, inTenant, levelOf, MISSING, ORDERS, ordersApp, outbox, stockUp } from './helpers.js';
import { Orders } from '../src/index.js';

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
const fulfil = (orderId: string, body: unknown) => admin()('POST', `${ORDERS}/${orderId}/fulfillments`, body);

/** A paid order of 3 × a and 2 × b, 10 of each in stock. */
async function paidOrder() {
  const [a, b] = await createVariants(t, shop, [1000, 2000]);
  await stockUp(t, shop, [a.id, b.id], 10, warehouse);
  const order = await createOrder(t, shop, [{ variant_id: a.id, quantity: 3 }, { variant_id: b.id, quantity: 2 }]);
  await confirmPayment(t, shop, order);
  return { order, a: a.id, b: b.id };
}

describe('POST /orders/:id/fulfillments', () => {
  it('split shipments: partially_fulfilled, then fulfilled; stock is consumed as it ships', async () => {
    const { order, a, b } = await paidOrder();
    const first = await fulfil(order.id, {
      carrier: 'serpost', tracking_number: 'SP1', tracking_url: 'https://track.example.com/SP1', estimated_delivery: '2030-01-05T12:00:00Z',
      line_items: [{ variant_id: a, quantity: 2, title: 'Poncho S' }],
    });
    expect(first.statusCode).toBe(201);
    expect(first.json().data).toMatchObject({
      order_id: order.id, status: 'shipped', carrier: 'serpost', tracking_number: 'SP1', tracking_url: 'https://track.example.com/SP1',
      estimated_delivery: '2030-01-05T12:00:00.000Z', line_items: [{ variant_id: a, quantity: 2, title: 'Poncho S' }], delivered_at: null,
    });
    let read = await getOrder(t, shop, order.id);
    expect(read.status).toBe('partially_fulfilled');
    expect(read.line_items.map((l) => l.fulfilled_quantity)).toEqual([2, 0]);
    expect(await levelOf(t, shop, warehouse, a)).toEqual({ on_hand: 8, reserved: 1, available: 7 });
    expect((await outbox(t, 'orders.order.partially_fulfilled', order.id))).toHaveLength(1);

    const second = await fulfil(order.id, { carrier: 'olva', tracking_number: 'OL2', line_items: [{ variant_id: b, quantity: 1 }] });
    expect(second.statusCode).toBe(201);
    expect((await getOrder(t, shop, order.id)).status).toBe('partially_fulfilled');

    const last = await fulfil(order.id, { carrier: 'olva', tracking_number: 'OL3', line_items: [{ variant_id: a, quantity: 1 }, { variant_id: b, quantity: 1 }] });
    expect(last.statusCode).toBe(201);
    read = await getOrder(t, shop, order.id);
    expect(read.status).toBe('fulfilled');
    expect(await levelOf(t, shop, warehouse, a)).toEqual({ on_hand: 7, reserved: 0, available: 7 });
    expect(await levelOf(t, shop, warehouse, b)).toEqual({ on_hand: 8, reserved: 0, available: 8 });
    const [event] = await outbox(t, 'orders.order.fulfilled', order.id);
    expect(event.data).toEqual({ id: order.id, status: 'fulfilled', tracking_number: 'OL3', carrier: 'olva', fulfilled_at: read.fulfilled_at });
    expect((await outbox(t, 'orders.fulfillment.created', order.id))).toHaveLength(3);

    const listed = await admin()('GET', `${ORDERS}/${order.id}/fulfillments`);
    expect(listed.statusCode).toBe(200);
    expect(listed.json().data.map((f: { tracking_number: string }) => f.tracking_number)).toEqual(['SP1', 'OL2', 'OL3']);
    // A fulfilled order takes no more shipments.
    const more = await fulfil(order.id, { line_items: [{ variant_id: a, quantity: 1 }] });
    expect(more.statusCode).toBe(409);
    expect(more.json().error.code).toBe('INVALID_STATE_TRANSITION');
  });

  it('without line_items ships everything left', async () => {
    const { order } = await paidOrder();
    const res = await fulfil(order.id, { carrier: 'dhl', tracking_number: 'D1' });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.line_items.map((i: { quantity: number }) => i.quantity)).toEqual([3, 2]);
    expect((await getOrder(t, shop, order.id)).status).toBe('fulfilled');
  });

  it('refuses more than is left to ship and variants not in the order (422), and nothing moves', async () => {
    const { order, a } = await paidOrder();
    await fulfil(order.id, { line_items: [{ variant_id: a, quantity: 2 }] });
    const over = await fulfil(order.id, { line_items: [{ variant_id: a, quantity: 2 }] });
    expect(over.statusCode).toBe(422);
    expect(over.json().error).toMatchObject({ code: 'FULFILLMENT_QUANTITY_EXCEEDED', details: [{ variant_id: a, requested: 2, remaining: 1 }] });
    const stranger = await fulfil(order.id, { line_items: [{ variant_id: MISSING, quantity: 1 }] });
    expect(stranger.statusCode).toBe(422);
    expect(stranger.json().error.code).toBe('LINE_ITEM_NOT_FOUND');
    expect(await levelOf(t, shop, warehouse, a)).toEqual({ on_hand: 8, reserved: 1, available: 7 });
    expect((await getOrder(t, shop, order.id)).fulfillments).toHaveLength(1);
  });

  it('ships a pending order (cash on delivery): the stock it holds since it was placed is consumed', async () => {
    const [v] = await createVariants(t, shop, [500]);
    await stockUp(t, shop, [v.id], 4, warehouse);
    const order = await createOrder(t, shop, [{ variant_id: v.id, quantity: 2 }]);
    expect(await levelOf(t, shop, warehouse, v.id)).toEqual({ on_hand: 4, reserved: 2, available: 2 });
    const res = await fulfil(order.id, { line_items: [{ variant_id: v.id, quantity: 1 }] });
    expect(res.statusCode).toBe(201);
    expect((await getOrder(t, shop, order.id)).status).toBe('partially_fulfilled');
    expect(await levelOf(t, shop, warehouse, v.id)).toEqual({ on_hand: 3, reserved: 1, available: 2 });
  });

  it('a backordered unit ships once stock arrives: reserved and consumed in the same step; short, inventory refuses and nothing is written', async () => {
    const [scarce] = await createVariants(t, shop, [500]);
    await stockUp(t, shop, [scarce.id], 1, warehouse);
    const pending = await createOrder(t, shop, [{ variant_id: scarce.id, quantity: 2 }]);
    expect(pending.line_items[0]).toMatchObject({ quantity: 2, backordered_quantity: 1 });
    const short = await fulfil(pending.id, {});
    expect(short.statusCode).toBe(409);
    expect(short.json().error).toMatchObject({ code: 'INSUFFICIENT_STOCK', details: [{ variant_id: scarce.id, requested: 1, available: 0 }] });
    expect((await getOrder(t, shop, pending.id))).toMatchObject({ status: 'pending', fulfillments: [] });
    await stockUp(t, shop, [scarce.id], 1, warehouse);
    expect((await fulfil(pending.id, {})).statusCode).toBe(201);
    const shipped = await getOrder(t, shop, pending.id);
    expect(shipped).toMatchObject({ status: 'fulfilled' });
    expect(shipped.line_items[0]).toMatchObject({ fulfilled_quantity: 2, backordered_quantity: 0 });
    expect(await levelOf(t, shop, warehouse, scarce.id)).toEqual({ on_hand: 0, reserved: 0, available: 0 });
  });

  it('a variant the store keeps no stock of ships without touching inventory', async () => {
    const [free] = await createVariants(t, shop, [500]);
    const order = await createOrder(t, shop, [{ variant_id: free.id, quantity: 3 }]);
    expect(order.line_items[0].backordered_quantity).toBe(0);
    expect((await fulfil(order.id, {})).statusCode).toBe(201);
    expect((await getOrder(t, shop, order.id)).status).toBe('fulfilled');
    expect(await levelOf(t, shop, warehouse, free.id)).toEqual({ on_hand: 0, reserved: 0, available: 0 });
  });

  it('refuses cancelled and refunded orders (409), bad bodies (400) and unknown orders (404)', async () => {
    const { order: cancelled } = await paidOrder();
    await admin()('POST', `${ORDERS}/${cancelled.id}/cancel`, {});
    expect((await fulfil(cancelled.id, {})).json().error.code).toBe('INVALID_STATE_TRANSITION');
    const { order: refunded } = await paidOrder();
    await inTenant(t, shop, (tx) => t.app.container.resolve(Orders).markRefunded(tx, refunded.id));
    expect((await fulfil(refunded.id, {})).statusCode).toBe(409);
    const { order, a } = await paidOrder();
    for (const body of [
      { line_items: [] },
      { line_items: [{ variant_id: 'x', quantity: 1 }] },
      { line_items: [{ variant_id: a, quantity: 0 }] },
      { line_items: [{ variant_id: a }] },
      { tracking_url: 'not a url' },
      { estimated_delivery: 'tomorrow' },
      { carrier: 5 },
      { surprise: true },
    ]) {
      const res = await fulfil(order.id, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    expect((await fulfil(MISSING, {})).statusCode).toBe(404);
    expect((await admin()('GET', `${ORDERS}/${MISSING}/fulfillments`)).statusCode).toBe(404);
  });
});

describe('POST /fulfillments/:id/delivered', () => {
  it('marks one shipment delivered; an order in transit is fulfilled once all shipments are delivered', async () => {
    const { order } = await paidOrder();
    await admin()('POST', `${ORDERS}/${order.id}/ready-to-ship`, {});
    const moving = (await admin()('POST', `${ORDERS}/${order.id}/in-transit`, { carrier: 'olva', tracking_number: 'T1' })).json().data;
    expect(moving.status).toBe('in_transit');
    const shipment = moving.fulfillments[0].id as string;
    const res = await t.request({ method: 'POST', url: `/api/v1/fulfillments/${shipment}/delivered`, headers: shop.headers() });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ id: shipment, status: 'delivered', delivered_at: expect.any(String) });
    const read = await getOrder(t, shop, order.id);
    expect(read.status).toBe('fulfilled');
    expect((await outbox(t, 'orders.order.fulfilled', order.id))[0].data).toMatchObject({ tracking_number: 'T1', carrier: 'olva' });
    const again = await admin()('POST', `/api/v1/fulfillments/${shipment}/delivered`);
    expect(again.statusCode).toBe(409);
  });

  it('of split shipments: the order stays partially fulfilled while items remain', async () => {
    const { order, a } = await paidOrder();
    const shipment = (await fulfil(order.id, { line_items: [{ variant_id: a, quantity: 1 }] })).json().data.id;
    expect((await admin()('POST', `/api/v1/fulfillments/${shipment}/delivered`)).statusCode).toBe(200);
    const read = await getOrder(t, shop, order.id);
    expect(read.status).toBe('partially_fulfilled');
    expect(read.fulfillments[0].status).toBe('delivered');
  });

  it('404 FULFILLMENT_NOT_FOUND, 400 for a malformed id, 403 for storefront keys', async () => {
    const missing = await admin()('POST', `/api/v1/fulfillments/${MISSING}/delivered`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('FULFILLMENT_NOT_FOUND');
    expect((await admin()('POST', '/api/v1/fulfillments/nope/delivered')).statusCode).toBe(400);
    expect((await caller(t, shop, shop.storefrontToken)('POST', `/api/v1/fulfillments/${MISSING}/delivered`)).statusCode).toBe(403);
  });
});
