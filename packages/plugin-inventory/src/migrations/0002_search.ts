import { searchIndex, type Migration } from '@qhatu/core';

/** Warehouse search on core's trigram index (decision 0046): name and code. */
export const warehouseSearchMigration: Migration = {
  id: '0002_search',
  up: [
    ...searchIndex({ table: 'inventory_warehouse', columns: ['name', 'code'] }),
  ],
};
