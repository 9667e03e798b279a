import type { TestApp } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS, expectError, fulfilledOrder, levelOf, ok, outbox, pay, product, requestReturn, returnsApp, shop, statuses, type Shop } from './helpers.js';

// An exchange's new items and a claim's replacement ship as a new fulfilment of the same order
// (decision 0087): shown on the order, taking the stock the return held, once.
let t: TestApp;
let s: Shop;
beforeAll(async () => {
  t = await returnsApp();
  s = await shop(t, false);
});
afterAll(async () => t?.close());

/** An approved exchange of the order's one unit for one unit of a new product; the order, the new variant and the return. */
async function approvedExchange() {
  const poncho = await product(s, 4550, 5);
  const scarf = await product(s, 4550, 5);
  const o = await fulfilledOrder(t, s, { line_items: [{ variant_id: poncho.variantId, quantity: 1 }] });
  const asked = await requestReturn(s.admin, { order_id: o.id, kind: 'exchange', lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }], new_items: [{ variant_id: scarf.variantId, quantity: 1 }] });
  await ok(await s.admin('POST', `/api/v1/returns/${asked.id}/approve`), 200);
  return { o, scarf, asked };
}

describe('a replacement shipment', () => {
  it('of an exchange is a new fulfilment of its order, tagged with the return, taking the held stock once', async () => {
    const { o, scarf, asked } = await approvedExchange();
    const before = await levelOf(s, scarf.variantId);
    const shipped = await ok(await s.admin('POST', `/api/v1/returns/${asked.id}/shipment`, { carrier: 'olva', tracking_number: 'OLV-7' }), 200);
    expect(shipped.shipment).toMatchObject({ fulfillment_id: expect.any(String), carrier: 'olva', tracking_number: 'OLV-7' });
    expect(await levelOf(s, scarf.variantId)).toEqual({ on_hand: before.on_hand - 1, reserved: before.reserved - 1, available: before.available });

    const order = await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200);
    // A fulfilled order stays fulfilled; its own line is as it was.
    expect(order).toMatchObject({ status: 'fulfilled', line_items: [expect.objectContaining({ quantity: 1, fulfilled_quantity: 1 })] });
    expect(order.fulfillments).toHaveLength(2);
    expect(order.fulfillments[0].line_items[0]).toMatchObject({ line_item_id: o.line_items[0].id, return_id: null });
    expect(order.fulfillments[1]).toMatchObject({
      id: shipped.shipment.fulfillment_id, order_id: o.id, status: 'shipped', carrier: 'olva', tracking_number: 'OLV-7',
      line_items: [{ line_item_id: null, variant_id: scarf.variantId, title: expect.any(String), quantity: 1, return_id: asked.id }],
    });
    const listed = (await ok(await s.admin('GET', '/api/v1/orders?limit=100'), 200)).find((x: any) => x.id === o.id);
    expect(listed.fulfillments).toEqual(order.fulfillments);
    const list = await ok(await s.admin('GET', `/api/v1/orders/${o.id}/fulfillments`), 200);
    expect(list.map((f: any) => f.id)).toEqual(order.fulfillments.map((f: any) => f.id));

    const created = await outbox(t, 'orders.fulfillment.created', shipped.shipment.fulfillment_id);
    expect(created.map((e) => e.data)).toEqual([expect.objectContaining({ id: shipped.shipment.fulfillment_id, order_id: o.id, items: [{ variant_id: scarf.variantId, quantity: 1, return_id: asked.id }] })]);
    expect((await outbox(t, 'returns.return.shipped', asked.id))[0].data).toMatchObject({ fulfillment_id: shipped.shipment.fulfillment_id });

    // Shipping again: refused, and neither another fulfilment nor stock.
    expectError(await s.admin('POST', `/api/v1/returns/${asked.id}/shipment`, {}), 409, 'ALREADY_SHIPPED');
    expect((await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200)).fulfillments).toHaveLength(2);
    expect(await levelOf(s, scarf.variantId)).toEqual({ on_hand: before.on_hand - 1, reserved: before.reserved - 1, available: before.available });
    expect((await ok(await s.admin('GET', `/api/v1/returns/${asked.id}`), 200)).shipment.fulfillment_id).toBe(shipped.shipment.fulfillment_id);

    // Delivered on its own confirmation; the order stays fulfilled.
    expect(await ok(await s.admin('POST', `/api/v1/fulfillments/${shipped.shipment.fulfillment_id}/delivered`), 200)).toMatchObject({ status: 'delivered' });
    expect((await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200)).status).toBe('fulfilled');
  });

  it('of a claim for a replacement is a fulfilment of the order too, and the claim closes', async () => {
    const cup = await product(s, 1500, 5);
    const o = await fulfilledOrder(t, s, { line_items: [{ variant_id: cup.variantId, quantity: 2 }] });
    const claim = await ok(await s.admin('POST', '/api/v1/returns', { order_id: o.id, kind: 'claim', claim_type: 'damaged', resolution: 'replace', lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }] }), 201);
    await ok(await s.admin('POST', `/api/v1/returns/${claim.id}/approve`), 200);
    const before = await levelOf(s, cup.variantId);
    const shipped = await ok(await s.admin('POST', `/api/v1/returns/${claim.id}/shipment`, {}), 200);
    expect(shipped).toMatchObject({ status: 'closed', shipment: { fulfillment_id: expect.any(String) } });
    expect(await levelOf(s, cup.variantId)).toEqual({ on_hand: before.on_hand - 1, reserved: before.reserved - 1, available: before.available });
    const order = await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200);
    expect(order.status).toBe('fulfilled');
    expect(order.line_items[0]).toMatchObject({ quantity: 2, fulfilled_quantity: 2 });
    expect(order.fulfillments.at(-1)).toMatchObject({ id: shipped.shipment.fulfillment_id, line_items: [{ line_item_id: null, variant_id: cup.variantId, quantity: 1, return_id: claim.id }] });
  });

  it('of an order in transit neither waits for nor completes the order’s delivery', async () => {
    const cup = await product(s, 1500, 5);
    const d = await ok(await s.admin('POST', '/api/v1/draft-orders', { email: 'rosa@example.com', shipping_address: ADDRESS, line_items: [{ variant_id: cup.variantId, quantity: 1 }] }), 201);
    const { order_id: orderId } = await ok(await s.admin('POST', `/api/v1/draft-orders/${d.id}/complete`, {}), 200);
    const placed = await ok(await s.admin('GET', `/api/v1/orders/${orderId}`), 200);
    await pay(s, orderId, placed.total);
    await t.settle();
    await ok(await s.admin('POST', `/api/v1/orders/${orderId}/ready-to-ship`, {}), 200);
    await ok(await s.admin('POST', `/api/v1/orders/${orderId}/in-transit`, { carrier: 'olva', tracking_number: 'OLV-8' }), 200);
    const claim = await ok(await s.admin('POST', '/api/v1/returns', { order_id: orderId, kind: 'claim', claim_type: 'damaged', resolution: 'replace', lines: [{ line_item_id: placed.line_items[0].id, quantity: 1 }] }), 201);
    await ok(await s.admin('POST', `/api/v1/returns/${claim.id}/approve`), 200);
    const { shipment } = await ok(await s.admin('POST', `/api/v1/returns/${claim.id}/shipment`, {}), 200);
    const inTransit = await ok(await s.admin('GET', `/api/v1/orders/${orderId}`), 200);
    expect(inTransit.status).toBe('in_transit');
    const own = inTransit.fulfillments.find((f: any) => f.id !== shipment.fulfillment_id);
    // Its own parcel delivered: fulfilled, the replacement still on its way.
    await ok(await s.admin('POST', `/api/v1/fulfillments/${own.id}/delivered`), 200);
    const delivered = await ok(await s.admin('GET', `/api/v1/orders/${orderId}`), 200);
    expect(delivered.status).toBe('fulfilled');
    expect(delivered.fulfillments.find((f: any) => f.id === shipment.fulfillment_id).status).toBe('shipped');
    // The replacement delivered later: the order stays fulfilled.
    await ok(await s.admin('POST', `/api/v1/fulfillments/${shipment.fulfillment_id}/delivered`), 200);
    expect((await ok(await s.admin('GET', `/api/v1/orders/${orderId}`), 200)).status).toBe('fulfilled');
  });

  it('of another store’s return is 404, and nothing ships', async () => {
    const { o, scarf, asked } = await approvedExchange();
    const other = await shop(t, false);
    const before = await levelOf(s, scarf.variantId);
    expectError(await other.admin('POST', `/api/v1/returns/${asked.id}/shipment`, {}), 404, 'RETURN_NOT_FOUND');
    expect((await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200)).fulfillments).toHaveLength(1);
    expect(await levelOf(s, scarf.variantId)).toEqual(before);
  });

  it('asked five times at once ships once: one fulfilment, one unit out of stock', async () => {
    const { o, scarf, asked } = await approvedExchange();
    const before = await levelOf(s, scarf.variantId);
    const answers = await Promise.all(Array.from({ length: 5 }, () => s.admin('POST', `/api/v1/returns/${asked.id}/shipment`, {})));
    expect(statuses(answers)).toEqual([200, 409, 409, 409, 409]);
    expect(answers.filter((a) => a.statusCode === 409).every((a) => a.json().error.code === 'ALREADY_SHIPPED')).toBe(true);
    const order = await ok(await s.admin('GET', `/api/v1/orders/${o.id}`), 200);
    expect(order.fulfillments.filter((f: any) => f.line_items.some((i: any) => i.return_id === asked.id))).toHaveLength(1);
    expect(await levelOf(s, scarf.variantId)).toEqual({ on_hand: before.on_hand - 1, reserved: before.reserved - 1, available: before.available });
    const events = await outbox(t, 'orders.fulfillment.created', o.id);
    expect(events.filter((e) => (e.data.items as any[]).some((i) => i.return_id === asked.id))).toHaveLength(1);
  });
});
