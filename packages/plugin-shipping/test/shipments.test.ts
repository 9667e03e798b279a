import type { TestApp, TestTenant } from '@qhatu/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, createOrder, createShipment, CUSCO, LIMA, MISSING, outbox, paidOrder, shipment, SHIPMENTS, shippingApp, stockedVariant } from './helpers.js';

let t: TestApp;
let shop: TestTenant;
let other: TestTenant;
let orderId: string;
beforeAll(async () => {
  t = await shippingApp();
  shop = await t.createTenant({ currency: 'PEN' });
  other = await t.createTenant({ currency: 'PEN' });
  orderId = (await paidOrder(t, shop)).id;
});
afterAll(async () => t?.close());

const admin = () => caller(t, shop);
const label = (id: string, tracking = 'OLVA-000123') => admin()('POST', `${SHIPMENTS}/${id}/label`, { tracking_number: tracking, label_url: `https://labels.example.com/${tracking}.pdf` });
const track = (id: string, status: string, timestamp: string, more: Record<string, unknown> = {}) =>
  admin()('PATCH', `${SHIPMENTS}/${id}/tracking`, { status, location: 'Lima', description: `${status} at ${timestamp}`, timestamp, ...more });

function expect409(res: { statusCode: number; body: string; json(): { error: { code: string } } }) {
  expect(res.statusCode, res.body).toBe(409);
  expect(res.json().error.code).toBe('INVALID_STATE_TRANSITION');
}

describe('creating a shipment', () => {
  it('is pending with no events, addresses as given (optional fields null), dimensions grouped', async () => {
    const res = await admin()('POST', SHIPMENTS, shipment(orderId, { origin_address: { ...LIMA, country: 'pe' } }));
    expect(res.statusCode, res.body).toBe(201);
    const data = res.json().data;
    expect(data).toEqual({
      id: expect.any(String),
      tenant_id: shop.id,
      order_id: orderId,
      fulfillment_id: null,
      carrier: 'olva',
      service_code: 'standard',
      status: 'pending',
      origin_address: { ...LIMA, line2: null, state: null, country: 'PE' },
      destination_address: { ...CUSCO, phone: null },
      weight_g: 1200,
      dimensions: { length_cm: 30, width_cm: 20, height_cm: 10 },
      tracking_number: null,
      label_url: null,
      events: [],
      failure_reason: null,
      delivered_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect((await admin()('GET', `${SHIPMENTS}/${data.id}`)).json().data).toEqual(data);
    expect((await outbox(t, 'shipping.shipment.created', data.id))[0].data).toMatchObject({ id: data.id, order_id: orderId, status: 'pending' });
  });

  it('validates the addresses: required fields and ISO 3166-1 alpha-2 countries', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ destination_address: { ...CUSCO, name: undefined } }, 'destination_address.name'],
      [{ destination_address: { ...CUSCO, line1: '' } }, 'destination_address.line1'],
      [{ destination_address: { ...CUSCO, city: undefined } }, 'destination_address.city'],
      [{ destination_address: { ...CUSCO, postal_code: undefined } }, 'destination_address.postal_code'],
      [{ destination_address: { ...CUSCO, country: undefined } }, 'destination_address.country'],
      [{ destination_address: { ...CUSCO, country: 'XX' } }, 'destination_address.country'],
      [{ destination_address: { ...CUSCO, country: 'Peru' } }, 'destination_address.country'],
      [{ origin_address: { ...LIMA, phone: 'call me' } }, 'origin_address.phone'],
      [{ origin_address: 'Lima' }, 'origin_address'],
      [{ weight_g: -5 }, 'weight_g'],
      [{ width_cm: 0 }, 'width_cm'],
      [{ carrier: undefined }, 'carrier'],
      [{ order_id: 'not-a-uuid' }, 'order_id'],
    ];
    for (const [over, field] of cases) {
      const res = await admin()('POST', SHIPMENTS, shipment(orderId, over));
      expect(res.statusCode, JSON.stringify(over)).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
      expect(res.json().error.details.map((d: { path: string }) => d.path).join(' '), JSON.stringify(over)).toContain(field);
    }
  });

  it("an order that is not this store's is a 422 ORDER_NOT_FOUND; a cancelled one cannot ship", async () => {
    const theirs = await paidOrder(t, other);
    for (const id of [theirs.id, MISSING]) {
      const res = await admin()('POST', SHIPMENTS, shipment(id));
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toMatchObject({ code: 'ORDER_NOT_FOUND', details: [{ path: 'body.order_id' }] });
    }
    const order = await createOrder(t, shop, await stockedVariant(t, shop));
    expect((await admin()('POST', `/api/v1/orders/${order.id}/cancel`, { reason: 'customer changed mind' })).statusCode).toBe(200);
    const res = await admin()('POST', SHIPMENTS, shipment(order.id));
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('ORDER_NOT_SHIPPABLE');
  });

  it('a fulfillment_id must be one of the order', async () => {
    const res = await admin()('POST', SHIPMENTS, shipment(orderId, { fulfillment_id: MISSING }));
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('FULFILLMENT_NOT_FOUND');
  });
});

