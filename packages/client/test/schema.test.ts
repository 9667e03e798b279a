import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES_FILE, errorCodesFile, fullStoreOpenApi, SCHEMA_FILE, schemaSource } from '../scripts/generate.js';

/** The first line that differs, or null: a plain equality would print a megabyte. */
function firstDifference(committed: string, fresh: string) {
  const [a, b] = [committed.split('\n'), fresh.split('\n')];
  const first = a.findIndex((line, i) => line !== b[i]);
  const at = first === -1 && a.length !== b.length ? Math.min(a.length, b.length) : first;
  return at === -1 ? null : { line: at + 1, committed: a.slice(at, at + 3), generated: b.slice(at, at + 3) };
}

describe('the generated files', () => {
  it('src/schema.ts is what the full store serves today (else run: pnpm --filter @qhatu/client generate)', async () => {
    const committed = await readFile(SCHEMA_FILE, 'utf8');
    const fresh = await schemaSource(await fullStoreOpenApi());
    expect(firstDifference(committed, fresh), 'the committed client is stale: run pnpm --filter @qhatu/client generate').toBeNull();
  });

  it('src/error-codes.ts lists the codes the sources answer today (else run: pnpm --filter @qhatu/client generate)', async () => {
    const committed = await readFile(ERROR_CODES_FILE, 'utf8');
    expect(firstDifference(committed, await errorCodesFile()), 'the committed error codes are stale: run pnpm --filter @qhatu/client generate').toBeNull();
  });
});
