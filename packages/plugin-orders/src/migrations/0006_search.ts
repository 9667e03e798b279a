import { searchIndex, type Migration } from '@qhatu/core';

/** Order search on core's trigram index (decision 0046): the customer's e-mail and name (numbers have their own index). */
export const ordersSearchMigration: Migration = {
  id: '0006_search',
  up: [
    ...searchIndex({ table: 'orders_order', columns: ['customer_email', 'customer_name'] }),
  ],
};