describe('reading and listing', () => {
  it('lists newest first, a page at a time, filtered by order and status', async () => {
    const store = await t.createTenant();
    const orderA = (await paidOrder(t, store)).id;
    const orderB = (await paidOrder(t, store)).id;
    const made = [];
    for (const id of [orderA, orderB, orderA, orderB, orderA]) made.push(await createShipment(t, store, id));
    const list = caller(t, store);
    expect((await list('POST', `${SHIPMENTS}/${made[0].id}/failed`, { reason: 'lost' })).statusCode).toBe(200);
    const first = await list('GET', `${SHIPMENTS}?limit=2`);
    expect(first.statusCode).toBe(200);
    expect(first.json().data.map((s: { id: string }) => s.id)).toEqual([made[4].id, made[3].id]);
    const rest = await list('GET', `${SHIPMENTS}?limit=10&cursor=${first.json().meta.pagination.cursor}`);
    expect(rest.json().data.map((s: { id: string }) => s.id)).toEqual([made[2].id, made[1].id, made[0].id]);
    expect(rest.json().meta.pagination).toMatchObject({ cursor: null, has_next: false });
    const ofA = await list('GET', `${SHIPMENTS}?filter[order_id]=${orderA}`);
    expect(ofA.json().data.map((s: { id: string }) => s.id)).toEqual([made[4].id, made[2].id, made[0].id]);
    const failed = await list('GET', `${SHIPMENTS}?filter[status]=failed`);
    expect(failed.json().data.map((s: { id: string }) => s.id)).toEqual([made[0].id]);
    const pendingOfA = await list('GET', `${SHIPMENTS}?filter[status]=pending&filter[order_id]=${orderA}`);
    expect(pendingOfA.json().data.map((s: { id: string }) => s.id)).toEqual([made[4].id, made[2].id]);
    expect((await list('GET', `${SHIPMENTS}?filter[status]=draft`)).statusCode).toBe(400);
    expect((await list('GET', `${SHIPMENTS}?filter[order_id]=nope`)).statusCode).toBe(400);
  });

  it('an unknown shipment is a 404 SHIPMENT_NOT_FOUND, a malformed id a 400', async () => {
    const res = await admin()('GET', `${SHIPMENTS}/${MISSING}`);
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('SHIPMENT_NOT_FOUND');
    expect((await admin()('GET', `${SHIPMENTS}/nope`)).statusCode).toBe(400);
    for (const action of ['label', 'delivered', 'failed']) {
      const body = action === 'label' ? { tracking_number: 'X1', label_url: 'https://x.example/l.pdf' } : action === 'failed' ? { reason: 'x' } : undefined;
      expect((await admin()('POST', `${SHIPMENTS}/${MISSING}/${action}`, body)).statusCode).toBe(404);
    }
    expect((await track(MISSING, 'in_transit', '2026-11-20T10:00:00Z')).statusCode).toBe(404);
  });

  it('reading a shipment or a page of them is one transaction of three statements', async () => {
    const made = await createShipment(t, shop, orderId);
    const one = await t.countQueries(() => admin()('GET', `${SHIPMENTS}/${made.id}`));
    expect(one.result.statusCode).toBe(200);
    expect(one.count).toBeLessThanOrEqual(3);
    const page = await t.countQueries(() => admin()('GET', `${SHIPMENTS}?limit=100&filter[order_id]=${orderId}`));
    expect(page.result.statusCode).toBe(200);
    expect(page.count).toBeLessThanOrEqual(3);
  });

  it('is for admins: a storefront key gets 403', async () => {
    expect((await caller(t, shop, shop.storefrontToken)('GET', SHIPMENTS)).statusCode).toBe(403);
    expect((await caller(t, shop, shop.storefrontToken)('POST', SHIPMENTS, shipment(orderId))).statusCode).toBe(403);
  });
});

