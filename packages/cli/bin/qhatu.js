#!/usr/bin/env node
// Runs the TypeScript CLI and the project's qhatu.config.ts straight from source, without a build.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

/**
 * The project's tsconfig when it has one; else ours, which turns on the decorators core is written
 * with, for every file (tsx applies a tsconfig only to the files it includes).
 */
function tsconfigFor(cwd) {
  if (process.env.TSX_TSCONFIG_PATH) return undefined;
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'tsconfig.json'))) return undefined;
    if (path.dirname(dir) === dir) return fileURLToPath(new URL('../tsx.tsconfig.json', import.meta.url));
  }
}

register({ tsconfig: tsconfigFor(process.cwd()) });
await import('../src/main.ts');
