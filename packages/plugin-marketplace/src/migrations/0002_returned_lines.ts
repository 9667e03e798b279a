import type { Migration } from '@qhatu/core';

/** Ledger entries of kind `return`: a returned vendor line's worth moved to the store, and the store giving it back. */
export const returnedLinesMigration: Migration = {
  id: '0002_returned_lines',
  up: [
    `ALTER TABLE marketplace_ledger_entry DROP CONSTRAINT marketplace_ledger_entry_kind_check`,
    `ALTER TABLE marketplace_ledger_entry ADD CONSTRAINT marketplace_ledger_entry_kind_check CHECK (kind IN ('sale', 'refund', 'return'))`,
  ],
};
