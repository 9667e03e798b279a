import { ADMIN, dataOf, errorResponses, IdParams, listOf, NoContent, TenantContext, type PageRequest } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import {
  OrderReturnsQuery, PaymentInput, PaymentOut, PaymentQuery, ReasonInput, ReasonListQuery, ReasonOut, ReasonPatch, ReceiveInput, RefundInput, ReturnCreate,
  ReturnListQuery, ReturnOut, ReturnReject, SettingsInput, SettingsOut, ShipmentInput,
} from '../schemas/return.js';
import { customerCaller } from '../services/common.js';
import { ReturnPaymentLinks } from '../services/payment-links.js';
import { ReturnReads, type ReturnView } from '../services/reads.js';
import { ReturnReasons } from '../services/reasons.js';
import { ReturnReceipts } from '../services/receipts.js';
import { ReturnRequests } from '../services/requests.js';
import { StoreReturnSettings } from '../services/settings.js';
import { ReturnSettlement } from '../services/settlement.js';
import { reasonOut, returnOut, settingsOut } from './serialize.js';

const READ = { auth: ADMIN, permission: 'returns.read' } as const;
const WRITE = { auth: ADMIN, permission: 'returns.write' } as const;
const REFUND = { auth: ADMIN, permission: 'returns.refund' } as const;
/** Staff, and a customer for their own orders' returns. */
const ASKERS = ['admin', 'customer'] as const;

