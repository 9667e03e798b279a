import { ADMIN, dataOf, errorResponses, IdParams, listOf, NoContent } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import { OfferCreate, OfferListQuery, OfferOut } from '../schemas/offer.js';
import { PayoutListQuery, PayoutOut } from '../schemas/payout.js';
import { VendorCreate, VendorListQuery, VendorOut, VendorStatusUpdate, VendorUpdate } from '../schemas/vendor.js';
import { Offers } from '../services/offers.js';
import { Payouts } from '../services/payouts.js';
import { Vendors } from '../services/vendors.js';
import { offerOut, payoutOut, vendorOut } from './serialize.js';

export const MARKETPLACE = '/marketplace';

export async function vendorRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const vendors = container.resolve(Vendors);
  const offers = container.resolve(Offers);
  const payouts = container.resolve(Payouts);
  const tags = ['Marketplace vendors'];
  const read = { auth: ADMIN, permission: 'marketplace.read' };
  const write = { auth: ADMIN, permission: 'marketplace.write' };
  const one = { 200: dataOf(VendorOut), ...errorResponses(400, 401, 403, 404) };

  r.get(`${MARKETPLACE}/vendors`, {
    config: read,
    schema: { tags, summary: 'List vendors (newest first), by status (`status` or `filter[status]`)', querystring: VendorListQuery, response: { 200: listOf(VendorOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const page = await vendors.list(req.query);
    return { data: page.items.map(vendorOut), meta: { pagination: page.pagination } };
  });

  r.post(`${MARKETPLACE}/vendors`, {
    config: write,
    schema: { tags, summary: 'Create a vendor (pending until activated; e-mail unique in the store)', body: VendorCreate, response: { 201: dataOf(VendorOut), ...errorResponses(400, 401, 403, 409) } },
  }, async (req, reply) => reply.code(201).send({ data: vendorOut(await vendors.create(req.body)) }));

  r.get(`${MARKETPLACE}/vendors/:id`, {
    config: read,
    schema: { tags, summary: 'Read a vendor', params: IdParams, response: one },
  }, async (req) => ({ data: vendorOut(await vendors.get(req.params.id)) }));

  r.patch(`${MARKETPLACE}/vendors/:id`, {
    config: write,
    schema: { tags, summary: "Change a vendor's name, e-mail, country, default commission or portal password (the fields sent)", params: IdParams, body: VendorUpdate, response: { ...one, ...errorResponses(400, 401, 403, 404, 409) } },
  }, async (req) => ({ data: vendorOut(await vendors.update(req.params.id, req.body)) }));

  r.patch(`${MARKETPLACE}/vendors/:id/status`, {
    config: write,
    schema: { tags, summary: 'Move a vendor: pending → active | suspended, active → suspended, suspended → active (others 409)', params: IdParams, body: VendorStatusUpdate, response: { ...one, ...errorResponses(400, 401, 403, 404, 409) } },
  }, async (req) => ({ data: vendorOut(await vendors.setStatus(req.params.id, req.body.status)) }));

  r.get(`${MARKETPLACE}/vendors/:id/products`, {
    config: read,
    schema: { tags, summary: "The vendor's linked products (offers), newest first", params: IdParams, querystring: OfferListQuery, response: { 200: listOf(OfferOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => {
    const page = await offers.ofVendor(req.params.id, req.query);
    return { data: page.items.map(offerOut), meta: { pagination: page.pagination } };
  });

  r.get(`${MARKETPLACE}/vendors/:id/payouts`, {
    config: read,
    schema: { tags, summary: "The vendor's payouts, newest first, by status", params: IdParams, querystring: PayoutListQuery, response: { 200: listOf(PayoutOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => {
    const page = await payouts.ofVendor(req.params.id, { ...req.query, status: req.query.status ?? req.query['filter[status]'] });
    return { data: page.items.map(payoutOut), meta: { pagination: page.pagination } };
  });

  r.post(`${MARKETPLACE}/vendor-products`, {
    config: write,
    schema: { tags: ['Marketplace vendor products'], summary: "Link a catalog product to an active vendor: the vendor's offer, its price and stock", body: OfferCreate, response: { 201: dataOf(OfferOut), ...errorResponses(400, 401, 403, 404, 409, 422) } },
  }, async (req, reply) => reply.code(201).send({ data: offerOut(await offers.link(req.body)) }));

  r.delete(`${MARKETPLACE}/vendor-products/:id`, {
    config: write,
    schema: { tags: ['Marketplace vendor products'], summary: 'Unlink: the offer stops selling; orders already placed keep their units and their payouts', params: IdParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await offers.unlink(req.params.id);
    return reply.code(204).send(null);
  });
}
