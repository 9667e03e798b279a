import type { PluginNames } from './names.js';
import { entity } from './templates/entity.js';
import { itemsMigration, migrationsIndex } from './templates/migrations.js';
import { packageJson } from './templates/package-json.js';
import { pluginIndex } from './templates/plugin-index.js';
import { readme } from './templates/readme.js';
import { routes } from './templates/routes.js';
import { schemas } from './templates/schemas.js';
import { service } from './templates/service.js';
import { pluginTest } from './templates/test.js';

/** The files of a new plugin, by path inside its folder (the layout of STYLE.md). */
export function pluginFiles(n: PluginNames, dependencies: Record<string, string>): Record<string, string> {
  return {
    'package.json': packageJson(n, dependencies),
    'README.md': readme(n),
    'src/index.ts': pluginIndex(n),
    [`src/entities/${n.file}.ts`]: entity(n),
    [`src/schemas/${n.file}.ts`]: schemas(n),
    [`src/services/${n.file}s.ts`]: service(n),
    'src/routes/items.ts': routes(n),
    'src/migrations/index.ts': migrationsIndex(n),
    'src/migrations/0001_items.ts': itemsMigration(n),
    [`test/${n.name}.test.ts`]: pluginTest(n),
  };
}
