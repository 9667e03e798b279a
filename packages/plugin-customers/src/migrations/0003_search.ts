import { searchIndex, type Migration } from '@qhatu/core';

/** Customer search on core's trigram index (decision 0046): e-mail, names and phone (without its +, so that its first digits begin a word). */
export const customersSearchMigration: Migration = {
  id: '0003_search',
  up: [
    ...searchIndex({ table: 'customers_customer', columns: ['email', 'first_name', 'last_name', `ltrim(phone, '+')`] }),
  ],
};
