import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PLUGIN_FOLDERS, PROJECT_DEV_DEPENDENCIES, PROJECT_SCRIPTS, TEST_INCLUDE, TS_INCLUDE, workspaceYaml } from './project/workspace.js';

/** A store project (`qhatu new`): its folder, how it installs, and where its `@qhatu/core` comes from. */
export interface StoreProject {
  dir: string;
  packageManager: 'pnpm' | 'npm';
  /** The project's own `@qhatu/core` dependency (`^0.1.0`, `file:…tgz`, `link:…`): its plugins ask for the same. */
  coreSpec: string;
}

interface PackageJson {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  scripts?: Record<string, string>;
  workspaces?: string[];
  pnpm?: unknown;
}

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as PackageJson;

/**
 * The store project in `dir`, if it is one: a package.json that depends on `@qhatu/core`. The
 * Qhatu repository is none (its packages are its workspace's), so there nothing changes.
 */
export function storeProjectAt(dir: string): StoreProject | undefined {
  const manifest = path.join(dir, 'package.json');
  if (!existsSync(manifest)) return undefined;
  const pkg = readJson(manifest);
  const coreSpec = pkg.dependencies?.['@qhatu/core'];
  if (!coreSpec) return undefined;
  const npm = !existsSync(path.join(dir, 'pnpm-workspace.yaml')) && (Array.isArray(pkg.workspaces) || (existsSync(path.join(dir, 'package-lock.json')) && !pkg.pnpm));
  return { dir, packageManager: npm ? 'npm' : 'pnpm', coreSpec };
}

/**
 * How a plugin of the store asks for its dependencies: the store's own `@qhatu/core`; and, when
 * that core is linked from a clone (`qhatu new --from <clone>`), the very copies of zod, MikroORM
 * and the type provider that core runs with, for a second copy of MikroORM would not know core's
 * entities (registry and tarball installs share one copy by themselves).
 */
export function pluginDependencies(project: StoreProject, names: readonly string[]): Record<string, string> {
  const specs: Record<string, string> = { '@qhatu/core': project.coreSpec };
  if (!project.coreSpec.startsWith('link:')) return specs;
  const core = path.resolve(project.dir, project.coreSpec.slice('link:'.length));
  for (const name of names) {
    const installed = path.join(core, 'node_modules', name);
    if (existsSync(installed)) specs[name] = `link:${realpathSync(installed)}`;
  }
  return specs;
}

/** The workspace entry that covers a plugin folder: `packages/*` for one in packages/, else its own path. */
function workspaceEntry(project: StoreProject, pluginDir: string): string {
  const relative = path.relative(project.dir, pluginDir).split(path.sep).join('/');
  return path.posix.dirname(relative) === 'packages' ? PLUGIN_FOLDERS : relative;
}

/**
 * Makes the store depend on its new plugin and type-check and test it with itself: the workspace
 * entry, the dependency, the `typecheck` script and its tools, tsconfig's and vitest's includes.
 * What is changed, and what must be done by hand (a file that could not be read as expected).
 */
export async function joinStore(project: StoreProject, pluginDir: string, packageName: string): Promise<{ changed: string[]; manual: string[] }> {
  const changed: string[] = [];
  const manual: string[] = [];
  const entry = workspaceEntry(project, pluginDir);
  const underPackages = entry === PLUGIN_FOLDERS;
  const file = (name: string) => path.join(project.dir, name);

  const pkg = readJson(file('package.json'));
  pkg.dependencies = sorted({ ...pkg.dependencies, [packageName]: project.packageManager === 'pnpm' ? 'workspace:*' : '*' });
  changed.push(`package.json: "${packageName}" in dependencies`);
  const missingScripts = Object.entries(PROJECT_SCRIPTS).filter(([name]) => !pkg.scripts?.[name]);
  if (missingScripts.length) {
    pkg.scripts = { ...pkg.scripts, ...Object.fromEntries(missingScripts) };
    changed.push(`package.json: the ${missingScripts.map(([name]) => name).join(', ')} script${missingScripts.length > 1 ? 's' : ''}`);
  }
  const missingTools = Object.entries(PROJECT_DEV_DEPENDENCIES).filter(([name]) => !pkg.dependencies?.[name] && !pkg.devDependencies?.[name]);
  if (missingTools.length) {
    pkg.devDependencies = sorted({ ...pkg.devDependencies, ...Object.fromEntries(missingTools) });
    changed.push(`package.json: ${missingTools.map(([name]) => name).join(', ')} in devDependencies`);
  }
  if (project.packageManager === 'npm' && !(pkg.workspaces ?? []).includes(entry)) {
    pkg.workspaces = [...(pkg.workspaces ?? []), entry];
    changed.push(`package.json: ${entry} in workspaces`);
  }
  await writeFile(file('package.json'), `${JSON.stringify(pkg, null, 2)}\n`);

  if (project.packageManager === 'pnpm') {
    const yaml = existsSync(file('pnpm-workspace.yaml')) ? readFileSync(file('pnpm-workspace.yaml'), 'utf8') : undefined;
    if (yaml === undefined) {
      await writeFile(file('pnpm-workspace.yaml'), underPackages ? workspaceYaml() : `packages:\n  - ${entry}\n`);
      changed.push(`pnpm-workspace.yaml: written, with ${entry}`);
    } else if (!new RegExp(`^\\s*-\\s*['"]?${escape(entry)}['"]?\\s*$`, 'm').test(yaml)) {
      if (/^packages:\s*$/m.test(yaml)) {
        await writeFile(file('pnpm-workspace.yaml'), yaml.replace(/^packages:\s*$/m, `packages:\n  - ${entry}`));
        changed.push(`pnpm-workspace.yaml: ${entry} in packages`);
      } else manual.push(`add ${entry} to the packages of pnpm-workspace.yaml`);
    }
  }

  const include = underPackages ? TS_INCLUDE.filter((p) => p.startsWith('packages/')) : [`${entry}/src`, `${entry}/test`];
  if (existsSync(file('tsconfig.json'))) {
    try {
      const tsconfig = JSON.parse(readFileSync(file('tsconfig.json'), 'utf8')) as { include?: string[] };
      const missing = include.filter((p) => !(tsconfig.include ?? []).includes(p));
      if (missing.length && tsconfig.include) {
        tsconfig.include = [...tsconfig.include, ...missing];
        await writeFile(file('tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
        changed.push(`tsconfig.json: ${missing.join(', ')} in include`);
      }
    } catch {
      manual.push(`add ${include.join(' and ')} to the include of tsconfig.json`);
    }
  }

  const tests = underPackages ? TEST_INCLUDE[1] : `${entry}/test/**/*.test.ts`;
  const vitest = existsSync(file('vitest.config.ts')) ? readFileSync(file('vitest.config.ts'), 'utf8') : undefined;
  if (vitest !== undefined && !vitest.includes(tests)) {
    // The include `qhatu new` used to write; anything else is the developer's to edit.
    const before = /include: \['test\/\*\*\/\*\.test\.ts'\]/;
    if (before.test(vitest)) {
      await writeFile(file('vitest.config.ts'), vitest.replace(before, `include: ['test/**/*.test.ts', '${tests}']`));
      changed.push(`vitest.config.ts: ${tests} in test.include`);
    } else manual.push(`add '${tests}' to test.include in vitest.config.ts`);
  }
  return { changed, manual };
}

const sorted = (deps: Record<string, string>) => Object.fromEntries(Object.entries(deps).sort(([a], [b]) => a.localeCompare(b)));
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
