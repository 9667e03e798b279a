import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { QhatuPlugin } from '@qhatu/core';
import { CliError } from '../errors.js';
import type { MigrationPlan, Step } from './plan.js';

/** `0003_gift_wrap_option`: one more than the plugin's highest number, and a name in SQL's words. */
export function nextMigrationId(plugin: QhatuPlugin, plan: MigrationPlan, name?: string): string {
  const numbers = (plugin.migrations ?? []).map((m) => Number(/^(\d+)/.exec(m.id)?.[1] ?? 0));
  const next = Math.max(numbers.length, ...numbers) + 1;
  const prefix = `${plugin.name.replaceAll('-', '_')}_`;
  const derived = plan.newTables.length ? plan.newTables.map((t) => (t.startsWith(prefix) ? t.slice(prefix.length) : t)).join('_') : 'columns';
  const words = (name ?? derived).toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 60) || 'schema';
  const id = `${String(next).padStart(4, '0')}_${words}`;
  if ((plugin.migrations ?? []).some((m) => m.id === id)) throw new CliError(`the plugin "${plugin.name}" has a migration ${id} already`, ['pass --name <words>']);
  return id;
}

const camel = (words: string) => words.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
const template = (sql: string) => `\`${sql.replaceAll('\\', '\\\\').replaceAll('`', '\\`').replaceAll('${', '\\${')}\``;
const stepText = (step: Step) => ('tenantTable' in step ? `tenantTable('${step.tenantTable}')` : template(step.sql));

export function renderMigration(plugin: QhatuPlugin, id: string, exportName: string, plan: MigrationPlan): string {
  const rls = plan.steps.some((s) => 'tenantTable' in s);
  const changes = plan.changes.map((c) => ` *   ${c}`).join('\n');
  return `import { ${rls ? 'tenantTable, ' : ''}type Migration } from '@qhatu/core';

/**
 * Written by \`qhatu migration generate ${plugin.name}\` from the plugin's entities and the database:
${changes}
 * Read it before it ships; once applied anywhere it is never edited (add the next one).
 */
export const ${exportName}: Migration = {
  id: '${id}',
  up: [
${plan.steps.map((s) => `    ${stepText(s)},`).join('\n')}
  ],
};
`;
}

/** Adds `name` to the list literal `list` matches in `file` and imports it; false when there is none. */
async function register(file: string, list: RegExp, name: string, from: string): Promise<boolean> {
  if (!existsSync(file)) return false;
  const text = readFileSync(file, 'utf8');
  const match = list.exec(text);
  if (!match) return false;
  const items = match[2].trim().replace(/,$/, '');
  const multiline = match[2].includes('\n');
  const indent = /\n(\s*)\S/.exec(match[2])?.[1] ?? '  ';
  const listed = multiline ? `${match[2].trimEnd().replace(/,?$/, ',')}\n${indent}${name},\n${indent.slice(2)}` : items ? `${items}, ${name}` : name;
  let updated = text.slice(0, match.index) + match[1] + listed + match[3] + text.slice(match.index + match[0].length);
  const imports = [...updated.matchAll(/^import .*;$/gm)];
  const at = imports.length ? imports[imports.length - 1].index! + imports[imports.length - 1][0].length : 0;
  updated = `${updated.slice(0, at)}${at ? '\n' : ''}import { ${name} } from '${from}';${at ? '' : '\n'}${updated.slice(at)}`;
  await writeFile(file, updated);
  return true;
}

/**
 * Writes `src/migrations/<id>.ts` into the plugin's folder and lists it where the plugin lists its
 * migrations (`src/migrations/index.ts` as \`qhatu plugin new\` writes it, or `migrations: [...]` in
 * `src/index.ts`). Returns the file written and the file it was listed in, if any.
 */
export async function writeMigration(pluginDir: string, plugin: QhatuPlugin, id: string, plan: MigrationPlan): Promise<{ file: string; listedIn?: string }> {
  const exportName = `${camel(id.replace(/^\d+_/, ''))}Migration`;
  const file = path.join(pluginDir, 'src/migrations', `${id}.ts`);
  if (existsSync(file)) throw new CliError(`${file} exists already; nothing was written`);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, renderMigration(plugin, id, exportName, plan), { flag: 'wx' });
  const candidates: Array<[string, RegExp, string]> = [
    [path.join(pluginDir, 'src/migrations/index.ts'), /(:\s*Migration\[\]\s*=\s*\[)([^\]]*)(\])/, `./${id}.js`],
    [path.join(pluginDir, 'src/index.ts'), /(\bmigrations:\s*\[)([^\]]*)(\])/, `./migrations/${id}.js`],
  ];
  for (const [target, list, from] of candidates) {
    if (await register(target, list, exportName, from)) return { file, listedIn: target };
  }
  return { file };
}
