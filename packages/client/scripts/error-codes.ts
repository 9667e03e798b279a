// The error codes the full store can answer, read from the sources of the packages it is built from;
// scripts/generate.ts writes them to src/error-codes.ts, and test/schema.test.ts fails while that is stale.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
/** Packages of the full store that answer no REST request of their own. */
const NOT_SERVING = new Set(['@qhatu/cli']);

/** An error code as the contract writes them: UPPER_SNAKE_CASE. */
const CODE = /'([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)'/g;
/** UPPER_SNAKE_CASE words that are not error codes: fastify's and Node's own, and an option of the S3 client. */
const NOT_CODES = [/^FST_ERR_/, /^HPE_/, /^WHEN_REQUIRED$/];

/** The text of a call's arguments, from the `(` at `open` to its matching `)`. */
function argumentsAt(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return text.slice(open + 1, i);
  }
  return '';
}

/**
 * The codes of one source file. Every code an error is built with: the arguments of `AppError`
 * and of any `…Error(…)` helper, `code: '…'` and `code = '…'`, and a route's `errorCodes`.
 * Outside the gateways, also every other UPPER_SNAKE_CASE literal with an underscore (constants
 * that name codes, `{ body: 'INVALID_REQUEST' }`): a gateway's such words are its provider's statuses.
 */
function codesOf(text: string, gateway: boolean): string[] {
  const found: string[] = [];
  const take = (source: string) => {
    for (const m of source.matchAll(CODE)) found.push(m[1]);
  };
  for (const m of text.matchAll(/\b\w*Error(?:\.\w+)?\(/g)) take(argumentsAt(text, m.index + m[0].length - 1));
  for (const m of text.matchAll(/\bcode\s*(?::|=|\?\?)\s*('[^']*')/g)) take(m[1]);
  for (const m of text.matchAll(/errorCodes\s*:\s*\{([^}]*)\}/g)) take(m[1]);
  if (!gateway) for (const m of text.matchAll(CODE)) if (m[1].includes('_')) found.push(m[1]);
  return found.filter((code) => !NOT_CODES.some((pattern) => pattern.test(code)));
}

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const files = await Promise.all(
    entries.map((entry) => {
      const full = path.join(dir, entry.name);
      // Test kits (the providers' doubles) answer with the providers' codes, not the store's.
      if (entry.isDirectory()) return entry.name === 'testing' ? [] : sourceFiles(full);
      return entry.name.endsWith('.ts') && entry.name !== 'testing.ts' ? [full] : [];
    }),
  );
  return files.flat();
}

/** The packages the full store is built from, as folders of this repository. */
async function storePackages(): Promise<Array<{ name: string; dir: string }>> {
  const store = JSON.parse(await readFile(path.join(REPO, 'starters/full-store/package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const wanted = new Set(Object.keys(store.dependencies).filter((name) => !NOT_SERVING.has(name)));
  const found: Array<{ name: string; dir: string }> = [];
  for (const entry of await readdir(path.join(REPO, 'packages'), { withFileTypes: true })) {
    const dir = path.join(REPO, 'packages', entry.name);
    const manifest = await readFile(path.join(dir, 'package.json'), 'utf8').then((text) => JSON.parse(text) as { name: string }, () => undefined);
    if (manifest && wanted.has(manifest.name)) found.push({ name: manifest.name, dir });
  }
  return found;
}

/** Every error code the full store's packages can answer, sorted. */
export async function storeErrorCodes(): Promise<string[]> {
  const codes = new Set<string>();
  for (const { name, dir } of await storePackages()) {
    const gateway = name.startsWith('@qhatu/plugin-gateway-');
    for (const file of await sourceFiles(path.join(dir, 'src'))) for (const code of codesOf(await readFile(file, 'utf8'), gateway)) codes.add(code);
  }
  return [...codes].sort();
}

/** src/error-codes.ts for a list of codes. */
export function errorCodesSource(codes: string[], header: string): string {
  return `${header}
/** Every \`error.code\` the full store can answer (read from the sources of its packages). */
export const ERROR_CODES = [
${codes.map((code) => `  '${code}',`).join('\n')}
] as const;

/** An error code of the full store; \`HTTP_<status>\` when an answer did not carry the contract's error body (a proxy's page). */
export type QhatuErrorCode = (typeof ERROR_CODES)[number] | \`HTTP_\${number}\`;
`;
}
