import { ADMIN, dataOf, errorResponses, IdParams, listOf } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { PayoutListQuery, PayoutOut, PayoutStatusUpdate, SettlementOut } from '../schemas/payout.js';
import { Ledger } from '../services/ledger.js';
import { Payouts } from '../services/payouts.js';
import { payoutOut, settlementOut } from './serialize.js';
import { MARKETPLACE } from './vendors.js';

export async function payoutRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const payouts = container.resolve(Payouts);
  const ledger = container.resolve(Ledger);
  const tags = ['Marketplace payouts'];
  const read = { auth: ADMIN, permission: 'marketplace.read' };

  r.get(`${MARKETPLACE}/payouts`, {
    config: read,
    schema: { tags, summary: "Every vendor's payouts, newest first, by status (`status` or `filter[status]`)", querystring: PayoutListQuery, response: { 200: listOf(PayoutOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const page = await payouts.list({ ...req.query, status: req.query.status ?? req.query['filter[status]'] });
    return { data: page.items.map(payoutOut), meta: { pagination: page.pagination } };
  });

  r.get(`${MARKETPLACE}/payouts/:id`, {
    config: read,
    schema: { tags, summary: 'Read a payout', params: IdParams, response: { 200: dataOf(PayoutOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: payoutOut(await payouts.get(req.params.id)) }));

  r.patch(`${MARKETPLACE}/payouts/:id/status`, {
    config: { auth: ADMIN, permission: 'marketplace.payouts' },
    schema: {
      tags,
      summary: 'Move a payout: pending → processing | paid, processing → paid | failed, failed → processing | paid (paid needs the transfer reference)',
      params: IdParams,
      body: PayoutStatusUpdate,
      response: { 200: dataOf(PayoutOut), ...errorResponses(400, 401, 403, 404, 409, 422) },
    },
  }, async (req) => ({ data: payoutOut(await payouts.setStatus(req.params.id, req.body)) }));

  r.get(`${MARKETPLACE}/orders/:id/settlement`, {
    config: read,
    schema: { tags, summary: "How a paid order's money is split: the store's revenue, each vendor's commission and payout, every entry", params: IdParams, response: { 200: dataOf(SettlementOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: settlementOut(await ledger.settlement(req.params.id)) }));
}
