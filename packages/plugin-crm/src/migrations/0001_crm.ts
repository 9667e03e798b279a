import { tenantTable, type Migration } from '@qhatu/core';

/**
 * Accent-folded, lower-cased text for search: `translate()` keeps it IMMUTABLE (unaccent is not)
 * and needs no extension beyond pg_trgm, which the embedded database loads too.
 */
const FOLD_FROM = 'ÁÀÂÄÃÅĀáàâäãåāÉÈÊËĒéèêëēÍÌÎÏĪíìîïīÓÒÔÖÕØŌóòôöõøōÚÙÛÜŪúùûüūÑñÇçÝŸýÿ';
const FOLD_TO = 'AAAAAAAaaaaaaaEEEEEeeeeeIIIIIiiiiiOOOOOOOoooooooUUUUUuuuuuNnCcYYyy';

const tenantRef = `tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE`;
const LEAD_STATUSES = `'new', 'working', 'mql', 'sql', 'converted', 'disqualified'`;
const ENTITY_KINDS = `'contact', 'account', 'deal', 'lead'`;

export const crmMigration: Migration = {
  id: '0001_crm',
  up: [
    `CREATE EXTENSION IF NOT EXISTS pg_trgm`,
    `CREATE EXTENSION IF NOT EXISTS btree_gin`,
    `CREATE FUNCTION crm_fold(value text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
       AS $$ SELECT lower(translate(value, '${FOLD_FROM}', '${FOLD_TO}')) $$`,
    `GRANT EXECUTE ON FUNCTION crm_fold(text) TO qhatu_app`,

    `CREATE TABLE crm_settings (
       ${tenantRef},
       sql_threshold int NOT NULL CHECK (sql_threshold BETWEEN 0 AND 100),
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id))`,
    tenantTable('crm_settings'),

    `CREATE TABLE crm_lead (
       ${tenantRef},
       id uuid NOT NULL,
       owner_id uuid,
       email text,
       first_name text,
       last_name text NOT NULL,
       phone text,
       company text,
       job_title text,
       source text NOT NULL CHECK (source IN ('manual', 'import', 'api', 'web_form')),
       status text NOT NULL CHECK (status IN (${LEAD_STATUSES})),
       score int NOT NULL CHECK (score BETWEEN 0 AND 100),
       disqualified_reason text,
       converted_at timestamptz,
       converted_contact_id uuid,
       converted_account_id uuid,
       converted_deal_id uuid,
       tags jsonb NOT NULL DEFAULT '[]',
       metadata jsonb NOT NULL DEFAULT '{}',
       last_activity_at timestamptz,
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       search_text text GENERATED ALWAYS AS (crm_fold(
         coalesce(first_name, '') || ' ' || last_name || ' ' || coalesce(email, '') || ' ' || coalesce(company, ''))) STORED,
       PRIMARY KEY (tenant_id, id))`,
    // One index per sort, one per filter (with the default sort), and the trigram index for search.
    `CREATE INDEX crm_lead_created ON crm_lead (tenant_id, created_at, id)`,
    `CREATE INDEX crm_lead_score ON crm_lead (tenant_id, score, id)`,
    `CREATE INDEX crm_lead_last_name ON crm_lead (tenant_id, last_name, id)`,
    `CREATE INDEX crm_lead_status ON crm_lead (tenant_id, status, created_at, id)`,
    `CREATE INDEX crm_lead_source ON crm_lead (tenant_id, source, created_at, id)`,
    `CREATE INDEX crm_lead_owner ON crm_lead (tenant_id, owner_id, created_at, id)`,
    `CREATE INDEX crm_lead_search ON crm_lead USING gin (tenant_id, search_text gin_trgm_ops)`,
    tenantTable('crm_lead'),
    // Under row-level security PostgreSQL uses no index for LIKE (its operator is not leakproof),
    // so the store's matches come from this function: it runs as the table's owner, reads the
    // trigram index with the words as literals (a plan for them, not a generic one), and is
    // bound to the transaction's store, so it can name no other store's leads.
    `CREATE FUNCTION crm_lead_matches(words text) RETURNS SETOF uuid
       LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public ROWS 100 AS $$
     DECLARE
       store uuid := nullif(current_setting('app.tenant_id', true), '')::uuid;
       pattern text := '%' || replace(replace(replace(crm_fold(words), '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%';
     BEGIN
       IF store IS NULL THEN RETURN; END IF;
       RETURN QUERY EXECUTE format('SELECT id FROM crm_lead WHERE tenant_id = %L AND search_text LIKE %L', store, pattern);
     END $$`,
    `REVOKE ALL ON FUNCTION crm_lead_matches(text) FROM PUBLIC`,
    `GRANT EXECUTE ON FUNCTION crm_lead_matches(text) TO qhatu_app`,

    `CREATE TABLE crm_account (
       ${tenantRef},
       id uuid NOT NULL,
       owner_id uuid,
       name text NOT NULL,
       domain text,
       industry text,
       phone text,
       website text,
       tags jsonb NOT NULL DEFAULT '[]',
       metadata jsonb NOT NULL DEFAULT '{}',
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id))`,
    `CREATE INDEX crm_account_created ON crm_account (tenant_id, created_at, id)`,
    `CREATE INDEX crm_account_name ON crm_account (tenant_id, name, id)`,
    `CREATE INDEX crm_account_owner ON crm_account (tenant_id, owner_id, created_at, id)`,
    tenantTable('crm_account'),

    `CREATE TABLE crm_contact (
       ${tenantRef},
       id uuid NOT NULL,
       account_id uuid,
       owner_id uuid,
       lead_id uuid,
       email text,
       first_name text,
       last_name text NOT NULL,
       phone text,
       job_title text,
       tags jsonb NOT NULL DEFAULT '[]',
       metadata jsonb NOT NULL DEFAULT '{}',
       last_activity_at timestamptz,
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id),
       FOREIGN KEY (tenant_id, account_id) REFERENCES crm_account (tenant_id, id) ON DELETE SET NULL (account_id))`,
    `CREATE INDEX crm_contact_created ON crm_contact (tenant_id, created_at, id)`,
    `CREATE INDEX crm_contact_last_name ON crm_contact (tenant_id, last_name, id)`,
    `CREATE INDEX crm_contact_account ON crm_contact (tenant_id, account_id, created_at, id)`,
    `CREATE INDEX crm_contact_owner ON crm_contact (tenant_id, owner_id, created_at, id)`,
    // A lead converts into one contact, whatever the races.
    `CREATE UNIQUE INDEX crm_contact_lead ON crm_contact (tenant_id, lead_id) WHERE lead_id IS NOT NULL`,
    tenantTable('crm_contact'),

    `CREATE TABLE crm_pipeline (
       ${tenantRef},
       id uuid NOT NULL,
       name text NOT NULL,
       is_default boolean NOT NULL DEFAULT false,
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id))`,
    `CREATE UNIQUE INDEX crm_pipeline_default ON crm_pipeline (tenant_id) WHERE is_default`,
    `CREATE INDEX crm_pipeline_created ON crm_pipeline (tenant_id, created_at, id)`,
    tenantTable('crm_pipeline'),

    `CREATE TABLE crm_stage (
       ${tenantRef},
       id uuid NOT NULL,
       pipeline_id uuid NOT NULL,
       name text NOT NULL,
       position int NOT NULL,
       probability int NOT NULL CHECK (probability BETWEEN 0 AND 100),
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id),
       UNIQUE (tenant_id, pipeline_id, id),
       FOREIGN KEY (tenant_id, pipeline_id) REFERENCES crm_pipeline (tenant_id, id) ON DELETE CASCADE)`,
    `CREATE INDEX crm_stage_pipeline ON crm_stage (tenant_id, pipeline_id, position)`,
    tenantTable('crm_stage'),

    `CREATE TABLE crm_deal (
       ${tenantRef},
       id uuid NOT NULL,
       pipeline_id uuid NOT NULL,
       stage_id uuid NOT NULL,
       contact_id uuid,
       account_id uuid,
       owner_id uuid,
       title text NOT NULL,
       amount bigint NOT NULL CHECK (amount >= 0),
       currency char(3) NOT NULL,
       status text NOT NULL CHECK (status IN ('open', 'won', 'lost')),
       probability int NOT NULL CHECK (probability BETWEEN 0 AND 100),
       expected_close timestamptz,
       lost_reason text,
       tags jsonb NOT NULL DEFAULT '[]',
       metadata jsonb NOT NULL DEFAULT '{}',
       closed_at timestamptz,
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       -- Deals without a date sort after every dated one in -expected_close (and first ascending).
       expected_close_sort timestamptz GENERATED ALWAYS AS (coalesce(expected_close, '-infinity'::timestamptz)) STORED,
       PRIMARY KEY (tenant_id, id),
       FOREIGN KEY (tenant_id, pipeline_id, stage_id) REFERENCES crm_stage (tenant_id, pipeline_id, id),
       FOREIGN KEY (tenant_id, contact_id) REFERENCES crm_contact (tenant_id, id) ON DELETE SET NULL (contact_id),
       FOREIGN KEY (tenant_id, account_id) REFERENCES crm_account (tenant_id, id) ON DELETE SET NULL (account_id))`,
    `CREATE INDEX crm_deal_created ON crm_deal (tenant_id, created_at, id)`,
    `CREATE INDEX crm_deal_amount ON crm_deal (tenant_id, amount, id)`,
    `CREATE INDEX crm_deal_expected_close ON crm_deal (tenant_id, expected_close_sort, id)`,
    `CREATE INDEX crm_deal_pipeline ON crm_deal (tenant_id, pipeline_id, created_at, id)`,
    `CREATE INDEX crm_deal_stage ON crm_deal (tenant_id, stage_id, created_at, id)`,
    `CREATE INDEX crm_deal_owner ON crm_deal (tenant_id, owner_id, created_at, id)`,
    `CREATE INDEX crm_deal_contact ON crm_deal (tenant_id, contact_id, created_at, id)`,
    `CREATE INDEX crm_deal_account ON crm_deal (tenant_id, account_id, created_at, id)`,
    `CREATE INDEX crm_deal_status ON crm_deal (tenant_id, status, created_at, id)`,
    tenantTable('crm_deal'),

    `CREATE TABLE crm_task (
       ${tenantRef},
       id uuid NOT NULL,
       entity_kind text NOT NULL CHECK (entity_kind IN (${ENTITY_KINDS})),
       entity_id uuid NOT NULL,
       assigned_to uuid,
       title text NOT NULL,
       description text,
       status text NOT NULL CHECK (status IN ('open', 'completed', 'cancelled')),
       priority text NOT NULL CHECK (priority IN ('low', 'medium', 'high', 'urgent')),
       due_at timestamptz,
       completed_at timestamptz,
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       -- sort=priority is by urgency: urgent first.
       priority_rank smallint GENERATED ALWAYS AS (CASE priority WHEN 'urgent' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 ELSE 3 END) STORED,
       -- Tasks without a due date come after every dated one in sort=due_at.
       due_sort timestamptz GENERATED ALWAYS AS (coalesce(due_at, 'infinity'::timestamptz)) STORED,
       PRIMARY KEY (tenant_id, id))`,
    `CREATE INDEX crm_task_created ON crm_task (tenant_id, created_at, id)`,
    `CREATE INDEX crm_task_due ON crm_task (tenant_id, due_sort, id)`,
    `CREATE INDEX crm_task_priority ON crm_task (tenant_id, priority_rank, id)`,
    `CREATE INDEX crm_task_status ON crm_task (tenant_id, status, due_sort, id)`,
    `CREATE INDEX crm_task_priority_filter ON crm_task (tenant_id, priority, created_at, id)`,
    `CREATE INDEX crm_task_assignee ON crm_task (tenant_id, assigned_to, due_sort, id)`,
    `CREATE INDEX crm_task_entity ON crm_task (tenant_id, entity_kind, entity_id, created_at, id)`,
    tenantTable('crm_task'),

    `CREATE TABLE crm_activity (
       ${tenantRef},
       id uuid NOT NULL,
       entity_kind text NOT NULL CHECK (entity_kind IN ('lead', 'contact')),
       entity_id uuid NOT NULL,
       type text NOT NULL CHECK (type IN ('call', 'email', 'meeting', 'note')),
       subject text NOT NULL,
       body text,
       occurred_at timestamptz NOT NULL,
       recorded_by uuid,
       created_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id))`,
    `CREATE INDEX crm_activity_entity ON crm_activity (tenant_id, entity_kind, entity_id, occurred_at, id)`,
    tenantTable('crm_activity'),
  ],
};
