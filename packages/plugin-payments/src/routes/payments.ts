import { ADMIN, dataOf, errorResponses, filtersOf, IdParams, listOf, STOREFRONT } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { PaymentConfirm, PaymentCreate, PaymentListQuery, PaymentOut, PaymentSessionCreate, PaymentSessionOut, RefundCreate, RefundOut, RefundOutcomeRecord, RefundParams } from '../schemas/payment.js';
import { PaymentCancellations } from '../services/cancellations.js';
import { Payments, type PaymentFilter } from '../services/payments.js';
import { Refunds } from '../services/refunds.js';
import { Sessions } from '../services/sessions.js';
import { paymentOut, refundOut, sessionOut } from './serialize.js';

export async function paymentRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const payments = container.resolve(Payments);
  const refunds = container.resolve(Refunds);
  const sessions = container.resolve(Sessions);
  const cancellations = container.resolve(PaymentCancellations);
  const tags = ['Payments'];

  r.post('/payments/sessions', {
    config: { auth: STOREFRONT },
    schema: {
      tags,
      summary: "Open a payment session for an order's total: what a provider's browser form needs before it can pay (Niubiz, Izipay, PayPal, Pay-me)",
      body: PaymentSessionCreate,
      response: { 201: dataOf(PaymentSessionOut), ...errorResponses(400, 401, 403, 404, 409, 422, 502) },
    },
  }, async (req, reply) => reply.code(201).send({ data: sessionOut(await sessions.open(req.body)) }));

  r.get('/payments/sessions/:id', {
    config: { auth: STOREFRONT },
    schema: { tags, summary: 'Read a payment session (and the payment that used it)', params: IdParams, response: { 200: dataOf(PaymentSessionOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: sessionOut(await sessions.get(req.params.id)) }));

  r.post('/payments', {
    config: { auth: STOREFRONT },
    schema: {
      tags,
      summary: 'Pay an order on a gateway; recorded (201) whatever the provider answers, its status tells the outcome',
      body: PaymentCreate,
      response: { 201: dataOf(PaymentOut), ...errorResponses(400, 401, 403, 404, 409, 422) },
    },
  }, async (req, reply) => reply.code(201).send({ data: paymentOut(await payments.create(req.body)) }));

  r.get('/payments', {
    config: { auth: ADMIN, permission: 'payments.read' },
    schema: {
      tags,
      summary: "The store's payments with their refunds (filter by order, status, gateway or the provider's payment id); stored states, not re-read",
      querystring: PaymentListQuery,
      response: { 200: listOf(PaymentOut), ...errorResponses(400, 401, 403) },
    },
  }, async (req) => {
    const { page, refunds: byPayment } = await payments.list(req.query, filtersOf(req.query) as PaymentFilter);
    return { data: page.items.map((p) => paymentOut(p, byPayment.get(p.id) ?? [])), meta: { pagination: page.pagination } };
  });

  r.get('/payments/:id', {
    config: { auth: STOREFRONT },
    schema: { tags, summary: 'Read a payment and its refunds (re-read from the provider while open: usable for polling)', params: IdParams, response: { 200: dataOf(PaymentOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => {
    const { payment, refunds: list } = await payments.get(req.params.id);
    return { data: paymentOut(payment, list) };
  });

  r.post('/payments/:id/confirm', {
    config: { auth: STOREFRONT },
    schema: {
      tags,
      summary: "Finish a pending payment after the browser did its next_action (3-D Secure): the gateway's confirmation fields, or nothing to re-read it",
      params: IdParams,
      body: PaymentConfirm,
      response: { 200: dataOf(PaymentOut), ...errorResponses(400, 401, 403, 404, 409, 502) },
    },
    // A payment that was pending has no refunds yet.
  }, async (req) => ({ data: paymentOut(await payments.confirm(req.params.id, req.body ?? {})) }));

  r.post('/payments/:id/cancel', {
    config: { auth: STOREFRONT },
    schema: {
      tags,
      summary:
        'Give up a pending payment (3-D Secure left unfinished): the provider is told (voided where it can) and the payment becomes failed, or what the provider says it became; its amount is then free for a new payment. 409 PAYMENT_NOT_PENDING, PAYMENT_IN_PROGRESS (its charge has no answer yet) or PAYMENT_STILL_OPEN (the provider cannot void it and still holds it open)',
      params: IdParams,
      response: { 200: dataOf(PaymentOut), ...errorResponses(400, 401, 403, 404, 409, 422, 502) },
    },
    // A payment that was pending has no refunds yet.
  }, async (req) => ({ data: paymentOut(await cancellations.cancel(req.params.id)) }));

  r.post('/payments/:id/refund', {
    config: { auth: ADMIN, permission: 'payments.refund' },
    schema: {
      tags,
      summary: 'Refund on the original gateway (0 = everything left); 409 when not refundable or above what is left',
      params: IdParams,
      body: RefundCreate,
      response: { 201: dataOf(RefundOut), ...errorResponses(400, 401, 403, 404, 409, 422) },
    },
  }, async (req, reply) => reply.code(201).send({ data: refundOut(await refunds.create(req.params.id, req.body)) }));

  r.post('/payments/:id/refunds/:refund_id/outcome', {
    config: { auth: ADMIN, permission: 'payments.refund' },
    schema: {
      tags,
      summary: "Record what the provider did with an unconfirmed refund (its answer was lost), as the provider's dashboard shows it",
      description:
        "For a refund answered `unconfirmed: true`: the refund call reached a gateway that cannot repeat a refund (Culqi, Izipay, Pay-me, Niubiz) and its answer was lost, so only the provider's dashboard can tell whether the money went back. `refunded` moves the payment's refunded_amount and status, the order and the events as the provider's own answer would; `failed` frees the amount for a new refund. 404 PAYMENT_NOT_FOUND / REFUND_NOT_FOUND; 409 INVALID_STATE_TRANSITION for a refund that is not unconfirmed (details name its status), PROVIDER_REFUND_ID_USED when another refund of the store has that provider id.",
      params: RefundParams,
      body: RefundOutcomeRecord,
      response: { 200: dataOf(RefundOut), ...errorResponses(400, 401, 403, 404, 409) },
    },
  }, async (req) => ({ data: refundOut(await refunds.recordOutcome(req.params.id, req.params.refund_id, req.body)) }));
}
