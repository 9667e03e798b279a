import { ADMIN, dataOf, errorResponses, filtersOf, IdParams, listOf } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { DeliveryInput, FailureInput, LabelInput, ShipmentCreate, ShipmentListQuery, ShipmentOut, TrackingInput } from '../schemas/shipment.js';
import { Shipments, type ShipmentFilter } from '../services/shipments.js';
import { shipmentOut } from './serialize.js';

export async function shipmentRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const shipments = container.resolve(Shipments);
  const tags = ['Shipping'];
  const base = '/shipping/shipments';
  const read = { auth: ADMIN, permission: 'shipping.read' };
  const write = { auth: ADMIN, permission: 'shipping.write' };
  const moved = { 200: dataOf(ShipmentOut), ...errorResponses(400, 401, 403, 404, 409) };

  r.post(base, {
    config: write,
    schema: { tags, summary: 'Create a shipment for an order (pending, no tracking events yet)', body: ShipmentCreate, response: { 201: dataOf(ShipmentOut), ...errorResponses(400, 401, 403, 422) } },
  }, async (req, reply) => reply.code(201).send({ data: shipmentOut(await shipments.create(req.body)) }));

  r.get(base, {
    config: read,
    schema: { tags, summary: 'List shipments, newest first', querystring: ShipmentListQuery, response: { 200: listOf(ShipmentOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const page = await shipments.list(req.query, filtersOf(req.query) as ShipmentFilter);
    return { data: page.items.map(shipmentOut), meta: { pagination: page.pagination } };
  });

  r.get(`${base}/:id`, {
    config: read,
    schema: { tags, summary: 'Read a shipment with its status, tracking number and event history', params: IdParams, response: { 200: dataOf(ShipmentOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: shipmentOut(await shipments.get(req.params.id)) }));

  r.post(`${base}/:id/label`, {
    config: write,
    schema: { tags, summary: 'Store the label: tracking number and label URL (label_generated)', params: IdParams, body: LabelInput, response: moved },
  }, async (req) => ({ data: shipmentOut(await shipments.label(req.params.id, req.body)) }));

  r.patch(`${base}/:id/tracking`, {
    config: write,
    schema: {
      tags,
      summary: 'Append a tracking event (kept in timestamp order; the newest event sets the status)',
      params: IdParams,
      body: TrackingInput,
      response: { ...moved, ...errorResponses(422) },
    },
  }, async (req) => ({ data: shipmentOut(await shipments.track(req.params.id, req.body)) }));

  r.post(`${base}/:id/delivered`, {
    config: write,
    schema: {
      tags,
      summary: "Mark delivered (final); the order's matching fulfillment is delivered with it (made of everything left to ship when none is open)",
      params: IdParams,
      body: DeliveryInput.nullish(),
      response: { ...moved, ...errorResponses(422) },
    },
  }, async (req) => ({ data: shipmentOut(await shipments.deliver(req.params.id, req.body?.fulfillment_id)) }));

  r.post(`${base}/:id/failed`, {
    config: write,
    schema: { tags, summary: 'Mark failed, recording the reason', params: IdParams, body: FailureInput, response: moved },
  }, async (req) => ({ data: shipmentOut(await shipments.fail(req.params.id, req.body.reason)) }));
}
