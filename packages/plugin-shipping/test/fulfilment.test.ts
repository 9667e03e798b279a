import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, createShipment, getOrder, outbox, paidOrder, SHIPMENTS, shippingApp } from './helpers.js';

/** A delivered shipment marks the order's fulfilment delivered, so the order reaches fulfilled. */

let t: TestApp;
let shop: TestTenant;
beforeAll(async () => {
  t = await shippingApp();
  shop = await t.createTenant({ currency: 'PEN' });
});
afterAll(async () => t?.close());

const admin = () => caller(t, shop);

/** A paid order handed to the courier: in_transit, with one fulfilment of everything. */
async function inTransitOrder(tracking: string | null = null) {
  const order = await paidOrder(t, shop);
  expect((await admin()('POST', `/api/v1/orders/${order.id}/ready-to-ship`, {})).statusCode).toBe(200);
  const res = await admin()('POST', `/api/v1/orders/${order.id}/in-transit`, { carrier: 'olva', ...(tracking ? { tracking_number: tracking } : {}) });
  expect(res.statusCode, res.body).toBe(200);
  const read = await getOrder(t, shop, order.id);
  expect(read.status).toBe('in_transit');
  expect(read.fulfillments).toHaveLength(1);
  return read;
}

const label = (id: string, tracking: string) => admin()('POST', `${SHIPMENTS}/${id}/label`, { tracking_number: tracking, label_url: `https://labels.example.com/${tracking}.pdf` });

