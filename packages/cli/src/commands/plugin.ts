import path from 'node:path';
import { Command } from 'commander';
import { z } from 'zod';
import { print } from '../output.js';
import { PluginName } from '../scaffold/names.js';
import { scaffoldPlugin } from '../scaffold/scaffold.js';
import { joinStore, pluginDependencies, storeProjectAt } from '../scaffold/store-project.js';
import { PLUGIN_DEPENDENCIES } from '../scaffold/templates/package-json.js';
import { parseOptions } from '../validate.js';

export function pluginCommand(): Command {
  const plugin = new Command('plugin').summary('make plugins').description('Make plugins.');
  plugin.addCommand(
    new Command('new')
      .description(
        'Write a new plugin package, plugin-<name>, that works as it is: a tenant-owned entity, its migration, a service, REST routes (create, list, read) with zod schemas, an event, a README and a test through HTTP.',
      )
      .argument('<name>', 'lower-case letters, digits and dashes, e.g. gift-cards')
      .option('--dir <folder>', 'where to write it (default: ./packages/plugin-<name>); must not exist')
      .addHelpText(
        'after',
        "\nIn a store project (qhatu new) it also adds the plugin to the store's package.json and workspace, so that pnpm typecheck and pnpm test cover it.\n\nExample:\n  qhatu plugin new gift-cards\n",
      )
      .action((name: string, options: { dir?: string }) => newPlugin(name, options)),
  );
  return plugin;
}

async function newPlugin(rawName: string, options: { dir?: string }): Promise<void> {
  const { name } = parseOptions(z.object({ name: PluginName }), { name: rawName }, { name: '<name>' });
  const project = storeProjectAt(process.cwd());
  const dependencies = project && pluginDependencies(project, PLUGIN_DEPENDENCIES);
  const { dir, files, names } = await scaffoldPlugin(name, { dir: options.dir, dependencies });
  const shown = path.relative(process.cwd(), dir) || '.';
  print(`Created ${names.packageName} in ${shown}:`);
  for (const file of files) print(`  ${file}`);
  const addToConfig = `Add it to qhatu.config.ts:
       import ${names.camel} from '${names.packageName}';
       export default defineProject({ plugins: [/* ... */, ${names.camel}] });`;
  if (!project) return printRepositorySteps(shown, names.packageName, addToConfig, name);

  const { changed, manual } = await joinStore(project, dir, names.packageName);
  print('\nThe store takes it in:');
  for (const change of changed) print(`  ${change}`);
  const pm = project.packageManager;
  const run = pm === 'pnpm' ? 'pnpm' : 'npm run';
  const qhatu = pm === 'pnpm' ? 'pnpm qhatu' : 'npm run qhatu --';
  const steps = [
    ...manual.map((step) => step[0].toUpperCase() + step.slice(1)),
    `${pm} install`,
    addToConfig,
    `${run} typecheck && ${pm} test   (the store's tests and its plugins')`,
    `${run} migrate   (${run} start does it by itself on the embedded database)`,
    `After changing its entities: ${qhatu} migration generate ${name}, then ${run} migrate`,
  ];
  print(`\nNext:\n${steps.map((step, i) => `  ${i + 1}. ${step}`).join('\n')}`);
}

/** In the Qhatu repository: its pnpm workspace already holds packages/*. */
function printRepositorySteps(shown: string, packageName: string, addToConfig: string, name: string): void {
  const inWorkspace = path.dirname(shown) === 'packages';
  print(`
Next:
  1. ${inWorkspace ? 'It is in the pnpm workspace already (packages/* in pnpm-workspace.yaml).' : `Add ${shown} to the packages of pnpm-workspace.yaml (packages/* is there already).`}
  2. Add "${packageName}": "workspace:*" to your store's package.json dependencies, then run
     pnpm install (without --frozen-lockfile: it records the new package in pnpm-lock.yaml; commit that).
  3. ${addToConfig}
  4. Run its test: npx vitest run ${shown}
  5. Apply its migration: pnpm qhatu migrate (qhatu start does it by itself on the embedded database)
  6. After changing its entities: pnpm qhatu migration generate ${name}, then pnpm qhatu migrate`);
}
