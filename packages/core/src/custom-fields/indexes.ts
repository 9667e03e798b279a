import type pg from 'pg';
import { CustomFields } from './registry.js';

/**
 * Makes the index of every indexed custom field (tenant first, then the field's value) and drops the
 * ones no declaration asks for any more, on the tables of the installed hosts. Idempotent: the names
 * follow from the table, the field and its expression. Runs after the migrations (`qhatu migrate`).
 */
export async function syncCustomFieldIndexes(client: pg.Client, fields: CustomFields, log: (line: string) => void): Promise<void> {
  const wanted = fields.indexes();
  for (const table of new Set(fields.hosts().map((host) => host.table))) {
    const prefix = CustomFields.indexPrefix(table);
    const { rows } = await client.query<{ indexname: string }>(
      'select indexname from pg_indexes where schemaname = current_schema() and tablename = $1 and left(indexname, $2) = $3',
      [table, prefix.length, prefix],
    );
    const existing = new Set(rows.map((r) => r.indexname));
    const own = wanted.filter((index) => index.table === table);
    for (const name of existing) {
      if (own.some((index) => index.name === name)) continue;
      await client.query(`DROP INDEX IF EXISTS ${name}`);
      log(`dropped custom field index ${name}`);
    }
    for (const index of own) {
      if (existing.has(index.name)) continue;
      try {
        await client.query(index.sql);
      } catch (error) {
        throw new Error(`Custom field index ${index.name} on ${table} could not be made: ${(error as Error).message}`, { cause: error });
      }
      log(`made custom field index ${index.name}`);
    }
  }
}
