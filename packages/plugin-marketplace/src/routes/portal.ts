import { CREDENTIAL_RATE_LIMIT, dataOf, errorResponses, IdParams, listOf } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { OfferListQuery, OfferOut, OfferUpdate } from '../schemas/offer.js';
import { PayoutListQuery, PayoutOut } from '../schemas/payout.js';
import { VendorLogin, VendorSession } from '../schemas/portal.js';
import { VendorOut } from '../schemas/vendor.js';
import { Offers } from '../services/offers.js';
import { Payouts } from '../services/payouts.js';
import { VendorPortal } from '../services/portal.js';
import { offerOut, payoutOut, sessionOut, vendorOut } from './serialize.js';

/** The vendor portal: a vendor's own profile, offers and payouts; another vendor's ids are as unknown (404). */
export async function portalRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const portal = container.resolve(VendorPortal);
  const offers = container.resolve(Offers);
  const payouts = container.resolve(Payouts);
  const tags = ['Vendor portal'];
  const vendor = { auth: ['vendor'] as const };

  r.post('/vendor/login', {
    config: { auth: ['admin', 'storefront'] as const, rateLimit: CREDENTIAL_RATE_LIMIT },
    schema: { tags, summary: 'Sign a vendor in: a vendor token (storefront or admin key plus X-Tenant-ID)', body: VendorLogin, response: { 200: dataOf(VendorSession), ...errorResponses(400, 401, 403, 429) } },
  }, async (req) => ({ data: sessionOut(await portal.login(req.body)) }));

  r.get('/vendor/me', {
    config: vendor,
    schema: { tags, summary: "The signed-in vendor's profile", response: { 200: dataOf(VendorOut), ...errorResponses(400, 401, 403) } },
  }, async () => ({ data: vendorOut(await portal.me()) }));

  r.get('/vendor/products', {
    config: vendor,
    schema: { tags, summary: "The vendor's own offers, newest first", querystring: OfferListQuery, response: { 200: listOf(OfferOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const me = await portal.me();
    const page = await offers.ofVendor(me.id, req.query);
    return { data: page.items.map(offerOut), meta: { pagination: page.pagination } };
  });

  r.patch('/vendor/products/:id', {
    config: vendor,
    schema: { tags, summary: "Change the price or the stock of one of the vendor's own offers", params: IdParams, body: OfferUpdate, response: { 200: dataOf(OfferOut), ...errorResponses(400, 401, 403, 404, 422) } },
  }, async (req) => {
    const me = await portal.me();
    return { data: offerOut(await offers.updateOwn(me.id, req.params.id, req.body)) };
  });

  r.get('/vendor/payouts', {
    config: vendor,
    schema: { tags, summary: "The vendor's own payouts, newest first, by status", querystring: PayoutListQuery, response: { 200: listOf(PayoutOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const me = await portal.me();
    const page = await payouts.ofVendor(me.id, { ...req.query, status: req.query.status ?? req.query['filter[status]'] });
    return { data: page.items.map(payoutOut), meta: { pagination: page.pagination } };
  });
}
