import { tenantTable, type Migration } from '@qhatu/core';

/** Whether the store keeps each variant's stock, and whether it sells it short (decision 0054). */
export const variantSettingsMigration: Migration = {
  id: '0003_variant_settings',
  up: [
    `CREATE TABLE inventory_variant_setting (
       tenant_id uuid NOT NULL,
       id uuid NOT NULL,
       variant_id uuid NOT NULL,
       tracked boolean,
       allow_backorder boolean NOT NULL,
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id),
       FOREIGN KEY (tenant_id, variant_id) REFERENCES catalog_variant (tenant_id, id) ON DELETE CASCADE
         DEFERRABLE INITIALLY DEFERRED)`,
    `CREATE UNIQUE INDEX inventory_variant_setting_variant ON inventory_variant_setting (tenant_id, variant_id)`,
    `CREATE INDEX inventory_variant_setting_created ON inventory_variant_setting (tenant_id, created_at, id)`,
    `CREATE INDEX inventory_variant_setting_updated ON inventory_variant_setting (tenant_id, updated_at, id)`,
    tenantTable('inventory_variant_setting'),
  ],
};
