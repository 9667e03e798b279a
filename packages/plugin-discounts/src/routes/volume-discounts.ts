import { ADMIN, errorResponses, IdParams, listOf, NoContent, STOREFRONT } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { VolumeDiscountCreate, VolumeDiscountListQuery, VolumeDiscountOut } from '../schemas/volume-discount.js';
import { VolumeDiscounts } from '../services/volume-discounts.js';
import { volumeDiscountOut } from './serialize.js';

export async function volumeDiscountRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tiers = container.resolve(VolumeDiscounts);
  const tags = ['Discounts'];

  r.post('/discounts/volume', {
    config: { auth: ADMIN, permission: 'discounts.write' },
    schema: { tags, summary: 'Add a volume discount tier to a product (answers the bare tier)', body: VolumeDiscountCreate, response: { 201: VolumeDiscountOut, ...errorResponses(400, 401, 403, 409, 422) } },
  }, async (req, reply) => reply.code(201).send(volumeDiscountOut(await tiers.create(req.body))));

  r.get('/discounts/volume', {
    config: { auth: STOREFRONT },
    schema: { tags, summary: "The store's volume discount tiers; filter[product_id] for one product's", querystring: VolumeDiscountListQuery, response: { 200: listOf(VolumeDiscountOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const page = await tiers.list(req.query, { product_id: req.query['filter[product_id]'] });
    return { data: page.items.map(volumeDiscountOut), meta: { pagination: page.pagination } };
  });

  r.delete('/discounts/volume/:id', {
    config: { auth: ADMIN, permission: 'discounts.write' },
    schema: { tags, summary: 'Remove a volume discount tier', params: IdParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await tiers.remove(req.params.id);
    return reply.code(204).send(null);
  });
}
