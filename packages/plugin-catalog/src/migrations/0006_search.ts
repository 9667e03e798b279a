import { searchIndex, type Migration } from '@qhatu/core';

/** Product and brand search on core's trigram index (decision 0046): title and handle, brand name. */
export const catalogSearchMigration: Migration = {
  id: '0006_search',
  up: [
    ...searchIndex({ table: 'catalog_product', columns: ['title', 'handle'] }),
    ...searchIndex({ table: 'catalog_brand', columns: ['name'] }),
  ],
};
