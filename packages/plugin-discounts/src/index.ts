import { definePlugin, OutboxRelay } from '@qhatu/core';
import { Coupon } from './entities/coupon.js';
import { Redemption } from './entities/redemption.js';
import { VolumeDiscount } from './entities/volume-discount.js';
import { discountsMigration } from './migrations/0001_discounts.js';
import { releasedRedemptionsMigration } from './migrations/0002_released_redemptions.js';
import { couponSearchMigration } from './migrations/0003_search.js';
import { volumeFactsMigration } from './migrations/0004_fact_versions.js';
import { currenciesMigration } from './migrations/0005_currencies.js';
import { couponRoutes } from './routes/coupons.js';
import { volumeDiscountRoutes } from './routes/volume-discounts.js';
import { COUPON_EVENTS, Coupons } from './services/coupons.js';
import { Discounts } from './services/discounts.js';
import { releaseCancelledOrder } from './services/releases.js';
import { forgetDeletedProduct, VOLUME_DISCOUNT_EVENTS, VolumeDiscounts } from './services/volume-discounts.js';

export { type AmountsByCurrency, Coupon, COUPON_STATUSES, COUPON_TARGETS, COUPON_TYPES, type CouponStatus, type CouponTarget, type CouponType } from './entities/coupon.js';
export { Redemption } from './entities/redemption.js';
export { VolumeDiscount } from './entities/volume-discount.js';
export {
  COUPON_APPLIED,
  Discounts,
  type AppliedCoupon,
  type CouponCheck,
  type CouponCustomer,
  type CouponVerdict,
  type OrderLine,
  type VolumeQuote,
} from './services/discounts.js';
export { Coupons } from './services/coupons.js';
export { couponTermsIn, type CouponTermsIn } from './services/currencies.js';
export { VolumeDiscounts } from './services/volume-discounts.js';
export { normalizeCode, REFUSALS, type Refusal } from './services/rules.js';
export { reviseRedemption } from './services/releases.js';

/** Discounts: coupons (percentage or fixed, limited in uses, time and products) and volume tiers. */
export default definePlugin({
  name: 'discounts',
  permissions: [
    { name: 'discounts.read', description: 'See coupons and their redemptions' },
    { name: 'discounts.write', description: 'Create, change and delete coupons and volume discounts, and apply coupons to orders' },
  ],
  dependsOn: ['catalog'],
  entities: [Coupon, Redemption, VolumeDiscount],
  migrations: [discountsMigration, releasedRedemptionsMigration, couponSearchMigration, volumeFactsMigration, currenciesMigration],
  events: [...COUPON_EVENTS, ...VOLUME_DISCOUNT_EVENTS],
  register(container) {
    container.registerSingleton(Discounts);
    container.registerSingleton(Coupons);
    container.registerSingleton(VolumeDiscounts);
  },
  onReady({ container }) {
    container.resolve(OutboxRelay).subscribe(forgetDeletedProduct);
    // A cancelled order gives its coupon uses back.
    container.resolve(OutboxRelay).subscribe(releaseCancelledOrder);
  },
  routes: async (app, { container }) => {
    await couponRoutes(app, container);
    await volumeDiscountRoutes(app, container);
  },
});
