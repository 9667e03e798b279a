import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CliError } from '../../errors.js';
import { CATALOGUE, choosePlugins, type CataloguePlugin } from './catalogue.js';
import { projectFiles } from './files.js';
import { PROJECT_DEV_DEPENDENCIES } from './workspace.js';


export type PackageManager = 'pnpm' | 'npm';

export interface NewProjectOptions {
  /** Plugin names; absent: every plugin, as the full-store starter. */
  plugins?: string[];
  /**
   * Instead of the registry: a folder of packed Qhatu packages (`pnpm pack`'s `.tgz` files), or the
   * root of a clone of the Qhatu repository whose packages the project links to.
   */
  from?: string;
  packageManager: PackageManager;
  /** The version of the Qhatu packages asked of the registry (default: this CLI's). */
  version: string;
}

export interface NewProject {
  dir: string;
  name: string;
  plugins: CataloguePlugin[];
  /** Plugins that came in as dependencies of those asked for. */
  added: string[];
  files: string[];
}

/** Writes a store project into `dir` (which must be absent or empty); installs nothing. */
export async function scaffoldProject(dir: string, options: NewProjectOptions): Promise<NewProject> {
  if (existsSync(dir) && (!statSync(dir).isDirectory() || readdirSync(dir).length > 0)) {
    throw new CliError(`${dir} already exists and is not an empty folder; nothing was written`, ['pick a new folder']);
  }
  const unknown = (options.plugins ?? []).filter((name) => !CATALOGUE.some((p) => p.name === name));
  if (unknown.length) {
    throw new CliError(`unknown plugin${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`, [`--plugins takes a comma-separated list of: ${CATALOGUE.map((p) => p.name).join(', ')}`]);
  }
  const { plugins, added } = choosePlugins(options.plugins ?? CATALOGUE.map((p) => p.name));
  const packages = ['@qhatu/cli', '@qhatu/core', ...plugins.map((p) => p.package)];
  let sources: Record<string, string> = Object.fromEntries(packages.map((p) => [p, `^${options.version}`]));
  let overrides: Record<string, string> | undefined;
  if (options.from && isClone(options.from)) sources = linkedSources(options.from, packages, options.packageManager);
  else if (options.from) ({ sources, overrides } = tarballSources(options.from, packages));
  const name = packageNameOf(dir);
  const files = projectFiles({ name, plugins, sources, overrides, packageManager: options.packageManager, devDependencies: PROJECT_DEV_DEPENDENCIES });
  for (const [file, text] of Object.entries(files)) {
    const target = path.join(dir, file);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, text, { flag: 'wx' });
  }
  return { dir, name, plugins, added, files: Object.keys(files) };
}

const isClone = (from: string) => existsSync(path.join(path.resolve(from), 'packages/core/package.json'));

/** `pnpm pack`'s name for a package's tarball: `@qhatu/plugin-catalog` 0.1.0 → `qhatu-plugin-catalog-0.1.0.tgz`. */
const TARBALL = /^qhatu-(.+?)-(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\.tgz$/;

/**
 * `--from <folder>` of tarballs: each package from its `file:` tarball, and every tarball of the folder
 * also as an override, so that the packages' dependencies on one another (`@qhatu/core` 0.1.0) are
 * met by the same tarballs rather than asked of the registry.
 */
function tarballSources(from: string, packages: string[]): { sources: Record<string, string>; overrides: Record<string, string> } {
  const folder = path.resolve(from);
  const entries = existsSync(folder) && statSync(folder).isDirectory() ? readdirSync(folder).sort() : [];
  const found = new Map<string, string>();
  for (const entry of entries) {
    const match = TARBALL.exec(entry);
    if (!match) continue;
    const pkg = `@qhatu/${match[1]}`;
    if (found.has(pkg)) {
      throw new CliError(`--from ${from}: two tarballs of ${pkg} (${path.basename(found.get(pkg)!)} and ${entry})`, ['keep one version of each package in the folder']);
    }
    found.set(pkg, path.join(folder, entry));
  }
  if (!found.has('@qhatu/core')) {
    throw new CliError(`--from ${from}: no Qhatu packages there (no qhatu-core-<version>.tgz, and not a clone of the repository)`, [
      '--from takes a folder of packed packages (pnpm pack, e.g. pnpm pack:all in the repository) or the root of a clone',
    ]);
  }
  const missing = packages.filter((p) => !found.has(p));
  if (missing.length) throw new CliError(`--from ${from}: it has no tarball of ${missing.join(', ')}`);
  const overrides = Object.fromEntries([...found].map(([pkg, file]) => [pkg, `file:${file}`]));
  return { sources: Object.fromEntries(packages.map((p) => [p, overrides[p]])), overrides };
}

/**
 * `--from <repository>`: each package's folder in a clone of Qhatu (`packages/core`, `packages/plugin-*`,
 * `packages/cli`), linked rather than copied: the packages run from their TypeScript sources with the
 * dependencies that clone's `pnpm install` put beside them.
 */
function linkedSources(from: string, packages: string[], packageManager: PackageManager): Record<string, string> {
  if (packageManager !== 'pnpm') {
    throw new CliError('--from needs --package-manager pnpm', ["the repository's packages depend on each other as workspace:*, which only pnpm resolves"]);
  }
  const root = path.resolve(from);
  const folders = new Map<string, string>();
  const packagesDir = path.join(root, 'packages');
  for (const entry of existsSync(packagesDir) ? readdirSync(packagesDir) : []) {
    const manifest = path.join(packagesDir, entry, 'package.json');
    if (existsSync(manifest)) folders.set(JSON.parse(readFileSync(manifest, 'utf8')).name, path.join(packagesDir, entry));
  }
  if (!existsSync(path.join(folders.get('@qhatu/core')!, 'node_modules'))) {
    throw new CliError(`--from ${from}: its packages are not installed`, [`run pnpm install in ${root} first`]);
  }
  const missing = packages.filter((p) => !folders.has(p));
  if (missing.length) throw new CliError(`--from ${from}: it has no ${missing.join(', ')}`);
  return Object.fromEntries(packages.map((p) => [p, `link:${folders.get(p)}`]));
}

/** A valid npm package name from the folder's name (`My Shop` → `my-shop`). */
function packageNameOf(dir: string): string {
  const name = path
    .basename(path.resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[._-]+|[-]+$/g, '');
  return name || 'qhatu-store';
}
