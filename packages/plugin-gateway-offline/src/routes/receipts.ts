import { ADMIN, dataOf, errorResponses, filtersOf, IdParams, listOf, STOREFRONT } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { OfflinePaymentOut, ReceiptInput, ReceiptListQuery, ReceiptOut, ReceiptWithPaymentOut, VoidInput } from '../schemas/receipt.js';
import { OfflineReceipts, type ReceiptFilter } from '../services/receipts.js';
import { offlinePaymentOut, receiptOut } from './serialize.js';

export async function receiptRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const receipts = container.resolve(OfflineReceipts);
  const tags = ['Offline payments'];

  r.get('/payments/offline/payments/:id', {
    config: { auth: STOREFRONT },
    schema: { tags, summary: 'An offline payment: the method and instructions the shopper was shown, and what the store received of it', params: IdParams, response: { 200: dataOf(OfflinePaymentOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: offlinePaymentOut(await receipts.payment(req.params.id)) }));

  r.get('/payments/offline/receipts', {
    config: { auth: ADMIN, permission: 'payments.read' },
    schema: { tags, summary: 'What the store received for offline payments, newest first unless sorted otherwise', querystring: ReceiptListQuery, response: { 200: listOf(ReceiptOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const page = await receipts.list(req.query, filtersOf(req.query) as ReceiptFilter);
    return { data: page.items.map(receiptOut), meta: { pagination: page.pagination } };
  });

  r.post('/payments/offline/receipts', {
    config: { auth: ADMIN, permission: 'payments.capture' },
    schema: {
      tags,
      summary: 'Record money received for a pending offline payment; the receipt that completes its amount pays it (the order and checkout follow)',
      description:
        'Receipts add up to the payment amount and never beyond it (422 RECEIPT_EXCEEDS_OUTSTANDING). 404 PAYMENT_NOT_FOUND, 422 PAYMENT_NOT_OFFLINE, ' +
        '409 PAYMENT_NOT_PENDING (paid, failed or cancelled), 409 RECEIPT_REFERENCE_USED (the reference counts on another receipt of the method).',
      body: ReceiptInput,
      response: { 201: dataOf(ReceiptWithPaymentOut), ...errorResponses(400, 401, 403, 404, 409, 422) },
    },
  }, async (req, reply) => {
    const { receipt, view } = await receipts.record(req.body);
    return reply.code(201).send({ data: { ...receiptOut(receipt), payment: offlinePaymentOut(view) } });
  });

  r.get('/payments/offline/receipts/:id', {
    config: { auth: ADMIN, permission: 'payments.read' },
    schema: { tags, summary: 'Read a receipt', params: IdParams, response: { 200: dataOf(ReceiptOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: receiptOut(await receipts.get(req.params.id)) }));

  r.post('/payments/offline/receipts/:id/void', {
    config: { auth: ADMIN, permission: 'payments.capture' },
    schema: {
      tags,
      summary: 'Void a receipt of a pending payment (recorded by mistake, or the money handed back): it no longer counts',
      description: '409 RECEIPT_VOIDED (voided already), 409 PAYMENT_NOT_PENDING (money of a paid payment goes back by refund).',
      params: IdParams,
      body: VoidInput,
      response: { 200: dataOf(ReceiptWithPaymentOut), ...errorResponses(400, 401, 403, 404, 409) },
    },
  }, async (req) => {
    const { receipt, view } = await receipts.void(req.params.id, req.body.reason);
    return { data: { ...receiptOut(receipt), payment: offlinePaymentOut(view) } };
  });
}
