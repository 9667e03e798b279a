import { tenantTable, type Migration } from '@qhatu/core';

/**
 * A variant's explicit price in each of the store's other currencies (decision 0097); without one,
 * its price there is derived from its own by the store's rate. A change of one, of the store's
 * rates (`core_store_currency`) or of its markets (a market's currency) moves the store's catalog
 * version like a change of the variant itself, so no cached answer (REST, GraphQL, the carts' kept
 * facts) outlives it.
 */
export const variantPricesMigration: Migration = {
  id: '0010_variant_prices',
  up: [
    `CREATE TABLE catalog_variant_price (
       tenant_id uuid NOT NULL,
       variant_id uuid NOT NULL,
       currency char(3) NOT NULL,
       amount bigint NOT NULL CHECK (amount >= 0),
       compare_at_amount bigint CHECK (compare_at_amount >= 0),
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, variant_id, currency),
       FOREIGN KEY (tenant_id, variant_id) REFERENCES catalog_variant (tenant_id, id) ON DELETE CASCADE
         DEFERRABLE INITIALLY DEFERRED)`,
    tenantTable('catalog_variant_price'),
    ...['catalog_variant_price', 'core_store_currency', 'core_market'].map(
      (table) => `CREATE CONSTRAINT TRIGGER ${table}_catalog_cache_version AFTER INSERT OR UPDATE OR DELETE ON ${table}
         DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION catalog_cache_bump()`,
    ),
  ],
};
