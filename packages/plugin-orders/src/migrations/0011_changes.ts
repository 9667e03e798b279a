import { tenantTable, type Migration } from '@qhatu/core';

const WATCHED = ['orders_order', 'orders_line_item', 'orders_fulfillment'];

/**
 * Which transactions changed a store's orders (decision 0101): a row per committing transaction and
 * store, written by a trigger at commit (deferred, once per transaction and store) whoever writes an
 * order, a line or a shipment. Rows are only inserted, so two checkouts of a store never wait for
 * each other on it. A page of the admin's order list kept with the snapshot it was read at is still
 * right while no row of the store is invisible to that snapshot; rows go after an hour.
 */
export const orderChangesMigration: Migration = {
  id: '0011_changes',
  up: [
    `CREATE TABLE orders_change (
       tenant_id uuid NOT NULL,
       xid xid8 NOT NULL,
       changed_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, xid))`,
    tenantTable('orders_change'),
    `CREATE INDEX orders_change_changed_at ON orders_change (changed_at)`,
    `CREATE FUNCTION orders_change_note() RETURNS trigger LANGUAGE plpgsql AS $$
     DECLARE
       store uuid := CASE WHEN TG_OP = 'DELETE' THEN OLD.tenant_id ELSE NEW.tenant_id END;
       noted text := coalesce(current_setting('qhatu.orders_noted', true), '');
     BEGIN
       IF position(store::text IN noted) > 0 THEN RETURN NULL; END IF;
       INSERT INTO orders_change (tenant_id, xid, changed_at) VALUES (store, pg_current_xact_id(), clock_timestamp())
         ON CONFLICT DO NOTHING;
       PERFORM set_config('qhatu.orders_noted', noted || store::text || ',', true);
       RETURN NULL;
     END $$`,
    ...WATCHED.map(
      (table) => `CREATE CONSTRAINT TRIGGER ${table}_change AFTER INSERT OR UPDATE OR DELETE ON ${table}
         DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION orders_change_note()`,
    ),
  ],
};
