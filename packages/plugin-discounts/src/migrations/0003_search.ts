import { searchIndex, type Migration } from '@qhatu/core';

/** Coupon search on core's trigram index (decision 0046): the code. */
export const couponSearchMigration: Migration = {
  id: '0003_search',
  up: [
    ...searchIndex({ table: 'discounts_coupon', columns: ['code'] }),
  ],
};
