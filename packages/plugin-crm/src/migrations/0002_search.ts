import { dropSearchIndex, searchIndex, type Migration } from '@qhatu/core';

/** Lead search moves onto core's indexed search (decision 0046): same columns, every word found. */
export const crmSearchMigration: Migration = {
  id: '0002_search',
  up: [
    ...dropSearchIndex('crm_lead'),
    `DROP FUNCTION IF EXISTS crm_fold(text)`,
    ...searchIndex({ table: 'crm_lead', columns: ['first_name', 'last_name', 'email', 'company'] }),
  ],
};
