import { translationTable, type Migration } from '@qhatu/core';

/** Service names of the rate table in the store's other locales (decision 0089). */
export const shippingTranslationsMigration: Migration = {
  id: '0002_translations',
  up: translationTable('shipping_translation', [{ resource: 'rate', table: 'shipping_rate' }]),
};
