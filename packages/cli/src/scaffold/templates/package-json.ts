import type { PluginNames } from '../names.js';

/** The dependencies a plugin imports, at the versions core itself is built with (one copy of each in the store). */
export const PLUGIN_DEPENDENCIES = ['@mikro-orm/core', 'fastify-type-provider-zod', 'zod'] as const;

/** `dependencies`: `@qhatu/core` and each of PLUGIN_DEPENDENCIES, as the plugin asks for them. */
export function packageJson(n: PluginNames, dependencies: Record<string, string>): string {
  const sorted = Object.fromEntries(Object.entries(dependencies).sort(([a], [b]) => a.localeCompare(b)));
  const pkg = {
    name: n.packageName,
    version: '0.1.0',
    description: `Qhatu ${n.name}: items of a store`,
    type: 'module',
    main: './src/index.ts',
    types: './src/index.ts',
    exports: { '.': './src/index.ts' },
    dependencies: sorted,
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}
