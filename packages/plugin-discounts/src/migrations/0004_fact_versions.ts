import { factVersionTrigger, type Migration } from '@qhatu/core';
import { VOLUME_TIER_TOPIC } from '../services/discounts.js';

/** Every change of a volume discount bumps the store's version of its tiers (decision 0049). */
export const volumeFactsMigration: Migration = {
  id: '0004_fact_versions',
  up: [factVersionTrigger(VOLUME_TIER_TOPIC, 'discounts_volume_discount')],
};
