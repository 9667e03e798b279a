import { APP_ROLE, tenantTable, type Migration } from '@qhatu/core';

export const themesMigration: Migration = {
  id: '0001_themes',
  up: [
    // The platform's catalog: no tenant, no row-level security; every store reads it, only the platform writes it.
    `CREATE TABLE themes_catalog (
       id uuid PRIMARY KEY,
       name text NOT NULL,
       display_name text NOT NULL,
       description text NOT NULL,
       preview_url text,
       thumbnail_url text,
       price integer NOT NULL CHECK (price >= 0),
       currency char(3) NOT NULL,
       author text NOT NULL,
       tags jsonb NOT NULL DEFAULT '[]',
       baseline jsonb NOT NULL,
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL)`,
    `CREATE UNIQUE INDEX themes_catalog_name ON themes_catalog (name)`,
    `CREATE INDEX themes_catalog_created ON themes_catalog (created_at, id)`,
    `CREATE INDEX themes_catalog_display_name ON themes_catalog (display_name, id)`,
    `CREATE INDEX themes_catalog_price ON themes_catalog (price, id)`,
    `CREATE INDEX themes_catalog_free ON themes_catalog ((price = 0), created_at, id)`,
    `CREATE INDEX themes_catalog_tags ON themes_catalog USING gin (tags jsonb_path_ops)`,
    `GRANT SELECT ON themes_catalog TO ${APP_ROLE}`,

    // A store's purchase of a paid theme: the price and currency it was bought at.
    `CREATE TABLE themes_purchase (
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       id uuid NOT NULL,
       theme_catalog_id uuid NOT NULL REFERENCES themes_catalog (id),
       price integer NOT NULL CHECK (price >= 0),
       currency char(3) NOT NULL,
       purchased_by uuid,
       purchased_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id))`,
    `CREATE UNIQUE INDEX themes_purchase_theme ON themes_purchase (tenant_id, theme_catalog_id)`,
    tenantTable('themes_purchase'),

    // A theme installed in a store, with its settings: the draft the admin edits and what the storefront shows.
    `CREATE TABLE themes_installed (
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       id uuid NOT NULL,
       theme_catalog_id uuid NOT NULL REFERENCES themes_catalog (id),
       theme_name text NOT NULL,
       display_name text NOT NULL,
       is_active boolean NOT NULL DEFAULT false,
       draft jsonb NOT NULL,
       published jsonb NOT NULL,
       published_at timestamptz,
       draft_updated_at timestamptz NOT NULL,
       version_seq bigint NOT NULL DEFAULT 0,
       installed_at timestamptz NOT NULL,
       activated_at timestamptz,
       PRIMARY KEY (tenant_id, id))`,
    `CREATE UNIQUE INDEX themes_installed_theme ON themes_installed (tenant_id, theme_catalog_id)`,
    // At most one active theme per store, whatever runs at once.
    `CREATE UNIQUE INDEX themes_installed_active ON themes_installed (tenant_id) WHERE is_active`,
    `CREATE INDEX themes_installed_at ON themes_installed (tenant_id, installed_at, id)`,
    tenantTable('themes_installed'),

    // Saved snapshots of an installed theme's settings; the baseline (the theme's own defaults) is kept forever.
    `CREATE TABLE themes_version (
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       id uuid NOT NULL,
       installed_theme_id uuid NOT NULL,
       seq bigint NOT NULL,
       label text NOT NULL,
       snapshot jsonb NOT NULL,
       is_baseline boolean NOT NULL DEFAULT false,
       created_by uuid,
       created_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id),
       FOREIGN KEY (tenant_id, installed_theme_id) REFERENCES themes_installed (tenant_id, id) ON DELETE CASCADE
         DEFERRABLE INITIALLY DEFERRED)`,
    `CREATE UNIQUE INDEX themes_version_seq ON themes_version (tenant_id, installed_theme_id, seq)`,
    `CREATE UNIQUE INDEX themes_version_baseline ON themes_version (tenant_id, installed_theme_id) WHERE is_baseline`,
    tenantTable('themes_version'),

    // Per-store settings of the theme editor: the time zone its version times are shown in.
    `CREATE TABLE themes_store_setting (
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       time_zone text NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id))`,
    tenantTable('themes_store_setting'),
  ],
};
