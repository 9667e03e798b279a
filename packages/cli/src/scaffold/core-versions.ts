import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { CliError } from '../errors.js';

/** The dependency versions of the installed @qhatu/core, read from its package.json. */
export function coreDependencyVersions(): Record<string, string> {
  const entry = createRequire(import.meta.url).resolve('@qhatu/core');
  for (let dir = path.dirname(entry); path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
      if (pkg.name === '@qhatu/core') return pkg.dependencies ?? {};
    } catch {
      // no package.json at this level: keep climbing
    }
  }
  throw new CliError(`cannot find the package.json of @qhatu/core above ${entry}`);
}
