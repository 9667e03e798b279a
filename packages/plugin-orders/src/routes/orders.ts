import { ADMIN, answerAsBuilt, AppError, CLOCK, CustomFields, dataOf, errorResponses, IdParams, listOf, ReadCache, TenantContext, type Clock, type Page, type PageRequest } from '@qhatu/core';
import { Customers } from '@qhatu/plugin-customers';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import type { OrderStatus } from '../entities/order.js';
import {
  FulfillmentCreate,
  OrderCancel,
  OrderCreate,
  OrderFulfillmentOut,
  OrderInTransit,
  OrderListQuery,
  OrderNote,
  OrderOut,
  OrderPatch,
  OrderUndoReadyToShip,
} from '../schemas/order.js';
import { Fulfillments } from '../services/fulfillments.js';
import { OrderReads, type OrderFilter, type OrderJson, type OrderView } from '../services/order-reads.js';
import { Orders } from '../services/orders.js';
import { fulfillmentOut, orderOut } from './serialize.js';

/** The read cache's topic of the staff's kept order pages (checked against the database, never announced). */
const ORDERS_TOPIC = 'orders';
/** A kept page is checked for ten minutes at most: the changes it is checked against are kept an hour. */
const KEPT_MS = 10 * 60_000;

const KEPT = "A staff member's page is kept with the snapshot it was read at: asked again while no transaction has changed the store's orders since, it is answered from memory after one light statement (any change, made through any process or in the database, is in the next page).";

/** Admin keys see every order; a customer token only its customer's. */
const READERS = ['admin', 'customer'] as const;

/** The customer a customer token speaks for; undefined for admin keys. */
function ownerId(): string | undefined {
  const principal = TenantContext.principal();
  if (principal?.kind !== 'customer') return undefined;
  if (!principal.subjectId) throw AppError.unauthenticated('This token does not name a customer');
  return principal.subjectId;
}

function filterOf(query: OrderListQuery, fields: CustomFields): OrderFilter {
  return {
    status: query['filter[status]'] as OrderStatus | undefined,
    customer_id: query['filter[customer_id]'],
    customer_email: query['filter[customer_email]'],
    q: query.q,
    ownerId: ownerId(),
    customFields: fields.filtersOf(query, 'order'),
  };
}

const dateOf = (s?: string) => (s ? new Date(s) : undefined);

