import { ADMIN, AppError, dataOf, errorResponses, IdParams, listOf, TenantContext } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { CustomerCreate, CustomerListQuery, CustomerOut, CustomerPatch, CustomerProfilePatch } from '../schemas/customer.js';
import { Customers } from '../services/customers.js';
import { customerOut } from './serialize.js';

/** The customer a customer token speaks for. */
export function signedInCustomer(): string {
  const id = TenantContext.principal()?.subjectId;
  if (!id) throw AppError.unauthenticated('This token does not name a customer');
  return id;
}

export async function customerRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const customers = container.resolve(Customers);
  const tags = ['Customers'];
  const SELF = ['customer'] as const;

  r.get('/customers', {
    config: { auth: ADMIN, permission: 'customers.read' },
    schema: {
      tags,
      summary: 'List customers (q: every word in the e-mail, a name or the phone)',
      querystring: CustomerListQuery,
      response: { 200: listOf(CustomerOut), ...errorResponses(400, 401, 403) },
    },
  }, async (req) => {
    const page = await customers.list(req.query, { status: req.query['filter[status]'], q: req.query.q });
    return { data: page.items.map(customerOut), meta: { pagination: page.pagination } };
  });

  r.post('/customers', {
    config: { auth: ADMIN, permission: 'customers.write' },
    schema: { tags, summary: 'Create a customer (without a password)', body: CustomerCreate, response: { 201: dataOf(CustomerOut), ...errorResponses(400, 401, 403, 409) } },
  }, async (req, reply) => reply.code(201).send({ data: customerOut(await customers.create(req.body)) }));

  // Registered before /customers/:id; the static segment wins.
  r.get('/customers/me', {
    config: { auth: SELF },
    schema: { tags, summary: 'The signed-in customer (customer token)', response: { 200: dataOf(CustomerOut), ...errorResponses(400, 401, 403) } },
  }, async () => ({ data: customerOut(await customers.self(signedInCustomer())) }));

  r.patch('/customers/me', {
    config: { auth: SELF },
    schema: {
      tags,
      summary: "Change the signed-in customer's names, phone or marketing consent (customer token)",
      body: CustomerProfilePatch,
      response: { 200: dataOf(CustomerOut), ...errorResponses(400, 401, 403) },
    },
  }, async (req) => ({ data: customerOut(await customers.updateProfile(signedInCustomer(), req.body)) }));

  r.get('/customers/:id', {
    config: { auth: ADMIN, permission: 'customers.read' },
    schema: { tags, summary: 'Read a customer', params: IdParams, response: { 200: dataOf(CustomerOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: customerOut(await customers.get(req.params.id)) }));

  r.patch('/customers/:id', {
    config: { auth: ADMIN, permission: 'customers.write' },
    schema: {
      tags,
      summary: 'Change a customer (only the fields sent); status disabled revokes their tokens',
      params: IdParams,
      body: CustomerPatch,
      response: { 200: dataOf(CustomerOut), ...errorResponses(400, 401, 403, 404, 409) },
    },
  }, async (req) => ({ data: customerOut(await customers.update(req.params.id, req.body)) }));
}
