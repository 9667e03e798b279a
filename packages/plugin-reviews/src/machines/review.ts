import { defineMachine } from '@qhatu/core';
import { REVIEW_STATUSES, type Review, type ReviewStatus } from '../entities/review.js';
import { reviewEvent } from '../services/events.js';

/**
 * Moderation: a review starts `pending`; approve shows it, reject hides it, unapprove takes an
 * approved review back to `pending` (to look at it again). A rejected review may still be approved.
 */
export const reviewMachine = defineMachine<Review, ReviewStatus>({
  name: 'review',
  field: 'status',
  states: REVIEW_STATUSES,
  transitions: {
    approve: { from: ['pending', 'rejected'], to: 'approved', event: 'reviews.review.approved' },
    reject: { from: ['pending', 'approved'], to: 'rejected', event: 'reviews.review.rejected' },
    unapprove: { from: ['approved'], to: 'pending', event: 'reviews.review.unapproved' },
  },
  eventData: reviewEvent,
});
