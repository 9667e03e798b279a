import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CliError } from '../errors.js';
import { coreDependencyVersions } from './core-versions.js';
import { pluginFiles } from './files.js';
import { namesOf, type PluginNames } from './names.js';
import { PLUGIN_DEPENDENCIES } from './templates/package-json.js';

export interface ScaffoldResult {
  names: PluginNames;
  dir: string;
  files: string[];
}

/**
 * Writes a new plugin package into `dir` (default `./packages/plugin-<name>`); never over an existing
 * folder. It asks for `@qhatu/core` as `workspace:*` (the Qhatu repository) and for zod, MikroORM and
 * the zod type provider at core's versions, unless `dependencies` says otherwise (a store project
 * asks for its own core).
 */
export async function scaffoldPlugin(name: string, options: { dir?: string; cwd?: string; dependencies?: Record<string, string> } = {}): Promise<ScaffoldResult> {
  const names = namesOf(name);
  const cwd = options.cwd ?? process.cwd();
  const dir = path.resolve(cwd, options.dir ?? path.join('packages', names.folder));
  if (existsSync(dir)) {
    throw new CliError(`${dir} already exists; nothing was written`, ['pick another name, or --dir <folder> for a new folder']);
  }
  const versions = coreDependencyVersions();
  const missing = PLUGIN_DEPENDENCIES.filter((dep) => !versions[dep]);
  if (missing.length) throw new CliError(`@qhatu/core does not declare ${missing.join(', ')}; cannot pin the plugin's versions`);

  const dependencies = { '@qhatu/core': 'workspace:*', ...Object.fromEntries(PLUGIN_DEPENDENCIES.map((dep) => [dep, versions[dep]])), ...options.dependencies };
  const files = pluginFiles(names, dependencies);
  for (const [file, text] of Object.entries(files)) {
    const target = path.join(dir, file);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, text, { flag: 'wx' });
  }
  return { names, dir, files: Object.keys(files) };
}
