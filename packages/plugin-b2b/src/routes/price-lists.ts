import { ADMIN, dataOf, errorResponses, IdParams, listOf, NoContent } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { PriceListCreate, PriceListListQuery, PriceListOut, PriceListPatch, RuleCreate, RuleOut, RuleParams } from '../schemas/price-list.js';
import { PriceLists } from '../services/price-lists.js';
import { priceListOut, ruleOut } from './serialize.js';

export async function priceListRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const lists = container.resolve(PriceLists);
  const tags = ['B2B price lists'];
  const read = { auth: ADMIN, permission: 'b2b.read' };
  const write = { auth: ADMIN, permission: 'b2b.write' };

  r.post('/b2b/price-lists', {
    config: write,
    schema: { tags, summary: 'Create a price list (no rules yet)', body: PriceListCreate, response: { 201: dataOf(PriceListOut), ...errorResponses(400, 401, 403) } },
  }, async (req, reply) => reply.code(201).send({ data: priceListOut(await lists.create(req.body)) }));

  r.get('/b2b/price-lists', {
    config: read,
    schema: { tags, summary: 'List price lists with their rules in order', querystring: PriceListListQuery, response: { 200: listOf(PriceListOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const { views, page } = await lists.list(req.query);
    return { data: views.map(priceListOut), meta: { pagination: page.pagination } };
  });

  r.get('/b2b/price-lists/:id', {
    config: read,
    schema: { tags, summary: 'Read a price list with its rules in order', params: IdParams, response: { 200: dataOf(PriceListOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: priceListOut(await lists.get(req.params.id)) }));

  r.patch('/b2b/price-lists/:id', {
    config: write,
    schema: { tags, summary: 'Rename a price list (or change its description)', params: IdParams, body: PriceListPatch, response: { 200: dataOf(PriceListOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: priceListOut(await lists.update(req.params.id, req.body)) }));

  r.post('/b2b/price-lists/:id/rules', {
    config: write,
    schema: { tags, summary: 'Add a rule (last, or at `position`)', params: IdParams, body: RuleCreate, response: { 201: dataOf(RuleOut), ...errorResponses(400, 401, 403, 404, 422) } },
  }, async (req, reply) => reply.code(201).send({ data: ruleOut(await lists.addRule(req.params.id, req.body)) }));

  r.delete('/b2b/price-lists/:list_id/rules/:rule_id', {
    config: write,
    schema: { tags, summary: 'Delete a rule (the rules after it move up)', params: RuleParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await lists.deleteRule(req.params.list_id, req.params.rule_id);
    return reply.code(204).send(null);
  });
}
