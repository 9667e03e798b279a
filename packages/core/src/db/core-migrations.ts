import { APP_ROLE, tenantTable, type Migration } from './migrations.js';
import { factVersionTables } from '../cache/fact-cache.js';
import { expectFunction } from './expect.js';
import { searchFunctions, searchIndex, searchPageFunctions } from './search.js';
import { localeStatements } from '../translations/migration.js';
import { marketStatements } from '../markets/migration.js';

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
  {
    id: '0002_staff',
    up: [
      `ALTER TABLE core_access_token DROP CONSTRAINT core_access_token_kind_check`,
      `ALTER TABLE core_access_token ADD CONSTRAINT core_access_token_kind_check
         CHECK (kind IN ('admin', 'storefront', 'customer', 'vendor', 'staff'))`,
      `CREATE TABLE core_role (
         tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
         id uuid NOT NULL,
         name text NOT NULL,
         built_in text CHECK (built_in IN ('owner', 'admin')),
         permissions jsonb NOT NULL DEFAULT '[]',
         created_at timestamptz NOT NULL,
         updated_at timestamptz NOT NULL,
         PRIMARY KEY (tenant_id, id))`,
      `CREATE UNIQUE INDEX core_role_name ON core_role (tenant_id, lower(name))`,
      `CREATE UNIQUE INDEX core_role_built_in ON core_role (tenant_id, built_in) WHERE built_in IS NOT NULL`,
      `CREATE INDEX core_role_created ON core_role (tenant_id, created_at, id)`,
      tenantTable('core_role'),
      // Every store has the two built-in roles; new stores get them when they are created.
      `INSERT INTO core_role (tenant_id, id, name, built_in, permissions, created_at, updated_at)
         SELECT t.id, gen_random_uuid(), b.name, b.name, '[]', t.created_at, t.created_at
           FROM core_tenant t CROSS JOIN (VALUES ('owner'), ('admin')) AS b (name)`,
      `ALTER TABLE core_access_token ADD COLUMN role_id uuid`,
      `ALTER TABLE core_access_token ADD FOREIGN KEY (tenant_id, role_id) REFERENCES core_role (tenant_id, id)`,
      `CREATE INDEX core_access_token_subject ON core_access_token (tenant_id, subject_id) WHERE subject_id IS NOT NULL`,
      `CREATE INDEX core_access_token_role ON core_access_token (tenant_id, role_id) WHERE role_id IS NOT NULL`,
      `CREATE TABLE core_staff (
         tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
         id uuid NOT NULL,
         email text NOT NULL,
         first_name text NOT NULL,
         last_name text NOT NULL,
         role_id uuid NOT NULL,
         status text NOT NULL CHECK (status IN ('active', 'disabled')),
         last_login_at timestamptz,
         created_at timestamptz NOT NULL,
         updated_at timestamptz NOT NULL,
         PRIMARY KEY (tenant_id, id),
         FOREIGN KEY (tenant_id, role_id) REFERENCES core_role (tenant_id, id))`,
      `CREATE UNIQUE INDEX core_staff_email ON core_staff (tenant_id, email)`,
      `CREATE INDEX core_staff_created ON core_staff (tenant_id, created_at, id)`,
      `CREATE INDEX core_staff_status ON core_staff (tenant_id, status, created_at, id)`,
      `CREATE INDEX core_staff_role ON core_staff (tenant_id, role_id, created_at, id)`,
      tenantTable('core_staff'),
      `CREATE TABLE core_staff_credential (
         tenant_id uuid NOT NULL,
         staff_id uuid NOT NULL,
         password_hash text NOT NULL,
         updated_at timestamptz NOT NULL,
         PRIMARY KEY (tenant_id, staff_id),
         FOREIGN KEY (tenant_id, staff_id) REFERENCES core_staff (tenant_id, id) ON DELETE CASCADE)`,
      tenantTable('core_staff_credential'),
      `CREATE TABLE core_staff_ticket (
         tenant_id uuid NOT NULL,
         id uuid NOT NULL,
         staff_id uuid NOT NULL,
         purpose text NOT NULL CHECK (purpose IN ('invite', 'reset')),
         token_hash text NOT NULL,
         expires_at timestamptz NOT NULL,
         used_at timestamptz,
         created_at timestamptz NOT NULL,
         PRIMARY KEY (tenant_id, id),
         FOREIGN KEY (tenant_id, staff_id) REFERENCES core_staff (tenant_id, id) ON DELETE CASCADE)`,
      `CREATE UNIQUE INDEX core_staff_ticket_hash ON core_staff_ticket (tenant_id, token_hash)`,
      `CREATE INDEX core_staff_ticket_staff ON core_staff_ticket (tenant_id, staff_id, purpose)`,
      tenantTable('core_staff_ticket'),
    ],
  },
  {
    // Indexed search (decision 0046): the shared functions, then the stores and the staff lists.
    id: '0003_search',
    up: [
      ...searchFunctions,
      ...searchIndex({ table: 'core_tenant', columns: ['name', 'slug'], platform: true }),
      ...searchIndex({ table: 'core_staff', columns: ['email', 'first_name', 'last_name'] }),
    ],
  },
  {
    // Versions of a store's facts that hot writes keep in memory, and the guard of writes sent on them (decision 0049).
    id: '0004_fact_versions',
    up: [...factVersionTables, ...expectFunction],
  },
  {
    // Idempotency keys belong to the caller (decision 0061): another caller's same key is another request.
    id: '0005_idempotency_caller',
    up: [
      `ALTER TABLE core_idempotency_key ADD COLUMN caller text NOT NULL DEFAULT ''`,
      `ALTER TABLE core_idempotency_key DROP CONSTRAINT core_idempotency_key_pkey`,
      `ALTER TABLE core_idempotency_key ADD PRIMARY KEY (scope, caller, key)`,
    ],
  },
  {
    // Sign-in and sign-up counters shared by every API process (decision 0061); housekeeping drops ended windows.
    id: '0006_rate_limits',
    up: [
      `CREATE TABLE core_rate_limit (
         tenant_id uuid NOT NULL,
         key text NOT NULL,
         hits int NOT NULL,
         resets_at timestamptz NOT NULL,
         PRIMARY KEY (tenant_id, key))`,
      `CREATE INDEX core_rate_limit_resets ON core_rate_limit (resets_at)`,
    ],
  },
  {
    // Idempotency keys are the store's (decision 0072): keyed by tenant_id, so that a schema
    // distributed by store keeps each store's keys beside its other rows; the platform's own
    // requests are filed under the nil UUID.
    id: '0007_idempotency_tenant',
    up: [
      `ALTER TABLE core_idempotency_key ADD COLUMN tenant_id uuid`,
      `UPDATE core_idempotency_key SET tenant_id = CASE
         WHEN scope ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN scope::uuid
         ELSE '00000000-0000-0000-0000-000000000000'::uuid END`,
      `ALTER TABLE core_idempotency_key ALTER COLUMN tenant_id SET NOT NULL`,
      `ALTER TABLE core_idempotency_key DROP CONSTRAINT core_idempotency_key_pkey`,
      `ALTER TABLE core_idempotency_key DROP COLUMN scope`,
      `ALTER TABLE core_idempotency_key ADD PRIMARY KEY (tenant_id, caller, key)`,
    ],
  },
  {
    // Searched lists in their own order, flat at any size (decision 0082): the words' patterns, a row's test, the first matches.
    id: '0008_search_pages',
    up: searchPageFunctions,
  },
  {
    // The languages a store sells in and the text search of each (decision 0089).
    id: '0009_locales',
    up: localeStatements,
  },
  {
    // The currencies a store sells in, their rates and rounding, and its markets (decision 0097).
    id: '0010_markets',
    up: marketStatements,
  },
  {
    // A store's own texts of the e-mails sent to its customers, per mail and locale (decision 0098).
    id: '0011_mail_texts',
    up: [
      `CREATE TABLE core_mail_text (
         tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
         key text NOT NULL,
         locale text NOT NULL,
         subject text NOT NULL,
         text text NOT NULL,
         created_at timestamptz NOT NULL DEFAULT now(),
         updated_at timestamptz NOT NULL DEFAULT now(),
         PRIMARY KEY (tenant_id, key, locale))`,
      tenantTable('core_mail_text'),
    ],
  },
];
