import { AppError, dataOf, errorResponses, IdParams, NoContent, TenantContext } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { z } from 'zod';
import { AddressParams, CustomerAddressCreate, CustomerAddressOut } from '../schemas/address.js';
import { NoQuery } from '../schemas/common.js';
import { CustomerAddresses, type AddressAccess } from '../services/addresses.js';
import { addressOut } from './serialize.js';

/** Admin keys reach every customer's addresses; a customer token reaches its own only. */
function accessTo(customerId: string): AddressAccess {
  const principal = TenantContext.principal();
  if (principal?.kind !== 'customer') return {};
  if (principal.subjectId !== customerId) throw AppError.forbidden('A customer token reaches its own addresses only');
  return { self: true };
}

export async function addressRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const addresses = container.resolve(CustomerAddresses);
  const tags = ['Customer addresses'];
  // The permission applies to admin callers; a customer reaches its own addresses only.
  const read = { auth: ['admin', 'customer'] as const, permission: 'customers.read' };
  const write = { auth: ['admin', 'customer'] as const, permission: 'customers.write' };

  r.get('/customers/:id/addresses', {
    config: read,
    schema: {
      tags,
      summary: "A customer's addresses, the default first (admin key, or the customer's own token)",
      params: IdParams,
      querystring: NoQuery,
      response: { 200: z.object({ data: z.array(CustomerAddressOut) }), ...errorResponses(400, 401, 403, 404) },
    },
  }, async (req) => ({ data: (await addresses.list(req.params.id, accessTo(req.params.id))).map(addressOut) }));

  r.post('/customers/:id/addresses', {
    config: write,
    schema: {
      tags,
      summary: 'Add an address (the first one is the default)',
      params: IdParams,
      body: CustomerAddressCreate,
      response: { 201: dataOf(CustomerAddressOut), ...errorResponses(400, 401, 403, 404, 422) },
    },
  }, async (req, reply) => reply.code(201).send({ data: addressOut(await addresses.create(req.params.id, req.body, accessTo(req.params.id))) }));

  r.put('/customers/:id/addresses/:address_id', {
    config: write,
    schema: {
      tags,
      summary: 'Replace an address (the create fields); is_default true moves the default here',
      params: AddressParams,
      body: CustomerAddressCreate,
      response: { 200: dataOf(CustomerAddressOut), ...errorResponses(400, 401, 403, 404, 409) },
    },
  }, async (req) => ({ data: addressOut(await addresses.replace(req.params.id, req.params.address_id, req.body, accessTo(req.params.id))) }));

  r.delete('/customers/:id/addresses/:address_id', {
    config: write,
    schema: {
      tags,
      summary: 'Delete an address (deleting the default makes the newest remaining one the default)',
      params: AddressParams,
      response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (req, reply) => {
    await addresses.remove(req.params.id, req.params.address_id, accessTo(req.params.id));
    return reply.code(204).send(null);
  });
}