export async function orderRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const orders = container.resolve(Orders);
  const reads = container.resolve(OrderReads);
  const fulfillments = container.resolve(Fulfillments);
  const customers = container.resolve(Customers);
  const fields = container.resolve(CustomFields);
  const cache = container.resolve(ReadCache);
  const clock = container.resolve<Clock>(CLOCK);
  const tags = ['Orders'];
  const one = { 200: dataOf(OrderOut), ...errorResponses(400, 401, 403, 404, 409, 422) };
  // Filters on the indexed custom fields the store declares (422 CUSTOM_FIELD_NOT_INDEXED for the others).
  const listQuery = fields.listQuery(OrderListQuery, { entity: 'order' });
  const preValidation = fields.filterGuard({ entity: 'order' });
  const out = (v: OrderView) => orderOut(v, fields.present('order', v.order.customFields));
  const view = async (id: string) => ({ data: out(await reads.get(id)) });
  // Answered as PostgreSQL writes the page (`OrderReads.listAnswer`); `test/list.test.ts` holds the answers to `OrderOut`.
  const answer = (items: OrderJson[], pagination: Page<unknown>['pagination']) => ({
    data: items.map((item) => ({ ...item, custom_fields: fields.present('order', item.custom_fields) })),
    meta: { pagination },
  });
  /**
   * A page of the list. A customer's is read each time; a staff member's is kept in memory with the
   * snapshot it was read at, and sent again while no transaction has changed the store's orders
   * since (the same one statement checks, decision 0101), for ten minutes at most.
   */
  const list = async (req: FastifyRequest, reply: FastifyReply, query: OrderListQuery, filter: OrderFilter) => {
    if (filter.ownerId) {
      const read = await reads.listAnswer(query as PageRequest, filter);
      return answer(read.items, read.pagination);
    }
    const kept = await cache.checked(TenantContext.tenantId(), ORDERS_TOPIC, `admin@${req.url}`, async (unless) => {
      const read = await reads.listAnswer(query as PageRequest, filter, { unless });
      return read.unchanged ? { version: read.snapshot } : { version: read.snapshot, body: JSON.stringify(answer(read.items, read.pagination)) };
    }, { maxAgeMs: KEPT_MS, now: () => clock.now().getTime() });
    return reply.type('application/json; charset=utf-8').send(kept.body);
  };

  r.post('/orders', {
    config: { auth: ADMIN, permission: 'orders.write' },
    schema: { tags, summary: "Create an order (each line is charged the catalog's price; stock is held where there is some, the rest backordered)", body: OrderCreate, response: { 201: dataOf(OrderOut), ...errorResponses(400, 401, 403, 422, 503) } },
  }, async (req, reply) => {
    // Staff may sell what is not in stock: the lines show what is backordered.
    const order = await orders.create({
      customerEmail: req.body.customer_email,
      lines: req.body.line_items.map((l) => ({ variantId: l.variant_id, quantity: l.quantity, price: l.price })),
      shippingAddress: req.body.shipping_address ?? null,
      shortfall: 'accept',
      customFields: fields.create('order', req.body.custom_fields),
    });
    return reply.code(201).send(await view(order.id));
  });

  r.get('/orders', {
    ...answerAsBuilt,
    config: { auth: READERS, permission: 'orders.read' },
    preValidation,
    schema: { tags, summary: 'List orders (a customer token: its own; newest first unless sorted otherwise, with or without q)', description: KEPT, querystring: listQuery, response: { 200: listOf(OrderOut), ...errorResponses(400, 401, 403, 422) } },
  }, async (req, reply) => list(req, reply, req.query, filterOf(req.query, fields)));

  r.get('/orders/:id', {
    config: { auth: READERS, permission: 'orders.read' },
    schema: { tags, summary: 'Read an order with its lines and fulfillments', params: IdParams, response: { 200: dataOf(OrderOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: out(await reads.get(req.params.id, ownerId())) }));

  r.patch('/orders/:id', {
    config: { auth: ADMIN, permission: 'orders.write' },
    schema: { tags, summary: "Change an order's custom fields (only those sent; null clears one)", params: IdParams, body: OrderPatch, response: { 200: dataOf(OrderOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => {
    await orders.setCustomFields(req.params.id, fields.changes('order', req.body.custom_fields));
    return view(req.params.id);
  });

  r.get('/customers/:id/orders', {
    ...answerAsBuilt,
    config: { auth: READERS, permission: 'orders.read' },
    preValidation,
    schema: { tags, summary: "A customer's orders (same parameters as the order list)", description: KEPT, params: IdParams, querystring: listQuery, response: { 200: listOf(OrderOut), ...errorResponses(400, 401, 403, 404, 422) } },
  }, async (req, reply) => {
    const owner = ownerId();
    if (owner && owner !== req.params.id) throw AppError.notFound('Customer', 'CUSTOMER_NOT_FOUND');
    await customers.get(req.params.id);
    return list(req, reply, req.query, { ...filterOf(req.query, fields), customer_id: req.params.id });
  });

  r.post('/orders/:id/cancel', {
    config: { auth: ADMIN, permission: 'orders.write' },
    schema: { tags, summary: 'Cancel a pending, confirmed or paid order (its stock is released)', params: IdParams, body: OrderCancel.nullish(), response: one },
  }, async (req) => {
    await orders.cancel(req.params.id, req.body?.reason);
    return view(req.params.id);
  });

  r.post('/orders/:id/ready-to-ship', {
    config: { auth: ADMIN, permission: 'orders.fulfil' },
    schema: { tags, summary: 'paid → ready_to_ship', params: IdParams, body: OrderNote.nullish(), response: one },
  }, async (req) => {
    await orders.readyToShip(req.params.id, req.body?.note);
    return view(req.params.id);
  });

  r.post('/orders/:id/ready-to-ship/undo', {
    config: { auth: ADMIN, permission: 'orders.fulfil' },
    schema: { tags, summary: 'ready_to_ship → paid: a problem was found (reason required)', params: IdParams, body: OrderUndoReadyToShip, response: one },
  }, async (req) => {
    await orders.undoReadyToShip(req.params.id, req.body.reason);
    return view(req.params.id);
  });

  r.post('/orders/:id/in-transit', {
    config: { auth: ADMIN, permission: 'orders.fulfil' },
    schema: { tags, summary: 'ready_to_ship → in_transit: everything left is handed to the courier as one fulfillment', params: IdParams, body: OrderInTransit.nullish(), response: one },
  }, async (req) => {
    const b = req.body ?? {};
    await orders.handToCourier(req.params.id, { carrier: b.carrier, trackingNumber: b.tracking_number, trackingUrl: b.tracking_url, estimatedDelivery: dateOf(b.estimated_delivery) });
    return view(req.params.id);
  });

  r.post('/orders/:id/deliver', {
    config: { auth: ADMIN, permission: 'orders.fulfil' },
    schema: { tags, summary: 'in_transit → fulfilled (delivery confirmed) or paid → fulfilled (direct delivery, no courier)', params: IdParams, body: OrderNote.nullish(), response: one },
  }, async (req) => {
    await orders.deliver(req.params.id, req.body?.note);
    return view(req.params.id);
  });

  r.post('/orders/:id/fulfillments', {
    config: { auth: ADMIN, permission: 'orders.fulfil' },
    schema: { tags, summary: 'Ship some or all of what is left (split shipments allowed)', params: IdParams, body: FulfillmentCreate.nullish(), response: { 201: dataOf(OrderFulfillmentOut), ...errorResponses(400, 401, 403, 404, 409, 422) } },
  }, async (req, reply) => {
    const b = req.body ?? {};
    const { fulfillment } = await fulfillments.create(req.params.id, {
      carrier: b.carrier,
      trackingNumber: b.tracking_number,
      trackingUrl: b.tracking_url,
      estimatedDelivery: dateOf(b.estimated_delivery),
      lines: b.line_items?.map((l) => ({ variantId: l.variant_id, quantity: l.quantity, title: l.title })),
    });
    return reply.code(201).send({ data: fulfillmentOut(fulfillment) });
  });

  r.get('/orders/:id/fulfillments', {
    config: { auth: READERS, permission: 'orders.read' },
    schema: { tags, summary: "The order's shipments with status, carrier, tracking and items", params: IdParams, response: { 200: dataOf(OrderFulfillmentOut.array()), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: (await reads.get(req.params.id, ownerId())).fulfillments.map(fulfillmentOut) }));

  r.post('/fulfillments/:id/delivered', {
    config: { auth: ADMIN, permission: 'orders.fulfil' },
    schema: { tags, summary: 'Confirm delivery of a shipment (the order is fulfilled once all are delivered)', params: IdParams, response: { 200: dataOf(OrderFulfillmentOut), ...errorResponses(400, 401, 403, 404, 409) } },
  }, async (req) => ({ data: fulfillmentOut(await fulfillments.markDelivered(req.params.id)) }));
}
