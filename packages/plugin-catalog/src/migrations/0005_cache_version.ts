import { CACHE_CHANNEL, tenantTable, type Migration } from '@qhatu/core';

const WATCHED = ['catalog_product', 'catalog_variant', 'catalog_collection', 'catalog_collection_product'];

/**
 * A store's catalog version, bumped in the transaction of every change of a product, a variant
 * (prices, and stock written by the inventory), a collection or a collection's products, whoever
 * writes it. The trigger runs at commit (deferred, once per transaction and store) so the counter
 * row is locked only for the commit, and its `NOTIFY` reaches every API process when it commits.
 */
export const cacheVersionMigration: Migration = {
  id: '0005_cache_version',
  up: [
    `CREATE TABLE catalog_cache_version (
       tenant_id uuid NOT NULL PRIMARY KEY,
       version bigint NOT NULL,
       changed_at timestamptz NOT NULL)`,
    tenantTable('catalog_cache_version'),
    `CREATE FUNCTION catalog_cache_bump() RETURNS trigger LANGUAGE plpgsql AS $$
     DECLARE
       store uuid := CASE WHEN TG_OP = 'DELETE' THEN OLD.tenant_id ELSE NEW.tenant_id END;
       bumped text := coalesce(current_setting('qhatu.catalog_bumped', true), '');
       next bigint;
     BEGIN
       IF position(store::text IN bumped) > 0 THEN RETURN NULL; END IF;
       INSERT INTO catalog_cache_version AS v (tenant_id, version, changed_at) VALUES (store, 1, now())
         ON CONFLICT (tenant_id) DO UPDATE SET version = v.version + 1, changed_at = now()
         RETURNING version INTO next;
       PERFORM set_config('qhatu.catalog_bumped', bumped || store::text || ',', true);
       PERFORM pg_notify('${CACHE_CHANNEL}', 'ver:catalog:' || store::text || ':' || next::text);
       RETURN NULL;
     END $$`,
    ...WATCHED.map(
      (table) => `CREATE CONSTRAINT TRIGGER ${table}_cache_version AFTER INSERT OR UPDATE OR DELETE ON ${table}
         DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION catalog_cache_bump()`,
    ),
  ],
};
