// Whether a clone's compiled packages can be run: each package's dist/ (its .tsbuildinfo, written
// last by `tsc -b`) at least as new as every file of its src/.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

function newestUnder(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const at = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestUnder(at) : statSync(at).mtimeMs);
  }
  return newest;
}

/** Why the compiled packages under `packagesDir` cannot be run (never built, or a package changed since), or null. */
export function staleBuild(packagesDir) {
  for (const name of readdirSync(packagesDir)) {
    const pkg = path.join(packagesDir, name);
    if (!existsSync(path.join(pkg, 'tsconfig.build.json'))) continue;
    const built = path.join(pkg, 'dist', '.tsbuildinfo');
    if (!existsSync(built)) return `packages/${name} is not built`;
    if (newestUnder(path.join(pkg, 'src')) > statSync(built).mtimeMs) return `packages/${name} changed since it was built`;
  }
  return null;
}
