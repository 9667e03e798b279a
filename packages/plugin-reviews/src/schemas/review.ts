import { pageQuery, Timestamp, Uuid } from '@qhatu/core';
import { z } from 'zod';
import { REVIEW_STATUSES } from '../entities/review.js';

export const Rating = z
  .number({ message: 'must be a whole number from 1 to 5' })
  .int('must be a whole number from 1 to 5')
  .min(1, 'must be at least 1')
  .max(5, 'must be at most 5');

const Text = (max: number) =>
  z.string().max(max, `must be at most ${max} characters`).meta({ description: `Plain text, at most ${max} characters; markup is removed` });

export const ReviewInput = z
  .strictObject({
    product_id: Uuid,
    customer_id: Uuid.meta({ description: "A customer token may only name its own customer" }),
    order_id: Uuid.nullish().meta({ description: "The customer's paid order that holds the product: the review is a verified purchase" }),
    rating: Rating,
    title: Text(200).nullish(),
    body: Text(5000).nullish(),
  })
  .meta({ id: 'ReviewCreate' });
export type ReviewInput = z.infer<typeof ReviewInput>;

export const ReviewOut = z
  .object({
    id: Uuid,
    product_id: Uuid,
    customer_id: Uuid,
    order_id: Uuid.nullable(),
    verified_purchase: z.boolean(),
    author_name: z.string().meta({ description: 'First name and initial of the last, e.g. "Ana M."' }),
    rating: z.number().int().min(1).max(5),
    title: z.string().nullable().meta({ description: 'Plain text (never HTML)' }),
    body: z.string().nullable().meta({ description: 'Plain text (never HTML)' }),
    status: z.enum(REVIEW_STATUSES),
    moderated_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Review' });

export const ProductReviewsQuery = pageQuery().extend({
  status: z.enum(REVIEW_STATUSES).default('approved').meta({ description: 'pending and rejected: admin keys only' }),
  sort: z.enum(['-created_at', 'created_at']).default('-created_at'),
});

export const ReviewListQuery = pageQuery().extend({
  'filter[status]': z.enum(REVIEW_STATUSES).optional(),
  'filter[product_id]': Uuid.optional(),
  'filter[customer_id]': Uuid.optional(),
  sort: z.enum(['-created_at', 'created_at']).default('-created_at'),
});

export const RatingSummaryOut = z
  .object({
    product_id: Uuid,
    avg_rating: z.number().meta({ description: 'The mean of the approved ratings, to two decimals; 0 with no reviews' }),
    total_reviews: z.number().int(),
  })
  .meta({ id: 'ReviewRatingSummary' });
