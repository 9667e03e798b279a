import { ADMIN, dataOf, errorResponses, IdParams, listOf } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { OrderPricesOut, QuoteConvert, QuoteCreate, QuoteListQuery, QuoteOut, QuoteReject, QuoteSentOut } from '../schemas/quote.js';
import { OrderPriceReads } from '../services/order-price-reads.js';
import { actorOf, Quotes } from '../services/quotes.js';
import { orderPricesOut, quoteOut } from './serialize.js';

/** The store, or a buyer of the quote's company (its sent quotes only). */
const STORE_OR_BUYER = ['admin', 'customer'] as const;

export async function quoteRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const quotes = container.resolve(Quotes);
  const snapshots = container.resolve(OrderPriceReads);
  const tags = ['B2B quotes'];
  const one = { 200: dataOf(QuoteOut), ...errorResponses(400, 401, 403, 404, 409) };

  r.post('/b2b/quotes', {
    config: { auth: ADMIN, permission: 'b2b.write' },
    schema: { tags, summary: "Create a draft quote priced through the customer's price list", body: QuoteCreate, response: { 201: dataOf(QuoteOut), ...errorResponses(400, 401, 403, 422) } },
  }, async (req, reply) => reply.code(201).send({ data: quoteOut(await quotes.create(req.body)) }));

  r.get('/b2b/quotes', {
    config: { auth: STORE_OR_BUYER, permission: 'b2b.read' },
    schema: { tags, summary: "List quotes (newest first); a buyer's token: its company's sent quotes", querystring: QuoteListQuery, response: { 200: listOf(QuoteOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const page = await quotes.list(req.query, actorOf());
    return { data: page.items.map(quoteOut), meta: { pagination: page.pagination } };
  });

  r.get('/b2b/quotes/:id', {
    config: { auth: STORE_OR_BUYER, permission: 'b2b.read' },
    schema: { tags, summary: 'Read a quote', params: IdParams, response: { 200: dataOf(QuoteOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: quoteOut(await quotes.get(req.params.id, actorOf())) }));

  r.post('/b2b/quotes/:id/send', {
    config: { auth: ADMIN, permission: 'b2b.quotes.send' },
    schema: {
      tags,
      summary: 'draft → sent: e-mail the quote as a PDF to the B2B customer',
      params: IdParams,
      response: { 200: dataOf(QuoteSentOut), ...errorResponses(400, 401, 403, 404, 409, 502) },
    },
  }, async (req) => {
    const q = await quotes.send(req.params.id);
    return { data: { id: q.id, number: q.number, status: 'sent' as const, sent_at: q.sentAt!.toISOString() } };
  });

  r.post('/b2b/quotes/:id/accept', {
    config: { auth: STORE_OR_BUYER, permission: 'b2b.write' },
    schema: { tags, summary: "sent → accepted: a buyer of the company, or the store recording the company's answer", params: IdParams, response: one },
  }, async (req) => ({ data: quoteOut(await quotes.accept(req.params.id, actorOf())) }));

  r.post('/b2b/quotes/:id/reject', {
    config: { auth: STORE_OR_BUYER, permission: 'b2b.write' },
    schema: { tags, summary: 'sent → rejected, with an optional reason', params: IdParams, body: QuoteReject.nullish(), response: one },
  }, async (req) => ({ data: quoteOut(await quotes.reject(req.params.id, actorOf(), req.body?.reason ?? null)) }));

  r.post('/b2b/quotes/:id/convert', {
    config: { auth: ADMIN, permission: 'b2b.quotes.convert' },
    schema: {
      tags,
      summary: 'accepted → converted: place the quote as an order on account at the quoted prices (once; within the credit limit)',
      params: IdParams,
      body: QuoteConvert.nullish(),
      response: { ...one, ...errorResponses(400, 401, 403, 404, 409, 422) },
    },
  }, async (req) => ({ data: quoteOut(await quotes.convert(req.params.id, req.body ?? {})) }));

  r.get('/b2b/orders/:id/prices', {
    config: { auth: ADMIN, permission: 'b2b.read' },
    schema: { tags, summary: "An order's B2B price snapshot: per line the catalog price, the price charged, the list and the rule", params: IdParams, response: { 200: dataOf(OrderPricesOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: orderPricesOut(req.params.id, await snapshots.of(req.params.id)) }));
}
