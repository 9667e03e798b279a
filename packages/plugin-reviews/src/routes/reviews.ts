import { ADMIN, AppError, dataOf, errorResponses, filtersOf, hasPermission, IdParams, listOf, NoContent, STOREFRONT, TenantContext } from '@qhatu/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DependencyContainer } from 'tsyringe';
import type { Review } from '../entities/review.js';
import { ProductReviewsQuery, RatingSummaryOut, ReviewInput, ReviewListQuery, ReviewOut } from '../schemas/review.js';
import { ReviewReads, type ReviewFilter } from '../services/review-reads.js';
import { Reviews, type ReviewAuthor } from '../services/reviews.js';
import { reviewOut } from './serialize.js';

/** Admin keys write for any customer; a customer token as itself. A public storefront key proves no customer. */
const WRITERS = ['admin', 'customer'] as const;

function author(): ReviewAuthor {
  const principal = TenantContext.principal();
  if (principal?.kind !== 'customer') return { kind: 'admin' };
  if (!principal.subjectId) throw AppError.unauthenticated('This token does not name a customer');
  return { kind: 'customer', customerId: principal.subjectId };
}

const reader = () => ({ admin: hasPermission(TenantContext.principal(), 'reviews.read') });

/** Mounted with `prefix: ''`: the specification puts moderation under `/admin` and the rest under `/api/v1`. */
export async function reviewRoutes(app: FastifyInstance, container: DependencyContainer): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const reviews = container.resolve(Reviews);
  const reads = container.resolve(ReviewReads);
  const tags = ['Reviews'];
  const page = (items: Review[], pagination: { cursor: string | null; has_next: boolean; limit: number }) => ({ data: items.map(reviewOut), meta: { pagination } });
  const moderated = { 200: dataOf(ReviewOut), ...errorResponses(400, 401, 403, 404, 409) };

  r.post('/api/v1/reviews', {
    config: { auth: WRITERS, permission: 'reviews.moderate' },
    schema: {
      tags,
      summary: 'Write a review (pending until moderated; one per customer and product: 409 REVIEW_ALREADY_EXISTS)',
      body: ReviewInput,
      response: { 201: dataOf(ReviewOut), ...errorResponses(400, 401, 403, 409, 422) },
    },
  }, async (req, reply) => reply.code(201).send({ data: reviewOut(await reviews.submit(req.body, author())) }));

  r.get('/api/v1/reviews/products/:id', {
    config: { auth: STOREFRONT },
    schema: {
      tags,
      summary: "A product's reviews, newest first (status approved by default; pending and rejected for admin keys)",
      params: IdParams,
      querystring: ProductReviewsQuery,
      response: { 200: listOf(ReviewOut), ...errorResponses(400, 401, 403, 404) },
    },
  }, async (req) => {
    const result = await reads.ofProduct(req.params.id, req.query.status, req.query, reader());
    return page(result.items, result.pagination);
  });

  r.get('/api/v1/reviews/products/:id/rating', {
    config: { auth: STOREFRONT },
    schema: {
      tags,
      summary: "A product's rating over its approved reviews (a bare object)",
      params: IdParams,
      response: { 200: RatingSummaryOut, ...errorResponses(400, 401, 403, 404) },
    },
  }, async (req) => reads.rating(req.params.id, reader()));

  r.get('/admin/reviews', {
    config: { auth: ADMIN, permission: 'reviews.read' },
    schema: { tags, summary: "The moderation queue: the store's reviews by status, product or customer", querystring: ReviewListQuery, response: { 200: listOf(ReviewOut), ...errorResponses(400, 401, 403) } },
  }, async (req) => {
    const result = await reads.list(req.query, filtersOf(req.query) as ReviewFilter);
    return page(result.items, result.pagination);
  });

  r.get('/admin/reviews/:id', {
    config: { auth: ADMIN, permission: 'reviews.read' },
    schema: { tags, summary: 'Read a review', params: IdParams, response: { 200: dataOf(ReviewOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req) => ({ data: reviewOut(await reads.get(req.params.id)) }));

  r.post('/admin/reviews/:id/approve', {
    config: { auth: ADMIN, permission: 'reviews.moderate' },
    schema: { tags, summary: 'pending | rejected → approved: the storefront shows it and it counts in the rating', params: IdParams, response: moderated },
  }, async (req) => ({ data: reviewOut(await reviews.moderate(req.params.id, 'approve')) }));

  r.post('/admin/reviews/:id/reject', {
    config: { auth: ADMIN, permission: 'reviews.moderate' },
    schema: { tags, summary: 'pending | approved → rejected', params: IdParams, response: moderated },
  }, async (req) => ({ data: reviewOut(await reviews.moderate(req.params.id, 'reject')) }));

  r.post('/admin/reviews/:id/unapprove', {
    config: { auth: ADMIN, permission: 'reviews.moderate' },
    schema: { tags, summary: 'approved → pending: hidden again until moderated', params: IdParams, response: moderated },
  }, async (req) => ({ data: reviewOut(await reviews.moderate(req.params.id, 'unapprove')) }));

  r.delete('/admin/reviews/:id', {
    config: { auth: ADMIN, permission: 'reviews.moderate' },
    schema: { tags, summary: 'Delete a review (in any state)', params: IdParams, response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => {
    await reviews.remove(req.params.id);
    return reply.code(204).send(null);
  });
}
