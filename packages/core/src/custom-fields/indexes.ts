import type pg from 'pg';
import { COLUMN_PREFIX, CustomFields } from './registry.js';

/**
 * Makes what every indexed custom field is filtered on, on the tables of the installed hosts: a
 * stored column of the field's value as text, and its index (tenant first, then the column); drops
 * the columns and indexes no declaration asks for any more. Idempotent: the names follow from the
 * table, the field and its expression. Runs after the migrations (`qhatu migrate`).
 *
 * Adding a stored column rewrites the table once (PostgreSQL computes it for every row), under a
 * lock that holds its writes meanwhile: on a large table, declare a new indexed field at a quiet
 * hour.
 */
export async function syncCustomFieldIndexes(client: pg.Client, fields: CustomFields, log: (line: string) => void): Promise<void> {
  const wanted = fields.indexes();
  for (const table of new Set(fields.hosts().map((host) => host.table))) {
    const own = wanted.filter((index) => index.table === table);
    const prefix = CustomFields.indexPrefix(table);
    const columns = await client.query<{ column_name: string }>(
      `select column_name from information_schema.columns
       where table_schema = current_schema() and table_name = $1 and left(column_name, $2) = $3 and is_generated = 'ALWAYS'`,
      [table, COLUMN_PREFIX.length, COLUMN_PREFIX],
    );
    for (const { column_name: column } of columns.rows) {
      if (own.some((index) => index.column === column)) continue;
      // Its index goes with it.
      await client.query(`ALTER TABLE ${table} DROP COLUMN IF EXISTS ${column}`);
      log(`dropped custom field column ${table}.${column}`);
    }
    const { rows } = await client.query<{ indexname: string }>(
      'select indexname from pg_indexes where schemaname = current_schema() and tablename = $1 and left(indexname, $2) = $3',
      [table, prefix.length, prefix],
    );
    const existing = new Set(rows.map((r) => r.indexname));
    for (const name of existing) {
      if (own.some((index) => index.name === name)) continue;
      await client.query(`DROP INDEX IF EXISTS ${name}`);
      log(`dropped custom field index ${name}`);
    }
    const made = new Set(columns.rows.map((r) => r.column_name));
    for (const index of own) {
      try {
        if (!made.has(index.column)) {
          await client.query(index.columnSql);
          log(`made custom field column ${table}.${index.column}`);
        }
        if (!existing.has(index.name)) {
          await client.query(index.sql);
          log(`made custom field index ${index.name}`);
        }
      } catch (error) {
        throw new Error(`Custom field index ${index.name} on ${table} could not be made: ${(error as Error).message}`, { cause: error });
      }
    }
  }
}
