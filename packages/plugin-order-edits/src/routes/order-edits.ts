import { ADMIN, dataOf, errorResponses, IdParams, listOf } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { EditConfirm, EditCreate, EditListQuery, EditOut, PaymentOut, PaymentQuery } from '../schemas/order-edit.js';
import { OrderEdits } from '../services/edits.js';
import { EditPaymentView } from '../services/payment-view.js';
import { editOut } from './serialize.js';

const READ = { auth: ADMIN, permission: 'order-edits.read' } as const;
const WRITE = { auth: ADMIN, permission: 'order-edits.write' } as const;

export async function orderEditRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const edits = container.resolve(OrderEdits);
  const payments = container.resolve(EditPaymentView);
  const tags = ['Order edits'];
  const one = { 200: dataOf(EditOut), ...errorResponses(400, 401, 403, 404, 409, 422, 503) };

  r.post('/orders/:id/edits', {
    config: WRITE,
    schema: {
      tags,
      summary: 'Preview an edit of an order before it ships: lines added, changed or removed, the shipping; the new totals, tax and the difference (nothing changes yet)',
      params: IdParams,
      body: EditCreate,
      response: { 201: dataOf(EditOut), ...errorResponses(400, 401, 403, 404, 409, 422, 503) },
    },
  }, async (req, reply) => reply.code(201).send({ data: editOut(await edits.create(req.params.id, req.body)) }));

  r.get('/orders/:id/edits', {
    config: READ,
    schema: { tags, summary: "An order's edits, oldest first; the confirmed ones are its versions", params: IdParams, querystring: EditListQuery, response: { 200: listOf(EditOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => {
    const page = await edits.list(req.params.id, req.query);
    return { data: page.items.map(editOut), meta: { pagination: page.pagination } };
  });

  // A static path: it wins over /order-edits/:id.
  r.get('/order-edits/payment', {
    // The token is the credential: a link in an e-mail or a chat carries no API key nor tenant header.
    config: { auth: 'public' },
    schema: { tags, summary: 'Open a payment link: what is due on the edited order, and the store to pay it at (its X-Tenant-ID)', querystring: PaymentQuery, response: { 200: dataOf(PaymentOut), ...errorResponses(400, 404, 410) } },
  }, async (req) => ({ data: await payments.view(req.query.token) }));

  r.get('/order-edits/:id', {
    config: READ,
    schema: { tags, summary: 'Read an order edit: its preview, or the version it made', params: IdParams, response: { 200: dataOf(EditOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: editOut(await edits.get(req.params.id)) }));

  r.post('/order-edits/:id/confirm', {
    config: WRITE,
    schema: {
      tags,
      summary: 'Apply the edit: the order changes, its stock moves, a version is kept; the difference is asked for (a payment link) or refunded through the order’s payments',
      params: IdParams,
      body: EditConfirm.nullish(),
      response: { ...one, 502: errorResponses(502)[502] },
    },
  }, async (req) => ({ data: editOut(await edits.confirm(req.params.id, req.body ?? { notify: true })) }));

  r.post('/order-edits/:id/cancel', {
    config: WRITE,
    schema: { tags, summary: 'Drop an edit that was not confirmed', params: IdParams, response: one },
  }, async (req) => ({ data: editOut(await edits.cancel(req.params.id)) }));
}
