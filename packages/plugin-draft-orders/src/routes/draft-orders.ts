import { ADMIN, dataOf, errorResponses, IdParams, listOf, type PageRequest } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import {
  DraftCancel,
  DraftComplete,
  DraftCreate,
  DraftLineInput,
  DraftLinePatch,
  DraftListQuery,
  DraftOut,
  DraftPatch,
  InvoiceOut,
  InvoiceQuery,
  InvoiceSend,
  LineParams,
  SettingsInput,
  SettingsOut,
} from '../schemas/draft-order.js';
import { DraftOrders } from '../services/drafts.js';
import { DraftInvoices, invoiceOut } from '../services/invoices.js';
import { DraftReads } from '../services/reads.js';
import { StoreDraftSettings } from '../services/settings.js';
import { draftOut, settingsOut } from './serialize.js';

const READ = { auth: ADMIN, permission: 'draft-orders.read' } as const;
const WRITE = { auth: ADMIN, permission: 'draft-orders.write' } as const;

export async function draftOrderRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const drafts = container.resolve(DraftOrders);
  const reads = container.resolve(DraftReads);
  const invoices = container.resolve(DraftInvoices);
  const settings = container.resolve(StoreDraftSettings);
  const tags = ['Draft orders'];
  const one = { 200: dataOf(DraftOut), ...errorResponses(400, 401, 403, 404, 409, 422, 503) };
  const answer = (d: Parameters<typeof draftOut>[0]) => ({ data: draftOut(d) });

  // Static paths first: they win over /draft-orders/:id.
  r.get('/draft-orders/invoice', {
    // The token is the credential: a link in an e-mail or a chat carries no API key nor tenant header.
    config: { auth: 'public' },
    schema: { tags, summary: 'Open an invoice link: the order to pay, and the store to pay it at (its X-Tenant-ID)', querystring: InvoiceQuery, response: { 200: dataOf(InvoiceOut), ...errorResponses(400, 404, 410) } },
  }, async (req) => ({ data: invoiceOut(await invoices.view(req.query.token)) }));

  r.get('/draft-orders/settings', {
    config: READ,
    schema: { tags, summary: "The store's draft-order settings, as they apply", response: { 200: dataOf(SettingsOut), ...errorResponses(400, 401, 403) } },
  }, async () => ({ data: settingsOut(await settings.get()) }));

  r.put('/draft-orders/settings', {
    config: WRITE,
    schema: { tags, summary: 'Replace the store’s draft-order settings (the storefront page invoice links open)', body: SettingsInput, response: { 200: dataOf(SettingsOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => ({ data: settingsOut(await settings.replace(req.body)) }));

  r.post('/draft-orders', {
    config: WRITE,
    schema: { tags, summary: "Start a draft order: lines at the customer's prices, custom lines, shipping and a discount, all optional", body: DraftCreate, response: { 201: dataOf(DraftOut), ...errorResponses(400, 401, 403, 422, 503) } },
  }, async (req, reply) => reply.code(201).send(answer(await drafts.create(req.body))));

  r.get('/draft-orders', {
    config: READ,
    schema: { tags, summary: 'List draft orders (q: an e-mail or a draft number such as D12)', querystring: DraftListQuery, response: { 200: listOf(DraftOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const q = req.query;
    const page = await reads.list(q as PageRequest, { status: q['filter[status]'], customer_id: q['filter[customer_id]'], created_from: q['filter[created_from]'], created_to: q['filter[created_to]'], q: q.q });
    return { data: page.items.map(draftOut), meta: { pagination: page.pagination } };
  });

  r.get('/draft-orders/:id', {
    config: READ,
    schema: { tags, summary: 'Read a draft order', params: IdParams, response: { 200: dataOf(DraftOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => answer(await reads.get(req.params.id)));

  r.patch('/draft-orders/:id', {
    config: WRITE,
    schema: { tags, summary: 'Change the customer, e-mail, address, note, shipping or discount of an open draft (null removes)', params: IdParams, body: DraftPatch, response: one },
  }, async (req) => answer(await drafts.update(req.params.id, req.body)));

  r.post('/draft-orders/:id/line-items', {
    config: WRITE,
    schema: { tags, summary: 'Add a catalog line (more of it, if its variant is there) or a custom line', params: IdParams, body: DraftLineInput, response: one },
  }, async (req) => answer(await drafts.addLine(req.params.id, req.body)));

  r.patch('/draft-orders/:id/line-items/:line_id', {
    config: WRITE,
    schema: { tags, summary: 'Change a line: quantity, price override (null removes it), a custom line’s fields', params: LineParams, body: DraftLinePatch, response: one },
  }, async (req) => answer(await drafts.updateLine(req.params.id, req.params.line_id, req.body)));

  r.delete('/draft-orders/:id/line-items/:line_id', {
    config: WRITE,
    schema: { tags, summary: 'Remove a line', params: LineParams, response: one },
  }, async (req) => answer(await drafts.removeLine(req.params.id, req.params.line_id)));

  r.post('/draft-orders/:id/send-invoice', {
    config: WRITE,
    schema: {
      tags,
      summary: 'Place the order (stock held, numbered) and send the customer a link to pay it; again: the same order, a new link',
      params: IdParams,
      body: InvoiceSend.nullish(),
      response: { ...one, 502: errorResponses(502)[502] },
    },
  }, async (req) => answer(await drafts.sendInvoice(req.params.id, req.body ?? { notify: true })));

  r.post('/draft-orders/:id/complete', {
    config: WRITE,
    schema: { tags, summary: 'Place the order (if the invoice did not) and, with payment, record it paid by an offline method', params: IdParams, body: DraftComplete.nullish(), response: one },
  }, async (req) => answer(await drafts.complete(req.params.id, req.body ?? {})));

  r.post('/draft-orders/:id/reopen', {
    config: WRITE,
    schema: { tags, summary: 'Take back a sent invoice to change the draft: its unpaid order is cancelled', params: IdParams, response: one },
  }, async (req) => answer(await drafts.reopen(req.params.id)));

  r.post('/draft-orders/:id/cancel', {
    config: WRITE,
    schema: { tags, summary: 'Cancel a draft (and its unpaid order)', params: IdParams, body: DraftCancel.nullish(), response: one },
  }, async (req) => answer(await drafts.cancel(req.params.id, req.body?.reason)));
}
