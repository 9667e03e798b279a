import { definePlugin } from '@qhatu/core';
import { reviewsAdmin } from './admin.js';
import { Review } from './entities/review.js';
import { reviewGraphQL } from './graphql/reviews.js';
import { reviewMachine } from './machines/review.js';
import { reviewsMigration } from './migrations/0001_reviews.js';
import { reviewRoutes } from './routes/reviews.js';
import { reviewSettingRoutes } from './routes/settings.js';
import { REVIEW_EVENTS } from './services/events.js';
import { ReviewReads } from './services/review-reads.js';
import { Reviews } from './services/reviews.js';
import { ReviewSettingsService } from './services/settings.js';

export { Review, REVIEW_STATUSES, type ReviewStatus } from './entities/review.js';
export { reviewMachine } from './machines/review.js';
export { Reviews, PURCHASED, type ReviewInput, type ReviewAuthor } from './services/reviews.js';
export { ReviewReads, type ReviewFilter } from './services/review-reads.js';
export { ReviewSettingsService, REVIEW_SETTINGS, DEFAULT_REVIEW_SETTINGS, type ReviewSettings, type ProductReviewSettings } from './services/settings.js';
export { REVIEW_EVENTS } from './services/events.js';
export { type RatingSummary } from './services/rating.js';
export { plainText, escapeHtml } from './services/plain-text.js';
export { reviewOut } from './routes/serialize.js';

/** Reviews: customers rate products, the store moderates, the storefront shows approved reviews and an exact rating. */
export default definePlugin({
  name: 'reviews',
  dependsOn: ['catalog', 'customers', 'orders'],
  entities: [Review],
  migrations: [reviewsMigration],
  machines: [reviewMachine],
  events: [...REVIEW_EVENTS],
  permissions: [
    { name: 'reviews.read', description: 'See every review (pending and rejected too) and the review settings' },
    { name: 'reviews.moderate', description: 'Approve, reject, unapprove and delete reviews' },
    { name: 'reviews.configure', description: "Change the store's review settings and each product's overrides" },
  ],
  register(container) {
    container.registerSingleton(ReviewSettingsService);
    container.registerSingleton(Reviews);
    container.registerSingleton(ReviewReads);
  },
  prefix: '',
  routes: async (app, { container }) => {
    await reviewRoutes(app, container);
    await reviewSettingRoutes(app, container);
  },
  graphql: reviewGraphQL,
  admin: reviewsAdmin,
});
