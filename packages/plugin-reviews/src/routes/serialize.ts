import type { Review } from '../entities/review.js';
import type { ProductReviewSettings } from '../services/settings.js';

export function reviewOut(r: Review) {
  return {
    id: r.id,
    product_id: r.productId,
    customer_id: r.customerId,
    order_id: r.orderId ?? null,
    verified_purchase: r.verifiedPurchase,
    author_name: r.authorName,
    rating: r.rating,
    title: r.title ?? null,
    body: r.body ?? null,
    status: r.status,
    moderated_at: r.moderatedAt?.toISOString() ?? null,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
  };
}

export function productSettingsOut(s: ProductReviewSettings) {
  return { product_id: s.productId, settings: s.settings, overrides: s.overrides };
}