describe('label, tracking, delivery and failure', () => {
  it('label stores the tracking number and the label URL: label_generated', async () => {
    const made = await createShipment(t, shop, orderId);
    const res = await label(made.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'label_generated', tracking_number: 'OLVA-000123', label_url: 'https://labels.example.com/OLVA-000123.pdf' });
    expect((await outbox(t, 'shipping.shipment.label_generated', made.id))[0].data).toMatchObject({ status: 'label_generated', tracking_number: 'OLVA-000123' });
    const bad = await admin()('POST', `${SHIPMENTS}/${made.id}/label`, { tracking_number: 'X', label_url: 'javascript:alert(1)' });
    expect(bad.statusCode).toBe(400);
    expect((await admin()('POST', `${SHIPMENTS}/${made.id}/label`, { label_url: 'https://x.example/l.pdf' })).statusCode).toBe(400);
  });

  it('tracking events are kept in timestamp order; a late one goes where it belongs', async () => {
    const made = await createShipment(t, shop, orderId);
    await label(made.id);
    expect((await track(made.id, 'in_transit', '2026-11-20T10:00:00Z')).statusCode).toBe(200);
    const later = await track(made.id, 'out_for_delivery', '2026-11-21T08:30:00Z', { location: 'Cusco' });
    expect(later.json().data.status).toBe('shipped');
    // Reported late, but it happened first: recorded before the others, the status stays.
    const late = await track(made.id, 'pre_transit', '2026-11-19T18:00:00-05:00', { location: null, description: undefined });
    expect(late.statusCode).toBe(200);
    const data = late.json().data;
    expect(data.status).toBe('shipped');
    expect(data.events).toEqual([
      { status: 'pre_transit', location: null, description: null, timestamp: '2026-11-19T23:00:00.000Z' },
      { status: 'in_transit', location: 'Lima', description: 'in_transit at 2026-11-20T10:00:00Z', timestamp: '2026-11-20T10:00:00.000Z' },
      { status: 'out_for_delivery', location: 'Cusco', description: 'out_for_delivery at 2026-11-21T08:30:00Z', timestamp: '2026-11-21T08:30:00.000Z' },
    ]);
    expect((await admin()('GET', `${SHIPMENTS}/${made.id}`)).json().data.events).toEqual(data.events);
    expect((await outbox(t, 'shipping.shipment.tracking_updated', made.id)).map((e) => (e.data.event as { status: string }).status)).toEqual(['in_transit', 'out_for_delivery', 'pre_transit']);
    expect(await outbox(t, 'shipping.shipment.shipped', made.id)).toHaveLength(1);
  });

  it('the status follows the newest event: moving, failed, moving again, delivered', async () => {
    const made = await createShipment(t, shop, orderId);
    // Recorded only: the parcel is announced.
    expect((await track(made.id, 'pre_transit', '2026-11-20T08:00:00Z')).json().data.status).toBe('pending');
    expect((await track(made.id, 'in_transit', '2026-11-20T10:00:00Z')).json().data.status).toBe('shipped');
    expect((await track(made.id, 'exception', '2026-11-20T12:00:00Z')).json().data.status).toBe('shipped');
    const failed = (await track(made.id, 'failure', '2026-11-21T09:00:00Z', { description: 'Address not found' })).json().data;
    expect(failed).toMatchObject({ status: 'failed', failure_reason: 'Address not found' });
    const moving = (await track(made.id, 'in_transit', '2026-11-22T09:00:00Z')).json().data;
    expect(moving).toMatchObject({ status: 'shipped', failure_reason: null });
    // An older delivered report does not outrank the newest event.
    expect((await track(made.id, 'delivered', '2026-11-20T11:00:00Z')).json().data.status).toBe('shipped');
    const delivered = (await track(made.id, 'delivered', '2026-11-23T15:00:00Z', { location: 'Cusco' })).json().data;
    expect(delivered).toMatchObject({ status: 'delivered', delivered_at: expect.any(String) });
    expect(delivered.events.map((e: { status: string }) => e.status)).toEqual(['pre_transit', 'in_transit', 'delivered', 'exception', 'failure', 'in_transit', 'delivered']);
    expect(await outbox(t, 'shipping.shipment.delivered', made.id)).toHaveLength(1);
    expect(await outbox(t, 'shipping.shipment.failed', made.id)).toHaveLength(1);
  });

  it('the same event sent twice is recorded once', async () => {
    const made = await createShipment(t, shop, orderId);
    await track(made.id, 'in_transit', '2026-11-20T10:00:00Z');
    const again = await track(made.id, 'in_transit', '2026-11-20T10:00:00Z');
    expect(again.statusCode).toBe(200);
    expect(again.json().data.events).toHaveLength(1);
    expect(await outbox(t, 'shipping.shipment.tracking_updated', made.id)).toHaveLength(1);
  });

  it('refuses a tracking event that is not one (400) or dated in the future (422)', async () => {
    const made = await createShipment(t, shop, orderId);
    for (const body of [
      { status: 'teleported', timestamp: '2026-11-20T10:00:00Z' },
      { status: 'in_transit', timestamp: 'yesterday' },
      { status: 'in_transit' },
      { status: 'in_transit', timestamp: '2026-11-20T10:00:00Z', location: 'x'.repeat(301) },
    ]) {
      const res = await admin()('PATCH', `${SHIPMENTS}/${made.id}/tracking`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
    const future = await track(made.id, 'in_transit', new Date(Date.now() + 3 * 3_600_000).toISOString());
    expect(future.statusCode).toBe(422);
    expect(future.json().error.code).toBe('TRACKING_EVENT_IN_FUTURE');
    expect((await admin()('GET', `${SHIPMENTS}/${made.id}`)).json().data.events).toEqual([]);
  });

  it('delivered is final: label, tracking, failure and delivery again are 409', async () => {
    const made = await createShipment(t, shop, orderId);
    await label(made.id);
    const res = await admin()('POST', `${SHIPMENTS}/${made.id}/delivered`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ id: made.id, status: 'delivered', delivered_at: expect.any(String) });
    expect409(await label(made.id, 'OTHER-1'));
    expect409(await track(made.id, 'in_transit', '2026-11-20T10:00:00Z'));
    expect409(await admin()('POST', `${SHIPMENTS}/${made.id}/failed`, { reason: 'lost' }));
    expect409(await admin()('POST', `${SHIPMENTS}/${made.id}/delivered`));
    const read = (await admin()('GET', `${SHIPMENTS}/${made.id}`)).json().data;
    expect(read).toMatchObject({ status: 'delivered', tracking_number: 'OLVA-000123', events: [] });
  });

  it('failed records the reason; a failed parcel may be labelled again', async () => {
    const made = await createShipment(t, shop, orderId);
    expect((await admin()('POST', `${SHIPMENTS}/${made.id}/failed`, {})).statusCode).toBe(400);
    expect((await admin()('POST', `${SHIPMENTS}/${made.id}/failed`, { reason: '  ' })).statusCode).toBe(400);
    const res = await admin()('POST', `${SHIPMENTS}/${made.id}/failed`, { reason: 'The carrier lost the parcel' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'failed', failure_reason: 'The carrier lost the parcel' });
    expect((await outbox(t, 'shipping.shipment.failed', made.id))[0].data).toMatchObject({ status: 'failed', failure_reason: 'The carrier lost the parcel' });
    const relabelled = await label(made.id, 'OLVA-000999');
    expect(relabelled.json().data).toMatchObject({ status: 'label_generated', tracking_number: 'OLVA-000999', failure_reason: null });
  });

  it('a shipment keeps at most 500 tracking events (422 TRACKING_HISTORY_FULL)', async () => {
    const made = await createShipment(t, shop, orderId);
    const full = Array.from({ length: 500 }, (_, i) => ({ status: 'in_transit', location: null, description: `scan ${i}`, timestamp: new Date(Date.UTC(2026, 10, 1) + i * 60_000).toISOString() }));
    await t.app.orm.em.getConnection().execute(`update shipping_shipment set events = ?::jsonb where tenant_id = ? and id = ?`, [JSON.stringify(full), shop.id, made.id]);
    const res = await track(made.id, 'delivered', '2026-11-20T10:00:00Z');
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('TRACKING_HISTORY_FULL');
    expect((await admin()('GET', `${SHIPMENTS}/${made.id}`)).json().data).toMatchObject({ status: 'pending', events: { length: 500 } });
  });

  it('a label may be made again while the parcel travels (the specification: from any state)', async () => {
    const made = await createShipment(t, shop, orderId);
    await label(made.id, 'OLVA-1');
    expect((await track(made.id, 'in_transit', '2026-11-20T10:00:00Z')).json().data.status).toBe('shipped');
    expect((await label(made.id, 'OLVA-2')).json().data).toMatchObject({ status: 'label_generated', tracking_number: 'OLVA-2' });
  });

  it('two tracking updates at once both land, in timestamp order', async () => {
    const made = await createShipment(t, shop, orderId);
    const stamps = ['2026-11-20T10:00:00Z', '2026-11-20T09:00:00Z', '2026-11-20T12:00:00Z', '2026-11-20T11:00:00Z', '2026-11-20T08:00:00Z', '2026-11-20T13:00:00Z'];
    const answers = await Promise.all(stamps.map((s) => track(made.id, 'in_transit', s, { description: `scan ${s}` })));
    expect(answers.map((a) => a.statusCode)).toEqual(stamps.map(() => 200));
    const events = (await admin()('GET', `${SHIPMENTS}/${made.id}`)).json().data.events as Array<{ timestamp: string }>;
    expect(events.map((e) => e.timestamp)).toEqual([...stamps].sort().map((s) => new Date(s).toISOString()));
  });
});

describe('tenant isolation', () => {
  it("another store's shipment is a 404 to every operation and absent from lists", async () => {
    const theirs = await createShipment(t, other, (await paidOrder(t, other)).id);
    expect((await admin()('GET', `${SHIPMENTS}/${theirs.id}`)).statusCode).toBe(404);
    expect((await label(theirs.id)).statusCode).toBe(404);
    expect((await track(theirs.id, 'in_transit', '2026-11-20T10:00:00Z')).statusCode).toBe(404);
    expect((await admin()('POST', `${SHIPMENTS}/${theirs.id}/delivered`)).statusCode).toBe(404);
    expect((await admin()('POST', `${SHIPMENTS}/${theirs.id}/failed`, { reason: 'x' })).statusCode).toBe(404);
    expect((await admin()('GET', `${SHIPMENTS}?limit=100`)).json().data.map((s: { id: string }) => s.id)).not.toContain(theirs.id);
    expect((await admin()('GET', `${SHIPMENTS}?filter[order_id]=${theirs.order_id}`)).json().data).toEqual([]);
    const still = (await caller(t, other)('GET', `${SHIPMENTS}/${theirs.id}`)).json().data;
    expect(still).toMatchObject({ status: 'pending', events: [], tracking_number: null });
  });
});
