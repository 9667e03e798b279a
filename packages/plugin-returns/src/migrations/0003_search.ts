import { searchIndex, type Migration } from '@qhatu/core';

/**
 * The returns list's `q` (decision 0095): the customer's e-mail through core's trigram search
 * (decision 0046); a return's or its order's number is looked up on their own unique indexes.
 */
export const returnSearchMigration: Migration = {
  id: '0003_search',
  up: [...searchIndex({ table: 'returns_return', columns: ['email'] })],
};
