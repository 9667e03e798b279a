import { ADMIN, dataOf, errorResponses, IdParams, listOf, NoContent, pageQuery } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import {
  B2BCustomerCreate,
  B2BCustomerListQuery,
  B2BCustomerOut,
  B2BCustomerPatch,
  BuyerCreate,
  BuyerOut,
  BuyerParams,
  CreditOut,
} from '../schemas/customer.js';
import { B2BCustomers } from '../services/b2b-customers.js';
import { Credit } from '../services/credit-reads.js';
import { b2bCustomerOut, buyerOut, creditOut } from './serialize.js';

export async function customerRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const customers = container.resolve(B2BCustomers);
  const credit = container.resolve(Credit);
  const tags = ['B2B customers'];
  const read = { auth: ADMIN, permission: 'b2b.read' };
  const write = { auth: ADMIN, permission: 'b2b.write' };
  const one = { 200: dataOf(B2BCustomerOut), ...errorResponses(400, 401, 403, 404) };

  r.get('/b2b/customers', {
    config: read,
    schema: { tags, summary: 'List B2B customers (newest first)', querystring: B2BCustomerListQuery, response: { 200: listOf(B2BCustomerOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const page = await customers.list(req.query);
    return { data: page.items.map(b2bCustomerOut), meta: { pagination: page.pagination } };
  });

  r.post('/b2b/customers', {
    config: write,
    schema: { tags, summary: 'Create a B2B customer (RUC checked, unique in the store)', body: B2BCustomerCreate, response: { 201: dataOf(B2BCustomerOut), ...errorResponses(400, 401, 403, 409, 422) } },
  }, async (req, reply) => reply.code(201).send({ data: b2bCustomerOut(await customers.create(req.body)) }));

  r.get('/b2b/customers/:id', {
    config: read,
    schema: { tags, summary: 'Read a B2B customer', params: IdParams, response: one },
  }, async (req) => ({ data: b2bCustomerOut(await customers.get(req.params.id)) }));

  r.patch('/b2b/customers/:id', {
    config: write,
    schema: { tags, summary: 'Change the fields sent (status: active ↔ on_hold, → disabled, disabled → active)', params: IdParams, body: B2BCustomerPatch, response: { ...one, ...errorResponses(400, 401, 403, 404, 409, 422) } },
  }, async (req) => ({ data: b2bCustomerOut(await customers.update(req.params.id, req.body)) }));

  r.get('/b2b/customers/:id/credit', {
    config: read,
    schema: { tags, summary: 'The credit limit, the open balance on account and the orders in it', params: IdParams, response: { 200: dataOf(CreditOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: creditOut(req.params.id, await credit.of(req.params.id)) }));

  r.get('/b2b/customers/:id/buyers', {
    config: read,
    schema: { tags, summary: "The company's buyers: customer accounts that shop at its prices", params: IdParams, querystring: pageQuery(), response: { 200: listOf(BuyerOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => {
    const { views, page } = await customers.buyers(req.params.id, req.query);
    return { data: views.map(buyerOut), meta: { pagination: page.pagination } };
  });

  r.post('/b2b/customers/:id/buyers', {
    config: write,
    schema: { tags, summary: 'Link a customer account as a buyer of the company (one company per account)', params: IdParams, body: BuyerCreate, response: { 201: dataOf(BuyerOut), ...errorResponses(400, 401, 403, 404, 409, 422) } },
  }, async (req, reply) => reply.code(201).send({ data: buyerOut(await customers.addBuyer(req.params.id, req.body.customer_id)) }));

  r.delete('/b2b/customers/:id/buyers/:customer_id', {
    config: write,
    schema: { tags, summary: 'Unlink a buyer (the account stays; it shops at catalog prices again)', params: BuyerParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await customers.removeBuyer(req.params.id, req.params.customer_id);
    return reply.code(204).send(null);
  });
}
