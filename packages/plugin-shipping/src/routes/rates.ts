import { ADMIN, dataOf, errorResponses, filtersOf, IdParams, listOf, NoContent, STOREFRONT } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { z } from 'zod';
import { RateCalculation, RateCreate, RateListQuery, RateOut } from '../schemas/rate.js';
import { Quotes } from '../services/quotes.js';
import { Rates, type RateFilter } from '../services/rates.js';
import { rateOut } from './serialize.js';

export async function rateRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const rates = container.resolve(Rates);
  const quotes = container.resolve(Quotes);
  const tags = ['Shipping'];
  const base = '/shipping/rates';

  r.post(`${base}/calculate`, {
    config: { auth: STOREFRONT },
    schema: {
      tags,
      summary: "Rates for a parcel: the route's rates that cover its billable weight (the larger of actual and volumetric), cheapest first",
      body: RateCalculation,
      response: { 200: z.array(RateOut), ...errorResponses(400, 401, 403) },
    },
  }, async (req) => (await quotes.calculate(req.body)).map(rateOut));

  r.post(base, {
    config: { auth: ADMIN, permission: 'shipping.write' },
    schema: { tags, summary: 'Add a rate to the rate table', body: RateCreate, response: { 201: dataOf(RateOut), ...errorResponses(400, 401, 403, 409) } },
  }, async (req, reply) => reply.code(201).send({ data: rateOut(await rates.create(req.body)) }));

  r.get(base, {
    config: { auth: ADMIN, permission: 'shipping.read' },
    schema: { tags, summary: 'List the rate table, newest first', querystring: RateListQuery, response: { 200: listOf(RateOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const page = await rates.list(req.query, filtersOf(req.query) as RateFilter);
    return { data: page.items.map(rateOut), meta: { pagination: page.pagination } };
  });

  r.get(`${base}/:id`, {
    config: { auth: ADMIN, permission: 'shipping.read' },
    schema: { tags, summary: 'Read a rate', params: IdParams, response: { 200: dataOf(RateOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: rateOut(await rates.get(req.params.id)) }));

  r.delete(`${base}/:id`, {
    config: { auth: ADMIN, permission: 'shipping.write' },
    schema: { tags, summary: 'Remove a rate from the rate table', params: IdParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await rates.remove(req.params.id);
    return reply.code(204).send(null);
  });
}
