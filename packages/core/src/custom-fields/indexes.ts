import type pg from 'pg';
import { CustomFields, storedColumnsSql } from './registry.js';

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
  const tables = [...new Set(fields.hosts().map((host) => host.table))];
  const stored = (await client.query<{ name: string }>(storedColumnsSql('$1'), [tables.join(',')])).rows.map((row) => row.name);
  for (const table of tables) {
    const own = wanted.filter((index) => index.table === table);
    const prefix = CustomFields.indexPrefix(table);
    const made = new Set(stored.filter((name) => name.startsWith(`${table}.`)).map((name) => name.slice(table.length + 1)));
    for (const column of made) {
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
