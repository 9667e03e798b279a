import { tenantTable, type Migration } from '@qhatu/core';

/**
 * Which store a provider's payment, refund or session belongs to, for notifications posted to the
 * specification's bare `/webhooks/<gateway>` path. A platform-level lookup (the provider's id
 * first, not the tenant's): only the notification route reads it, as the owner, and then only to
 * know whose credentials verify the signature. Under the tenants' role, row-level security shows
 * and takes a store's own rows only. Triggers fill it as the ids are recorded, so no write path
 * can forget it and no request pays a statement for it.
 */
export const providerIndexMigration: Migration = {
  id: '0006_payment_provider_index',
  up: [
    `CREATE TABLE payments_provider_ref (
       gateway text NOT NULL,
       kind text NOT NULL CHECK (kind IN ('payment', 'refund', 'session')),
       reference text NOT NULL,
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       PRIMARY KEY (gateway, kind, reference, tenant_id))`,
    tenantTable('payments_provider_ref'),
    `CREATE FUNCTION payments_index_payment() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       INSERT INTO payments_provider_ref (gateway, kind, reference, tenant_id)
         VALUES (NEW.gateway, 'payment', NEW.provider_payment_id, NEW.tenant_id) ON CONFLICT DO NOTHING;
       RETURN NULL;
     END $$`,
    `CREATE TRIGGER payments_payment_provider_ref AFTER INSERT OR UPDATE OF provider_payment_id ON payments_payment
       FOR EACH ROW WHEN (NEW.provider_payment_id IS NOT NULL) EXECUTE FUNCTION payments_index_payment()`,
    `CREATE FUNCTION payments_index_refund() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       INSERT INTO payments_provider_ref (gateway, kind, reference, tenant_id)
         SELECT p.gateway, 'refund', NEW.provider_refund_id, NEW.tenant_id FROM payments_payment p
          WHERE p.tenant_id = NEW.tenant_id AND p.id = NEW.payment_id
         ON CONFLICT DO NOTHING;
       RETURN NULL;
     END $$`,
    `CREATE TRIGGER payments_refund_provider_ref AFTER INSERT OR UPDATE OF provider_refund_id ON payments_refund
       FOR EACH ROW WHEN (NEW.provider_refund_id IS NOT NULL) EXECUTE FUNCTION payments_index_refund()`,
    `CREATE FUNCTION payments_index_session() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       INSERT INTO payments_provider_ref (gateway, kind, reference, tenant_id)
         VALUES (NEW.gateway, 'session', NEW.id::text, NEW.tenant_id) ON CONFLICT DO NOTHING;
       RETURN NULL;
     END $$`,
    `CREATE TRIGGER payments_session_provider_ref AFTER INSERT ON payments_session
       FOR EACH ROW EXECUTE FUNCTION payments_index_session()`,
    `INSERT INTO payments_provider_ref (gateway, kind, reference, tenant_id)
       SELECT gateway, 'payment', provider_payment_id, tenant_id FROM payments_payment WHERE provider_payment_id IS NOT NULL
       UNION SELECT p.gateway, 'refund', r.provider_refund_id, r.tenant_id FROM payments_refund r
               JOIN payments_payment p ON p.tenant_id = r.tenant_id AND p.id = r.payment_id WHERE r.provider_refund_id IS NOT NULL
       UNION SELECT gateway, 'session', id::text, tenant_id FROM payments_session
       ON CONFLICT DO NOTHING`,
  ],
};
