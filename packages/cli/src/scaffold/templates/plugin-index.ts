import type { PluginNames } from '../names.js';

export function pluginIndex(n: PluginNames): string {
  return `import { Database, definePlugin } from '@qhatu/core';
import { ${n.entity} } from './entities/${n.file}.js';
import { ${n.camel}Migrations } from './migrations/index.js';
import { ${n.camel}ItemRoutes } from './routes/items.js';
import { ${n.service}, ITEM_CREATED } from './services/${n.file}s.js';

/** ${n.name}: the items of a store, through REST. */
export const ${n.camel}Plugin = definePlugin({
  name: '${n.name}',
  entities: [${n.entity}],
  migrations: ${n.camel}Migrations,
  events: [ITEM_CREATED],
  // What roles grant; each admin route names the one it needs (config.permission).
  permissions: [{ name: '${n.name}.write', description: 'Add ${n.name} items' }],
  register(container) {
    // Stateless: a new instance per resolve is as good as a singleton.
    container.register(${n.service}, { useFactory: (c) => new ${n.service}(c.resolve(Database)) });
  },
  routes: ${n.camel}ItemRoutes,
});

export default ${n.camel}Plugin;
export { ${n.entity}, ${n.service}, ITEM_CREATED };
`;
}