export async function returnRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const requests = container.resolve(ReturnRequests);
  const receipts = container.resolve(ReturnReceipts);
  const settlement = container.resolve(ReturnSettlement);
  const reads = container.resolve(ReturnReads);
  const reasons = container.resolve(ReturnReasons);
  const settings = container.resolve(StoreReturnSettings);
  const links = container.resolve(ReturnPaymentLinks);
  const tags = ['Returns'];
  const one = { 200: dataOf(ReturnOut), ...errorResponses(400, 401, 403, 404, 409, 422, 503) };
  const view = async (id: string) => ({ data: returnOut(await reads.get(id, customerCaller())) });
  const page = (result: { views: ReturnView[]; page: { pagination: { cursor: string | null; has_next: boolean; limit: number } } }) => ({
    data: result.views.map(returnOut), meta: { pagination: result.page.pagination },
  });

  // Static paths first: they win over /returns/:id.
  r.get('/returns/payment', {
    // The token is the credential: a link in an e-mail carries no API key nor tenant header.
    config: { auth: 'public' },
    schema: { tags, summary: 'Open an exchange’s payment link: what is due, and the store it is due to', querystring: PaymentQuery, response: { 200: dataOf(PaymentOut), ...errorResponses(400, 404, 410) } },
  }, async (req) => ({ data: await links.view(req.query.token) }));

  r.get('/returns/settings', {
    config: READ,
    schema: { tags, summary: 'The store’s return settings: how much shipping a return gives back, how long customers may ask', response: { 200: dataOf(SettingsOut), ...errorResponses(400, 401, 403) } },
  }, async () => ({ data: settingsOut(await settings.get()) }));

  r.put('/returns/settings', {
    config: WRITE,
    schema: { tags, summary: 'Replace the store’s return settings', body: SettingsInput, response: { 200: dataOf(SettingsOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => ({ data: settingsOut(await settings.replace(req.body)) }));

  r.get('/return-reasons', {
    // Customers choose from the active ones: a storefront key or a customer token reads only those.
    config: { auth: ['admin', 'storefront', 'customer'], permission: 'returns.read' },
    schema: { tags, summary: 'The store’s return reasons (a storefront key or customer token: the active ones)', querystring: ReasonListQuery, response: { 200: listOf(ReasonOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const q = req.query;
    const shopper = ['storefront', 'customer'].includes(TenantContext.principal()?.kind ?? '');
    const result = await reasons.list(q as PageRequest, { active: shopper ? true : q['filter[active]'] === undefined ? undefined : q['filter[active]'] === 'true' });
    return { data: result.items.map(reasonOut), meta: { pagination: result.pagination } };
  });

  r.post('/return-reasons', {
    config: WRITE,
    schema: { tags, summary: 'Add a return reason to the store’s list', body: ReasonInput, response: { 201: dataOf(ReasonOut), ...errorResponses(400, 401, 403, 409) } },
  }, async (req, reply) => reply.code(201).send({ data: reasonOut(await reasons.create(req.body)) }));

  r.patch('/return-reasons/:id', {
    config: WRITE,
    schema: { tags, summary: 'Change a return reason (inactive: no longer offered)', params: IdParams, body: ReasonPatch, response: { 200: dataOf(ReasonOut), ...errorResponses(400, 401, 403, 404, 409) } },
  }, async (req) => ({ data: reasonOut(await reasons.update(req.params.id, req.body)) }));

  r.delete('/return-reasons/:id', {
    config: WRITE,
    schema: { tags, summary: 'Remove a return reason (returns that named it keep its code)', params: IdParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await reasons.remove(req.params.id);
    return reply.code(204).send(null);
  });

  r.post('/returns', {
    config: { auth: ASKERS, permission: 'returns.write' },
    schema: {
      tags,
      summary: 'Ask to return fulfilled items (a customer: of their own order), exchange them for others, or claim missing or damaged ones',
      body: ReturnCreate,
      response: { 201: dataOf(ReturnOut), ...errorResponses(400, 401, 403, 404, 409, 422, 503) },
    },
  }, async (req, reply) => reply.code(201).send(await view((await requests.create(req.body)).id)));

  r.get('/returns', {
    config: { auth: ASKERS, permission: 'returns.read' },
    schema: {
      tags,
      summary: 'List returns (a customer: their own)',
      description: '`q` finds the customer’s e-mail by its words, and a number (`12`, `R12`, `#1002`) finds that return and the returns of that order; in the list’s own order.',
      querystring: ReturnListQuery,       response: { 200: listOf(ReturnOut), ...errorResponses(400, 401, 403) },
    },
  }, async (req) => {
    const q = req.query;
    return page(await reads.list(q as PageRequest, { status: q['filter[status]'], kind: q['filter[kind]'], order_id: q['filter[order_id]'], customer_id: q['filter[customer_id]'], q: q.q, ownerId: customerCaller() }));
  });

  r.get('/orders/:id/returns', {
    config: { auth: ASKERS, permission: 'returns.read' },
    schema: { tags, summary: 'What of an order was returned, exchanged or claimed, and refunded, oldest first', params: IdParams, querystring: OrderReturnsQuery, response: { 200: listOf(ReturnOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => page(await reads.ofOrder(req.params.id, req.query, customerCaller())));

  r.get('/returns/:id', {
    config: { auth: ASKERS, permission: 'returns.read' },
    schema: { tags, summary: 'Read a return', params: IdParams, response: { 200: dataOf(ReturnOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => view(req.params.id));

  r.post('/returns/:id/approve', {
    config: WRITE,
    schema: { tags, summary: 'Approve a return: an exchange’s new items and a claim’s replacement are held in stock; an exchange that costs more gets a payment link', params: IdParams, response: one },
  }, async (req) => view((await requests.approve(req.params.id)).id));

  r.post('/returns/:id/reject', {
    config: WRITE,
    schema: { tags, summary: 'Reject a requested return', params: IdParams, body: ReturnReject.nullish(), response: one },
  }, async (req) => view((await requests.reject(req.params.id, req.body?.reason)).id));

  r.post('/returns/:id/cancel', {
    config: { auth: ASKERS, permission: 'returns.write' },
    schema: { tags, summary: 'Cancel a return (a customer: their own, while requested); what it held in stock is given back', params: IdParams, response: one },
  }, async (req) => view((await requests.cancel(req.params.id)).id));

  r.post('/returns/:id/receive', {
    config: WRITE,
    schema: { tags, summary: 'Record items that came back, line by line and partly: restocked in a warehouse or written off as damaged', params: IdParams, body: ReceiveInput, response: one },
  }, async (req) => view((await receipts.receive(req.params.id, req.body)).id));

  r.post('/returns/:id/refund', {
    config: REFUND,
    schema: {
      tags,
      summary: 'Refund what the return is worth (per line, after discounts, with its tax and the shipping the store’s policy gives back), through the order’s payments or as store credit',
      params: IdParams,
      body: RefundInput.nullish(),
      response: one,
    },
  }, async (req) => view((await settlement.refund(req.params.id, req.body ?? {})).id));

  r.post('/returns/:id/payments', {
    config: REFUND,
    schema: { tags, summary: 'Record money received for what an exchange costs more', params: IdParams, body: PaymentInput, response: one },
  }, async (req) => view((await settlement.recordPayment(req.params.id, req.body)).id));

  r.post('/returns/:id/shipment', {
    config: WRITE,
    schema: { tags, summary: 'Ship a claim’s replacement or an exchange’s new items (their held stock is taken)', params: IdParams, body: ShipmentInput.nullish(), response: one },
  }, async (req) => view((await settlement.ship(req.params.id, req.body ?? {})).id));

  r.post('/returns/:id/close', {
    config: WRITE,
    schema: { tags, summary: 'Close a settled return', params: IdParams, response: one },
  }, async (req) => view((await settlement.close(req.params.id)).id));
}
