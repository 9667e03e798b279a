import { ADMIN, AppError, dataOf, errorResponses, filtersOf, listOf, TenantContext } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { ADJUST_PERMISSION } from '../gateway.js';
import { AdjustmentInput, AdjustmentOut, BalancesOut, CustomerParams, EntryListQuery, EntryOut } from '../schemas/credit.js';
import { StoreCreditAccounts, type EntryFilter } from '../services/accounts.js';
import { balanceOut, entryOut } from './serialize.js';

/** The customer a customer token speaks for. */
export function signedInCustomer(): string {
  const id = TenantContext.principal()?.subjectId;
  if (!id) throw AppError.unauthenticated('This token does not name a customer');
  return id;
}

export async function creditRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const accounts = container.resolve(StoreCreditAccounts);
  const tags = ['Store credit'];
  const SELF = ['customer'] as const;

  const balances = async (customerId: string) => ({ data: { customer_id: customerId, balances: (await accounts.balances(customerId)).map(balanceOut) } });
  const entries = async (customerId: string, query: { cursor?: string; limit: number; sort: string }) => {
    const page = await accounts.entries(customerId, query, filtersOf(query) as EntryFilter);
    return { data: page.items.map(entryOut), meta: { pagination: page.pagination } };
  };

  r.get('/store-credit/me', {
    config: { auth: SELF },
    schema: { tags, summary: "The signed-in customer's store credit, one balance per currency (customer token)", response: { 200: dataOf(BalancesOut), ...errorResponses(400, 401, 403) } },
  }, async () => balances(signedInCustomer()));

  r.get('/store-credit/me/entries', {
    config: { auth: SELF },
    schema: {
      tags,
      summary: "The signed-in customer's store-credit history, newest first (customer token)",
      querystring: EntryListQuery,
      response: { 200: listOf(EntryOut), ...errorResponses(400, 401, 403) },
    },
  }, async (req) => entries(signedInCustomer(), req.query));

  r.get('/store-credit/customers/:customer_id', {
    config: { auth: ADMIN, permission: 'store-credit.read' },
    schema: { tags, summary: "A customer's store credit, one balance per currency", params: CustomerParams, response: { 200: dataOf(BalancesOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => balances(req.params.customer_id));

  r.get('/store-credit/customers/:customer_id/entries', {
    config: { auth: ADMIN, permission: 'store-credit.read' },
    schema: {
      tags,
      summary: "A customer's store-credit ledger: every grant, deduction, payment and refund, newest first unless sorted otherwise",
      params: CustomerParams,
      querystring: EntryListQuery,
      response: { 200: listOf(EntryOut), ...errorResponses(400, 401, 403, 404) },
    },
  }, async (req) => entries(req.params.customer_id, req.query));

  r.post('/store-credit/customers/:customer_id/entries', {
    config: { auth: ADMIN, permission: ADJUST_PERMISSION },
    schema: {
      tags,
      summary: "Grant or deduct a customer's store credit, with the reason the customer is e-mailed",
      description: '404 CUSTOMER_NOT_FOUND (not a customer of this store), 422 INSUFFICIENT_STORE_CREDIT (a deduction beyond the balance; nothing changes).',
      params: CustomerParams,
      body: AdjustmentInput,
      response: { 201: dataOf(AdjustmentOut), ...errorResponses(400, 401, 403, 404, 422) },
    },
  }, async (req, reply) => {
    const { entry, balances: now } = await accounts.adjust(req.params.customer_id, req.body);
    return reply.code(201).send({ data: { ...entryOut(entry), balances: now.map(balanceOut) } });
  });
}
