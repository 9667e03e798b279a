import { ADMIN, dataOf, errorResponses, filtersOf, IdParams, listOf, NoContent, STOREFRONT } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { DependencyContainer } from 'tsyringe';
import { AvailableQuery, MethodInput, MethodListQuery, MethodOut, MethodPatch } from '../schemas/method.js';
import { OfflineMethods, type MethodFilter } from '../services/methods.js';
import { methodOut } from './serialize.js';

export async function methodRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const methods = container.resolve(OfflineMethods);
  const tags = ['Offline payments'];

  r.get('/payments/offline/methods', {
    config: { auth: ADMIN, permission: 'payments.read' },
    schema: { tags, summary: "The store's offline payment methods, in the storefront's order unless sorted otherwise", querystring: MethodListQuery, response: { 200: listOf(MethodOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const page = await methods.list(req.query, filtersOf(req.query) as MethodFilter);
    return { data: page.items.map(methodOut), meta: { pagination: page.pagination } };
  });

  r.post('/payments/offline/methods', {
    config: { auth: ADMIN, permission: 'payments.configure' },
    schema: { tags, summary: 'Add an offline payment method (cash on delivery, a bank account, a wallet); 409 OFFLINE_METHOD_EXISTS for a name the store uses', body: MethodInput, response: { 201: dataOf(MethodOut), ...errorResponses(400, 401, 403, 409) } },
  }, async (req, reply) => reply.code(201).send({ data: methodOut(await methods.create(req.body)) }));

  r.get('/payments/offline/methods/:id', {
    config: { auth: ADMIN, permission: 'payments.read' },
    schema: { tags, summary: 'Read an offline payment method', params: IdParams, response: { 200: dataOf(MethodOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: methodOut(await methods.get(req.params.id)) }));

  r.patch('/payments/offline/methods/:id', {
    config: { auth: ADMIN, permission: 'payments.configure' },
    schema: { tags, summary: 'Change the fields sent; payments made with the method keep what the shopper was shown', params: IdParams, body: MethodPatch, response: { 200: dataOf(MethodOut), ...errorResponses(400, 401, 403, 404, 409) } },
  }, async (req) => ({ data: methodOut(await methods.update(req.params.id, req.body)) }));

  r.delete('/payments/offline/methods/:id', {
    config: { auth: ADMIN, permission: 'payments.configure' },
    schema: { tags, summary: 'Delete an offline payment method; its payments keep the method as the shopper was shown it', params: IdParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await methods.remove(req.params.id);
    return reply.code(204).send(null);
  });

  r.get('/payments/offline/available-methods', {
    config: { auth: STOREFRONT },
    schema: {
      tags,
      summary: "The offline methods a shopper may pay an order in `currency` with: enabled, taking the currency, in the store's order, with their instructions (none while the store has the offline gateway off)",
      querystring: AvailableQuery,
      response: { 200: z.object({ data: z.array(MethodOut) }), ...errorResponses(400, 401, 403) },
    },
  }, async (req) => ({ data: (await methods.available(req.query.currency)).map(methodOut) }));
}
