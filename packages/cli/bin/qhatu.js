#!/usr/bin/env node
// The qhatu command. Installed from the registry (or a packed tarball) it runs the compiled CLI in
// dist/ with plain Node. In a clone of the Qhatu repository, where src/ is present, it runs the
// TypeScript sources of every package through tsx, so that nothing needs building there.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const source = new URL('../src/main.ts', import.meta.url);
if (existsSync(fileURLToPath(source))) {
  const { registerTypeScript } = await import('./typescript.js');
  await registerTypeScript(process.cwd());
  await import(source.href);
} else {
  await import('../dist/main.js');
}
