import { ADMIN, AppError, CLOCK, dataOf, errorResponses, filtersOf, IdParams, listOf, NoContent, STOREFRONT, TenantContext, type Clock } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import {
  CouponApply,
  CouponApplyResult,
  CouponCodeParams,
  CouponCreate,
  CouponListQuery,
  CouponOut,
  CouponPatch,
  CouponValidation,
  CouponValidationResult,
  RedemptionListQuery,
  RedemptionOut,
} from '../schemas/coupon.js';
import { Coupons, type CouponFilter } from '../services/coupons.js';
import { couponOut, redemptionOut, verdictOut } from './serialize.js';

/** A customer token validates for its own customer only. */
function customerIdOf(sent: string | null | undefined): string | null {
  const principal = TenantContext.principal();
  if (principal?.kind !== 'customer') return sent ?? null;
  if (sent && sent !== principal.subjectId) throw AppError.forbidden('A customer validates coupons for itself only');
  return principal.subjectId;
}

export async function couponRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const coupons = container.resolve(Coupons);
  const clock = container.resolve<Clock>(CLOCK);
  const out = (c: Parameters<typeof couponOut>[0]) => couponOut(c, clock.now());
  const tags = ['Discounts'];

  r.post('/discounts/coupons', {
    config: { auth: ADMIN, permission: 'discounts.write' },
    schema: { tags, summary: 'Create a coupon (answers the bare coupon)', body: CouponCreate, response: { 201: CouponOut, ...errorResponses(400, 401, 403, 409, 422) } },
  }, async (req, reply) => reply.code(201).send(out(await coupons.create(req.body))));

  r.get('/discounts/coupons', {
    config: { auth: ADMIN, permission: 'discounts.read' },
    schema: { tags, summary: "The store's coupons (deleted ones are left out); q searches the code", querystring: CouponListQuery, response: { 200: listOf(CouponOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const f = filtersOf(req.query);
    const filter = { ...f, is_active: f.is_active === undefined ? undefined : f.is_active === 'true', q: req.query.q } as CouponFilter;
    const page = await coupons.list(req.query, filter);
    return { data: page.items.map(out), meta: { pagination: page.pagination } };
  });

  r.post('/discounts/coupons/validate', {
    config: { auth: STOREFRONT },
    schema: { tags, summary: 'Whether a code applies to an order, and the discount it gives (changes nothing)', body: CouponValidation, response: { 200: CouponValidationResult, ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const b = req.body;
    const verdict = await coupons.validate({
      code: b.code,
      orderAmount: b.order_amount,
      currency: b.currency,
      customerId: customerIdOf(b.customer_id),
      customerEmail: b.customer_email,
      productIds: b.product_ids,
      items: b.items?.map((i) => ({ productId: i.product_id, quantity: i.quantity, unitPrice: i.unit_price })),
    });
    return verdictOut(verdict);
  });

  r.get('/discounts/coupons/code/:code', {
    config: { auth: ADMIN, permission: 'discounts.read' },
    schema: { tags, summary: 'Read a coupon by its code (case-insensitive)', params: CouponCodeParams, response: { 200: dataOf(CouponOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: out(await coupons.getByCode(req.params.code)) }));

  r.get('/discounts/coupons/:id', {
    config: { auth: ADMIN, permission: 'discounts.read' },
    schema: { tags, summary: 'Read a coupon (a deleted one too, for the orders that used it)', params: IdParams, response: { 200: dataOf(CouponOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: out(await coupons.get(req.params.id)) }));

  r.patch('/discounts/coupons/:id', {
    config: { auth: ADMIN, permission: 'discounts.write' },
    schema: { tags, summary: 'Change the fields sent', params: IdParams, body: CouponPatch, response: { 200: dataOf(CouponOut), ...errorResponses(400, 401, 403, 404, 409, 422) } },
  }, async (req) => ({ data: out(await coupons.update(req.params.id, req.body)) }));

  r.delete('/discounts/coupons/:id', {
    config: { auth: ADMIN, permission: 'discounts.write' },
    schema: { tags, summary: 'Delete a coupon (soft: it stops validating and listing; its uses stay)', params: IdParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await coupons.remove(req.params.id);
    return reply.code(204).send(null);
  });

  r.post('/discounts/coupons/:id/apply', {
    config: { auth: ADMIN, permission: 'discounts.write' },
    schema: { tags, summary: 'Record a use of the coupon (raises uses_count)', params: IdParams, body: CouponApply, response: { 200: CouponApplyResult, ...errorResponses(400, 401, 403, 404, 409, 422) } },
  }, async (req) => {
    const b = req.body;
    const { coupon, redemption } = await coupons.apply(req.params.id, {
      customerId: b.customer_id,
      customerEmail: b.customer_email,
      orderId: b.order_id,
      amount: b.discount_amount,
      currency: b.currency,
    });
    return { success: true, redemption_id: redemption.id, uses_count: coupon.usesCount };
  });

  r.get('/discounts/coupons/:id/redemptions', {
    config: { auth: ADMIN, permission: 'discounts.read' },
    schema: { tags, summary: 'The uses of a coupon', params: IdParams, querystring: RedemptionListQuery, response: { 200: listOf(RedemptionOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => {
    const page = await coupons.redemptions(req.params.id, req.query);
    return { data: page.items.map(redemptionOut), meta: { pagination: page.pagination } };
  });
}
