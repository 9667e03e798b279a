import { factVersionTrigger, type Migration } from '@qhatu/core';
import { TAX_FACTS_TOPIC } from '../services/rate-table.js';

/**
 * Every change of what a cart's tax reads (the settings, the regions' rates, the classes, and the
 * store's own row, whose currency the settings fall back on) bumps the store's version of its tax
 * facts (decision 0049).
 */
export const taxFactsMigration: Migration = {
  id: '0002_fact_versions',
  up: [
    factVersionTrigger(TAX_FACTS_TOPIC, 'taxes_setting'),
    factVersionTrigger(TAX_FACTS_TOPIC, 'taxes_region'),
    factVersionTrigger(TAX_FACTS_TOPIC, 'taxes_assignment'),
    factVersionTrigger(TAX_FACTS_TOPIC, 'core_tenant', 'id'),
  ],
};