describe('delivered shipment → delivered fulfilment → fulfilled order', () => {
  it('POST delivered: the fulfilment with the same tracking number is delivered and the order fulfilled', async () => {
    const order = await inTransitOrder('OLVA-7001');
    const made = await createShipment(t, shop, order.id);
    await label(made.id, 'OLVA-7001');
    await admin()('PATCH', `${SHIPMENTS}/${made.id}/tracking`, { status: 'in_transit', location: 'Lima', description: 'Picked up', timestamp: '2026-11-20T10:00:00Z' });
    const res = await admin()('POST', `${SHIPMENTS}/${made.id}/delivered`);
    expect(res.statusCode, res.body).toBe(200);
    const fulfilment = order.fulfillments[0];
    expect(res.json().data).toMatchObject({ status: 'delivered', fulfillment_id: fulfilment.id });
    const after = await getOrder(t, shop, order.id);
    expect(after.status).toBe('fulfilled');
    expect(after.fulfillments).toMatchObject([{ id: fulfilment.id, status: 'delivered' }]);
    expect((await outbox(t, 'orders.fulfillment.delivered', fulfilment.id))).toHaveLength(1);
    expect((await outbox(t, 'orders.order.fulfilled', order.id))[0].data).toMatchObject({ id: order.id, status: 'fulfilled', tracking_number: 'OLVA-7001', carrier: 'olva' });
    expect((await outbox(t, 'shipping.shipment.delivered', made.id))[0].data).toMatchObject({ status: 'delivered', order_id: order.id, fulfillment_id: fulfilment.id });
  });

  it("a carrier's delivered event does the same; the order's only open fulfilment is the match", async () => {
    const order = await inTransitOrder();
    const made = await createShipment(t, shop, order.id);
    await label(made.id, 'SHALOM-55');
    const res = await admin()('PATCH', `${SHIPMENTS}/${made.id}/tracking`, { status: 'delivered', location: 'Cusco', description: 'Signed by Rosa', timestamp: '2026-11-22T15:00:00Z' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'delivered', fulfillment_id: order.fulfillments[0].id });
    expect((await getOrder(t, shop, order.id)).status).toBe('fulfilled');
  });

  it('the fulfilment named on create or on delivery is the one delivered; several open and none named is 422', async () => {
    const order = await paidOrder(t, shop, 2);
    const variantId = ((await admin()('GET', `/api/v1/orders/${order.id}`)).json().data.line_items[0].variant_id) as string;
    const first = await admin()('POST', `/api/v1/orders/${order.id}/fulfillments`, { line_items: [{ variant_id: variantId, quantity: 1 }], carrier: 'olva' });
    const second = await admin()('POST', `/api/v1/orders/${order.id}/fulfillments`, { line_items: [{ variant_id: variantId, quantity: 1 }], carrier: 'olva' });
    expect([first.statusCode, second.statusCode]).toEqual([201, 201]);
    const [f1, f2] = [first.json().data.id as string, second.json().data.id as string];
    // Without a name or a tracking number, two open fulfilments are ambiguous: 422, nothing changes.
    const unnamed = await createShipment(t, shop, order.id);
    const refused = await admin()('POST', `${SHIPMENTS}/${unnamed.id}/delivered`);
    expect(refused.statusCode, refused.body).toBe(422);
    expect(refused.json().error).toMatchObject({ code: 'SHIPMENT_FULFILLMENT_AMBIGUOUS', details: [{ path: 'body.fulfillment_id', open_fulfillment_ids: [f1, f2] }] });
    const byCarrier = await admin()('PATCH', `${SHIPMENTS}/${unnamed.id}/tracking`, { status: 'delivered', location: 'Cusco', description: null, timestamp: '2026-11-22T15:00:00Z' });
    expect(byCarrier.json().error?.code).toBe('SHIPMENT_FULFILLMENT_AMBIGUOUS');
    expect((await admin()('GET', `${SHIPMENTS}/${unnamed.id}`)).json().data).toMatchObject({ status: 'pending', fulfillment_id: null, events: [] });
    expect((await getOrder(t, shop, order.id)).fulfillments.map((f) => f.status)).toEqual(['shipped', 'shipped']);
    // Naming it on delivery settles it; another one than the shipment carries is refused.
    const named1 = await admin()('POST', `${SHIPMENTS}/${unnamed.id}/delivered`, { fulfillment_id: f1 });
    expect(named1.statusCode, named1.body).toBe(200);
    expect(named1.json().data).toMatchObject({ status: 'delivered', fulfillment_id: f1 });
    expect((await getOrder(t, shop, order.id)).fulfillments.map((f) => f.status)).toEqual(['delivered', 'shipped']);

    const named = await createShipment(t, shop, order.id, { fulfillment_id: f2 });
    expect(named).toMatchObject({ fulfillment_id: f2 });
    const other = await admin()('POST', `${SHIPMENTS}/${named.id}/delivered`, { fulfillment_id: f1 });
    expect(other.json().error).toMatchObject({ code: 'FULFILLMENT_MISMATCH', details: [{ path: 'body.fulfillment_id', fulfillment_id: f2 }] });
    expect((await admin()('POST', `${SHIPMENTS}/${named.id}/delivered`)).statusCode).toBe(200);
    const after = await getOrder(t, shop, order.id);
    expect(after.fulfillments.map((f) => [f.id, f.status])).toEqual([[f1, 'delivered'], [f2, 'delivered']]);
    expect(after.status).toBe('fulfilled');
  });

  it('a paid order with nothing fulfilled: the parcel carries everything left, the order is fulfilled', async () => {
    const order = await paidOrder(t, shop, 3);
    expect(order.fulfillments).toEqual([]);
    const made = await createShipment(t, shop, order.id);
    await label(made.id, 'OLVA-7100');
    const res = await admin()('POST', `${SHIPMENTS}/${made.id}/delivered`);
    expect(res.statusCode, res.body).toBe(200);
    const after = await getOrder(t, shop, order.id);
    expect(after.status).toBe('fulfilled');
    expect(after.fulfillments).toMatchObject([{ status: 'delivered', tracking_number: 'OLVA-7100' }]);
    const read = (await admin()('GET', `/api/v1/orders/${order.id}`)).json().data;
    expect(read.line_items.map((l: { quantity: number; fulfilled_quantity: number }) => [l.quantity, l.fulfilled_quantity])).toEqual([[3, 3]]);
    expect(res.json().data).toMatchObject({ status: 'delivered', fulfillment_id: after.fulfillments[0].id });
    expect(await outbox(t, 'orders.fulfillment.delivered', after.fulfillments[0].id)).toHaveLength(1);
    expect(await outbox(t, 'orders.order.fulfilled', order.id)).toHaveLength(1);
    // A second parcel of the same order finds nothing left to deliver: the order stays as it is.
    const late = await createShipment(t, shop, order.id);
    expect((await admin()('POST', `${SHIPMENTS}/${late.id}/delivered`)).json().data).toMatchObject({ status: 'delivered', fulfillment_id: null });
    expect((await getOrder(t, shop, order.id)).fulfillments).toHaveLength(1);
  });

  it('a fulfilment already delivered through the orders API is linked, not delivered twice', async () => {
    const order = await inTransitOrder('OLVA-7002');
    const fulfilment = order.fulfillments[0].id;
    expect((await admin()('POST', `/api/v1/fulfillments/${fulfilment}/delivered`)).statusCode).toBe(200);
    const made = await createShipment(t, shop, order.id, { fulfillment_id: fulfilment });
    const res = await admin()('POST', `${SHIPMENTS}/${made.id}/delivered`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'delivered', fulfillment_id: fulfilment });
    expect(await outbox(t, 'orders.fulfillment.delivered', fulfilment)).toHaveLength(1);
    expect((await getOrder(t, shop, order.id)).status).toBe('fulfilled');
  });
});
