import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { fullStoreOpenApi, SCHEMA_FILE, schemaSource } from '../scripts/generate.js';

describe('src/schema.ts', () => {
  it('is what the full store serves today (else run: pnpm --filter @qhatu/client generate)', async () => {
    const committed = await readFile(SCHEMA_FILE, 'utf8');
    const fresh = await schemaSource(await fullStoreOpenApi());
    // A plain equality would print a megabyte; the first line that differs says what changed.
    const [a, b] = [committed.split('\n'), fresh.split('\n')];
    const first = a.findIndex((line, i) => line !== b[i]);
    const at = first === -1 && a.length !== b.length ? Math.min(a.length, b.length) : first;
    expect(at === -1 ? null : { line: at + 1, committed: a.slice(at, at + 3), generated: b.slice(at, at + 3) }, 'the committed client is stale: run pnpm --filter @qhatu/client generate').toBeNull();
  });
});
