import { ADMIN, dataOf, errorResponses, IdParams, NoContent } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { z } from 'zod';
import { NoQuery } from '../schemas/common.js';
import { MetafieldCreate, MetafieldOut, MetafieldParams, MetafieldPatch } from '../schemas/metafield.js';
import { Metafields } from '../services/metafields.js';
import { metafieldOut } from './serialize.js';

/** Metafields may hold the merchant's private data: admin keys only. */
export async function metafieldRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const metafields = container.resolve(Metafields);
  const tags = ['Product metafields'];

  r.get('/catalog/products/:id/metafields', {
    config: { auth: ADMIN, permission: 'catalog.read' },
    schema: { tags, summary: "List a product's metafields (its variants' included)", params: IdParams, querystring: NoQuery, response: { 200: z.object({ data: z.array(MetafieldOut) }), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: (await metafields.list(req.params.id)).map(metafieldOut) }));

  r.post('/catalog/products/:id/metafields', {
    config: { auth: ADMIN, permission: 'catalog.write' },
    schema: { tags, summary: 'Add a metafield', params: IdParams, body: MetafieldCreate, response: { 201: dataOf(MetafieldOut), ...errorResponses(400, 401, 403, 404, 409, 422) } },
  }, async (req, reply) => reply.code(201).send({ data: metafieldOut(await metafields.create(req.params.id, req.body)) }));

  r.patch('/catalog/products/:id/metafields/:metafield_id', {
    config: { auth: ADMIN, permission: 'catalog.write' },
    schema: { tags, summary: 'Change the value (nothing else)', params: MetafieldParams, body: MetafieldPatch, response: { 200: dataOf(MetafieldOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: metafieldOut(await metafields.update(req.params.id, req.params.metafield_id, req.body.value)) }));

  r.delete('/catalog/products/:id/metafields/:metafield_id', {
    config: { auth: ADMIN, permission: 'catalog.write' },
    schema: { tags, summary: 'Delete a metafield', params: MetafieldParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await metafields.remove(req.params.id, req.params.metafield_id);
    return reply.code(204).send(null);
  });
}
