import type { Review } from '../entities/review.js';

/** Every event type this plugin publishes. */
export const REVIEW_EVENTS = [
  'reviews.review.created',
  'reviews.review.approved',
  'reviews.review.rejected',
  'reviews.review.unapproved',
  'reviews.review.deleted',
] as const;

/** The data of every review event: the review without its text (subscribers read it if they need it). */
export function reviewEvent(r: Review): Record<string, unknown> {
  return {
    id: r.id,
    product_id: r.productId,
    customer_id: r.customerId,
    order_id: r.orderId,
    verified_purchase: r.verifiedPurchase,
    rating: r.rating,
    status: r.status,
    updated_at: r.updatedAt.toISOString(),
  };
}
