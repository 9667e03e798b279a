import { APP_ROLE, tenantTable, type Migration } from './migrations.js';

export const coreMigrations: Migration[] = [
  {
    id: '0001_tenancy',
    up: [
      // The role is cluster-wide: several databases (and parallel test files) may race to create it.
      `DO $$ BEGIN
         CREATE ROLE ${APP_ROLE} NOLOGIN NOSUPERUSER NOBYPASSRLS;
       EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$`,
      `DO $$ BEGIN
         EXECUTE format('GRANT ${APP_ROLE} TO %I', current_user);
       EXCEPTION WHEN others THEN NULL; END $$`,
      `GRANT USAGE ON SCHEMA public TO ${APP_ROLE}`,
      `CREATE TABLE core_tenant (
         id uuid PRIMARY KEY,
         name text NOT NULL,
         slug text NOT NULL,
         status text NOT NULL CHECK (status IN ('active', 'suspended', 'trial', 'expired')),
         currency char(3) NOT NULL,
         default_locale text NOT NULL,
         created_at timestamptz NOT NULL,
         updated_at timestamptz NOT NULL)`,
      // text_pattern_ops: the same index serves the prefix search that numbers a taken slug.
      `CREATE UNIQUE INDEX core_tenant_slug ON core_tenant (slug text_pattern_ops)`,
      `CREATE INDEX core_tenant_created ON core_tenant (created_at, id)`,
      // A tenant transaction may read its own tenant record, and nothing else of the table.
      `ALTER TABLE core_tenant ENABLE ROW LEVEL SECURITY`,
      `CREATE POLICY core_tenant_self ON core_tenant FOR SELECT
         USING (id = nullif(current_setting('app.tenant_id', true), '')::uuid)`,
      `GRANT SELECT ON core_tenant TO ${APP_ROLE}`,
      `CREATE TABLE core_access_token (
         tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
         id uuid NOT NULL,
         kind text NOT NULL CHECK (kind IN ('admin', 'storefront', 'customer', 'vendor')),
         name text,
         token_hash text NOT NULL,
         token_prefix text NOT NULL,
         subject_id uuid,
         expires_at timestamptz,
         revoked_at timestamptz,
         created_at timestamptz NOT NULL,
         PRIMARY KEY (tenant_id, id))`,
      `CREATE UNIQUE INDEX core_access_token_hash ON core_access_token (tenant_id, token_hash)`,
      `CREATE INDEX core_access_token_kind ON core_access_token (tenant_id, kind, created_at)`,
      tenantTable('core_access_token'),
      `CREATE TABLE core_outbox (
         tenant_id uuid NOT NULL,
         id uuid NOT NULL,
         type text NOT NULL,
         source text NOT NULL,
         data jsonb NOT NULL,
         occurred_at timestamptz NOT NULL,
         published_at timestamptz,
         PRIMARY KEY (tenant_id, id))`,
      `CREATE INDEX core_outbox_pending ON core_outbox (tenant_id, occurred_at) WHERE published_at IS NULL`,
      tenantTable('core_outbox'),
      `CREATE TABLE core_idempotency_key (
         scope text NOT NULL,
         key text NOT NULL,
         request_hash text NOT NULL,
         status_code int,
         response_body text,
         created_at timestamptz NOT NULL DEFAULT now(),
         PRIMARY KEY (scope, key))`,
      `CREATE INDEX core_idempotency_key_created ON core_idempotency_key (created_at)`,
    ],
  },
];
