import type { Migration } from '@qhatu/core';

/** The cart a recovery link opened in place of a cart frozen by its abandoned checkout. */
export const restoredCartsMigration: Migration = {
  id: '0002_restored_carts',
  up: [
    `ALTER TABLE abandoned_carts_cart
       ADD COLUMN restored_cart_id uuid,
       ADD COLUMN restored_at timestamptz,
       ADD FOREIGN KEY (tenant_id, restored_cart_id) REFERENCES checkout_cart (tenant_id, id) ON DELETE SET NULL (restored_cart_id)
         DEFERRABLE INITIALLY DEFERRED`,
    // The sweep never records a restored cart as a new abandonment of its own.
    `CREATE UNIQUE INDEX abandoned_carts_cart_restored ON abandoned_carts_cart (tenant_id, restored_cart_id) WHERE restored_cart_id IS NOT NULL`,
  ],
};
