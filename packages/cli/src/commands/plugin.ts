import path from 'node:path';
import { Command } from 'commander';
import { z } from 'zod';
import { print } from '../output.js';
import { PluginName } from '../scaffold/names.js';
import { scaffoldPlugin } from '../scaffold/scaffold.js';
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
      .addHelpText('after', '\nExample:\n  qhatu plugin new gift-cards\n')
      .action((name: string, options: { dir?: string }) => newPlugin(name, options)),
  );
  return plugin;
}

async function newPlugin(rawName: string, options: { dir?: string }): Promise<void> {
  const { name } = parseOptions(z.object({ name: PluginName }), { name: rawName }, { name: '<name>' });
  const { dir, files, names } = await scaffoldPlugin(name, { dir: options.dir });
  const shown = path.relative(process.cwd(), dir) || '.';
  const inWorkspace = path.dirname(shown) === 'packages';
  print(`Created ${names.packageName} in ${shown}:`);
  for (const file of files) print(`  ${file}`);
  print(`
Next:
  1. ${inWorkspace ? 'It is in the pnpm workspace already (packages/* in pnpm-workspace.yaml).' : `Add ${shown} to the packages of pnpm-workspace.yaml (packages/* is there already).`}
  2. Add "${names.packageName}": "workspace:*" to your store's package.json dependencies, then run
     pnpm install (without --frozen-lockfile: it records the new package in pnpm-lock.yaml; commit that).
  3. Add it to qhatu.config.ts:
       import ${names.camel} from '${names.packageName}';
       export default defineProject({ plugins: [/* ... */, ${names.camel}] });
  4. Run its test: npx vitest run ${shown}
  5. Apply its migration: qhatu migrate (qhatu start does it by itself on the embedded database)`);
}
