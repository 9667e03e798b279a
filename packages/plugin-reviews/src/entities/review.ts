import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const REVIEW_STATUSES = ['pending', 'approved', 'rejected'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** A customer's review of a product: plain text, moderated before the storefront shows it. */
export const Review = defineEntity({
  name: 'Review',
  tableName: 'reviews_review',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    productId: p.uuid(),
    customerId: p.uuid(),
    /** The order that proves the purchase, when one was given and checked. */
    orderId: p.uuid().nullable(),
    verifiedPurchase: p.boolean(),
    /** How the storefront names the author ("Ana M."), taken when the review was written. */
    authorName: p.string(),
    rating: p.smallint(),
    title: p.text().nullable(),
    body: p.text().nullable(),
    status: p.string().$type<ReviewStatus>(),
    moderatedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Review = InferEntity<typeof Review>;
