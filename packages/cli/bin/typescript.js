// Runs TypeScript (a project's qhatu.config.ts and its own plugins; in a clone, the sources of every
// package) through tsx, registered once per process.
import { existsSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REGISTERED = Symbol.for('qhatu.typescript');

const OURS = fileURLToPath(new URL('../tsx.tsconfig.json', import.meta.url));

/** The sources of @qhatu/core when the project runs them from outside `root` (a project linked to a clone). */
function coreSourcesOutside(dir, root) {
  try {
    const entry = realpathSync(createRequire(path.join(dir, 'package.json')).resolve('@qhatu/core'));
    return entry.endsWith('.ts') && path.relative(root, entry).startsWith('..');
  } catch {
    return false;
  }
}

/**
 * The tsconfig.json above `dir` when there is one; else ours, which turns on the decorators plugins
 * are written with, for every file (tsx applies a tsconfig only to the files it includes). Ours too
 * when that tsconfig cannot include the Qhatu sources the project runs (linked from a clone).
 */
function tsconfigFor(dir) {
  if (process.env.TSX_TSCONFIG_PATH) return undefined;
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    if (existsSync(path.join(at, 'tsconfig.json'))) return coreSourcesOutside(dir, at) ? OURS : undefined;
    if (path.dirname(at) === at) return OURS;
  }
}

/** Lets `import` load .ts files from here on; `dir` is where the project's tsconfig.json is looked for. */
export async function registerTypeScript(dir) {
  if (globalThis[REGISTERED]) return;
  globalThis[REGISTERED] = true;
  const { register } = await import('tsx/esm/api');
  register({ tsconfig: tsconfigFor(dir) });
}
