#!/usr/bin/env node
// The qhatu command. Installed from the registry (or a packed tarball) it runs the compiled CLI in
// dist/ with plain Node. In a clone of the Qhatu repository it runs the compiled packages when every
// package's dist/ is at least as new as its sources (`pnpm build`), and otherwise, or when the
// process was started with `--conditions=qhatu-source` (as the tests are), the TypeScript sources of
// every package through tsx, so that nothing needs building while they change.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { staleBuild } from './compiled.js';

const source = new URL('../src/main.ts', import.meta.url);
const inClone = existsSync(fileURLToPath(source));
const askedForSources = (process.env.NODE_OPTIONS ?? '').includes('--conditions=qhatu-source') || process.execArgv.includes('--conditions=qhatu-source');
const stale = inClone ? (askedForSources ? 'started with --conditions=qhatu-source' : staleBuild(fileURLToPath(new URL('../..', import.meta.url)))) : null;
if (inClone && stale !== null) {
  if (process.env.QHATU_ENV === 'production' && !askedForSources) {
    process.stderr.write(`qhatu: running the TypeScript sources (${stale}); \`pnpm build\` makes it run the compiled packages\n`);
  }
  globalThis[Symbol.for('qhatu.sources')] = stale;
  const { registerSources } = await import('./sources.js');
  registerSources();
  const { registerTypeScript } = await import('./typescript.js');
  await registerTypeScript(process.cwd());
  await import(source.href);
} else {
  await import('../dist/main.js');
}
