import type { PluginNames } from '../names.js';

export function migrationsIndex(n: PluginNames): string {
  return `import type { Migration } from '@qhatu/core';
import { items } from './0001_items.js';

/**
 * Applied in order by \`qhatu migrate\`. A migration that has shipped is never edited: add the next one.
 * After changing an entity, \`qhatu migration generate ${n.name}\` writes it from the difference with the database.
 */
export const ${n.camel}Migrations: Migration[] = [items];
`;
}

export function itemsMigration(n: PluginNames): string {
  return `import { searchIndex, tenantTable, type Migration } from '@qhatu/core';

export const items: Migration = {
  id: '0001_items',
  up: [
    \`CREATE TABLE ${n.table} (
       tenant_id uuid NOT NULL REFERENCES core_tenant (id) ON DELETE CASCADE,
       id uuid NOT NULL,
       title text NOT NULL,
       description text,
       created_at timestamptz NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (tenant_id, id))\`,
    // tenant_id leads every index: each query runs inside one store.
    \`CREATE INDEX ${n.table}_created ON ${n.table} (tenant_id, created_at, id)\`,
    \`CREATE INDEX ${n.table}_title ON ${n.table} (tenant_id, title, id)\`,
    // Row-level security: the database itself keeps each store's rows apart.
    tenantTable('${n.table}'),
    // \`q\` searches the title on a trigram index, case and accents folded (core's searchIndex).
    ...searchIndex({ table: '${n.table}', columns: ['title'] }),
  ],
};
`;
}
