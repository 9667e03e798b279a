import type { Migration } from '@qhatu/core';

/** Ledger entries of kind `revision`: an edit of a paid order moves each part to the order's new amounts. */
export const revisedOrdersMigration: Migration = {
  id: '0003_revised_orders',
  up: [
    `ALTER TABLE marketplace_ledger_entry DROP CONSTRAINT marketplace_ledger_entry_kind_check`,
    `ALTER TABLE marketplace_ledger_entry ADD CONSTRAINT marketplace_ledger_entry_kind_check CHECK (kind IN ('sale', 'refund', 'return', 'revision'))`,
  ],
};
