import { ADMIN, dataOf, errorResponses, filtersOf, IdParams, listOf, NoContent } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { DealInput, DealListQuery, DealOut, DealPatch, LostInput, MoveInput } from '../schemas/deal.js';
import { Deals } from '../services/deals.js';
import { dealOut } from './serialize.js';

export async function dealRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const deals = container.resolve(Deals);
  const tags = ['CRM deals'];
  const read = { auth: ADMIN, permission: 'crm.deals.read' };
  const write = { auth: ADMIN, permission: 'crm.deals.write' };
  const one = dataOf(DealOut);

  r.get('/crm/deals', {
    config: read,
    schema: { tags, summary: 'List deals', querystring: DealListQuery, response: { 200: listOf(DealOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const page = await deals.list(req.query, filtersOf(req.query));
    return { data: page.items.map(dealOut), meta: { pagination: page.pagination } };
  });

  r.post('/crm/deals', {
    config: write,
    schema: { tags, summary: 'Create a deal in a stage of its pipeline', body: DealInput, response: { 201: one, ...errorResponses(400, 401, 403, 422) } },
  }, async (req, reply) => reply.code(201).send({ data: dealOut(await deals.create(req.body)) }));

  r.get('/crm/deals/:id', {
    config: read,
    schema: { tags, summary: 'Read a deal', params: IdParams, response: { 200: one, ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: dealOut(await deals.get(req.params.id)) }));

  r.patch('/crm/deals/:id', {
    config: write,
    schema: { tags, summary: 'Change the fields sent', params: IdParams, body: DealPatch, response: { 200: one, ...errorResponses(400, 401, 403, 404, 422) } },
  }, async (req) => ({ data: dealOut(await deals.update(req.params.id, req.body)) }));

  r.delete('/crm/deals/:id', {
    config: write,
    schema: { tags, summary: 'Delete a deal with its tasks', params: IdParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await deals.remove(req.params.id);
    return reply.code(204).send(null);
  });

  r.post('/crm/deals/:id/move', {
    config: write,
    schema: { tags, summary: "Move an open deal to another stage of its pipeline (probability: the stage's unless sent)", params: IdParams, body: MoveInput, response: { 200: one, ...errorResponses(400, 401, 403, 404, 409, 422) } },
  }, async (req) => ({ data: dealOut(await deals.move(req.params.id, req.body)) }));

  r.post('/crm/deals/:id/won', {
    config: write,
    schema: { tags, summary: 'Close an open deal as won', params: IdParams, response: { 200: one, ...errorResponses(400, 401, 403, 404, 409) } },
  }, async (req) => ({ data: dealOut(await deals.won(req.params.id)) }));

  r.post('/crm/deals/:id/lost', {
    config: write,
    schema: { tags, summary: 'Close an open deal as lost, with a reason', params: IdParams, body: LostInput, response: { 200: one, ...errorResponses(400, 401, 403, 404, 409) } },
  }, async (req) => ({ data: dealOut(await deals.lost(req.params.id, req.body.reason)) }));

  r.post('/crm/deals/:id/reopen', {
    config: write,
    schema: { tags, summary: 'Open a won or lost deal again, in its stage', params: IdParams, response: { 200: one, ...errorResponses(400, 401, 403, 404, 409) } },
  }, async (req) => ({ data: dealOut(await deals.reopen(req.params.id)) }));
}
