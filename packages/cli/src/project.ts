import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { QhatuPlugin, QhatuProject } from '@qhatu/core';
import type { Command } from 'commander';
import { CliError } from './errors.js';

export const PROJECT_FILE = 'qhatu.config.ts';
/** Looked for in this order when no path is given: a compiled project ships the JavaScript one. */
const PROJECT_FILES = [PROJECT_FILE, 'qhatu.config.js', 'qhatu.config.mjs'];
const TYPESCRIPT = /\.[cm]?ts$/;
const JAVASCRIPT = /\.[cm]?js$/;

/** Every command that runs the store takes the project file the same way. */
export function withProjectOption(command: Command): Command {
  return command.option('-c, --config <path>', `the project file (default: $QHATU_CONFIG, else ./${PROJECT_FILE} or ./qhatu.config.js)`);
}

const USAGE = `it must read: export default defineProject({ plugins: [/* your plugins */] })`;

/** Imports the project file and checks it names a list of plugins that can be loaded together. */
export async function loadProject(configPath?: string, cwd = process.cwd()): Promise<QhatuProject & { file: string }> {
  const given = configPath ?? (process.env.QHATU_CONFIG || undefined);
  const file = given ? path.resolve(cwd, given) : (PROJECT_FILES.map((name) => path.resolve(cwd, name)).find((f) => existsSync(f)) ?? path.resolve(cwd, PROJECT_FILE));
  if (!existsSync(file) || !statSync(file).isFile()) {
    throw new CliError(`no project file at ${file}`, [
      configPath ? 'check the --config path' : `run qhatu in the folder that holds ${PROJECT_FILE}, or pass --config <path>`,
      USAGE,
    ]);
  }
  let loaded: { default?: unknown };
  try {
    // A TypeScript project file (and the project's own plugins it imports) runs through tsx; the
    // Qhatu packages themselves are JavaScript, and a qhatu.config.js needs no TypeScript at all.
    if (TYPESCRIPT.test(file)) {
      await preloadPackages(file);
      await (await import('../bin/typescript.js')).registerTypeScript(path.dirname(file));
    }
    loaded = await import(pathToFileURL(file).href);
  } catch (error) {
    const message = (error as Error).message?.split('\n').slice(0, 6).join('\n  ') ?? String(error);
    throw new CliError(`cannot load ${file}:\n  ${message}`);
  }
  const plugins = checkProject(loaded.default, file);
  const { corePlugin, orderPlugins } = await import('@qhatu/core');
  orderPlugins([corePlugin, ...plugins.filter((p) => p.name !== 'core')]);
  return { plugins, file };
}

/**
 * The Qhatu packages a TypeScript project file imports, loaded as the compiled JavaScript they are
 * before the TypeScript loader is hooked in: once it is, every module loaded goes through the
 * loader's thread (about a second more at start for the full store). The project file's own
 * imports of them then find them loaded. Not when the packages run from their sources.
 */
async function preloadPackages(file: string): Promise<void> {
  if ((globalThis as Record<symbol, unknown>)[Symbol.for('qhatu.sources')] !== undefined) return;
  const require = createRequire(file);
  const specifiers = new Set([...readFileSync(file, 'utf8').matchAll(/\bfrom\s+['"](@qhatu\/[^'"]+)['"]/g)].map((m) => m[1]));
  await Promise.all(
    [...specifiers].map(async (specifier) => {
      let entry: string;
      try {
        entry = require.resolve(specifier);
      } catch {
        return; // The project file imports it as usual (and says what is wrong, if anything).
      }
      // Only compiled JavaScript: a project's own plugin (its sources in TypeScript) waits for the
      // loader, and a module that failed to load once would fail again from Node's cache.
      if (JAVASCRIPT.test(entry)) await import(pathToFileURL(entry).href).catch(() => undefined);
    }),
  );
}

function checkProject(project: unknown, file: string): QhatuPlugin[] {
  if (!project || typeof project !== 'object') {
    throw new CliError(`${file} has no default export`, [USAGE]);
  }
  const plugins = (project as { plugins?: unknown }).plugins;
  if (!Array.isArray(plugins)) throw new CliError(`${file}: "plugins" must be a list`, [USAGE]);
  plugins.forEach((plugin, i) => {
    if (!plugin || typeof plugin !== 'object' || typeof (plugin as QhatuPlugin).name !== 'string') {
      throw new CliError(`${file}: plugins[${i}] is not a plugin (got ${plugin === null ? 'null' : typeof plugin})`, [
        'a plugin is what definePlugin(...) returns; check how it is imported (default or named export)',
      ]);
    }
  });
  return plugins as QhatuPlugin[];
}
