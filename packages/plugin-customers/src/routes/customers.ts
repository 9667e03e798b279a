import { ADMIN, answerAsBuilt, AppError, CustomFields, dataOf, errorResponses, IdParams, listOf, TenantContext } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { CustomerCreate, CustomerListQuery, CustomerOut, CustomerPatch, CustomerProfilePatch } from '../schemas/customer.js';
import type { Customer } from '../entities/customer.js';
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
  const fields = container.resolve(CustomFields);
  const out = (c: Customer) => customerOut(c, fields.present('customer', c.customFields));
  const tags = ['Customers'];
  const SELF = ['customer'] as const;

  // Answered as PostgreSQL writes the page (`Customers.list`); `test/search.test.ts` holds the answers to `CustomerOut`.
  r.get('/customers', {
    ...answerAsBuilt,
    config: { auth: ADMIN, permission: 'customers.read' },
    schema: {
      tags,
      summary: 'List customers (q: every word in the e-mail, a name or the phone; newest first unless sorted otherwise, with or without q)',
      querystring: fields.listQuery(CustomerListQuery, { entity: 'customer' }),
      response: { 200: listOf(CustomerOut), ...errorResponses(400, 401, 403, 422) },
    },
    // Filters on the indexed custom fields (422 CUSTOM_FIELD_NOT_INDEXED for the others).
    preValidation: fields.filterGuard({ entity: 'customer' }),
  }, async (req) => {
    const { items, pagination } = await customers.list(req.query, { status: req.query['filter[status]'], q: req.query.q, customFields: fields.filtersOf(req.query, 'customer') });
    return { data: items.map((item) => ({ ...item, custom_fields: fields.present('customer', item.custom_fields) })), meta: { pagination } };
  });

  r.post('/customers', {
    config: { auth: ADMIN, permission: 'customers.write' },
    schema: { tags, summary: 'Create a customer (without a password)', body: CustomerCreate, response: { 201: dataOf(CustomerOut), ...errorResponses(400, 401, 403, 409, 422) } },
  }, async (req, reply) => reply.code(201).send({ data: out(await customers.create(req.body)) }));

  // Registered before /customers/:id; the static segment wins.
  r.get('/customers/me', {
    config: { auth: SELF },
    schema: { tags, summary: 'The signed-in customer (customer token)', response: { 200: dataOf(CustomerOut), ...errorResponses(400, 401, 403) } },
  }, async () => ({ data: out(await customers.self(signedInCustomer())) }));

  r.patch('/customers/me', {
    config: { auth: SELF },
    schema: {
      tags,
      summary: "Change the signed-in customer's names, phone, marketing consent, locale or public custom fields (customer token)",
      body: CustomerProfilePatch,
      response: { 200: dataOf(CustomerOut), ...errorResponses(400, 401, 403, 422) },
    },
  }, async (req) => ({ data: out(await customers.updateProfile(signedInCustomer(), req.body)) }));

  r.get('/customers/:id', {
    config: { auth: ADMIN, permission: 'customers.read' },
    schema: { tags, summary: 'Read a customer', params: IdParams, response: { 200: dataOf(CustomerOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: out(await customers.get(req.params.id)) }));

  r.patch('/customers/:id', {
    config: { auth: ADMIN, permission: 'customers.write' },
    schema: {
      tags,
      summary: 'Change a customer (only the fields sent); status disabled revokes their tokens',
      params: IdParams,
      body: CustomerPatch,
      response: { 200: dataOf(CustomerOut), ...errorResponses(400, 401, 403, 404, 409, 422) },
    },
  }, async (req) => ({ data: out(await customers.update(req.params.id, req.body)) }));
}
