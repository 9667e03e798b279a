import type { PluginNames } from '../names.js';

export function readme(n: PluginNames): string {
  const base = `/api/v1/${n.name}/items`;
  return `# ${n.packageName}

The items of a store, as a Qhatu plugin. Made by \`qhatu plugin new ${n.name}\`: rename the item
to what your plugin is about and grow it from here.

## What it offers

| Route | Who | What |
| --- | --- | --- |
| \`POST ${base}\` | admin key, or staff with \`${n.name}.write\` | add an item: \`{ title, description? }\` → \`201 { data: item }\` |
| \`GET ${base}\` | admin or storefront key, or a customer token | list items: \`limit\`, \`cursor\`, \`sort\` (\`created_at\`, \`title\`, \`-\` for descending), \`q\` |
| \`GET ${base}/:id\` | admin or storefront key, or a customer token | read an item |

Every route takes \`Authorization: Bearer <key>\` and \`X-Tenant-ID\`; the API docs are at \`/docs\`.

Permissions (granted by the store's roles, \`/api/v1/roles\`): \`${n.name}.write\`, add items. Admin
API keys hold every permission; a staff member holds those of their role.

Events: \`${n.name}.item.created\` (\`{ id, title }\`), recorded in the transaction that adds the item
and sent after it commits.

Tables: \`${n.table}\`, tenant-owned, with row-level security (see \`src/migrations/\`).

## Layout

\`\`\`
src/index.ts          definePlugin({...}): the whole plugin at a glance
src/entities/         the ${n.entity} entity
src/schemas/          zod schemas of requests and answers
src/routes/           the REST routes; handlers are thin
src/services/         ${n.service}: the only code that writes
src/migrations/       SQL, applied by \`qhatu migrate\`; the next one is generated from the entities
test/                 scenario tests through HTTP on a real database
\`\`\`

## Use it

Add it to the store's \`qhatu.config.ts\`:

\`\`\`ts
import { defineProject } from '@qhatu/core';
import ${n.camel} from '${n.packageName}';

export default defineProject({ plugins: [/* ... */, ${n.camel}] });
\`\`\`

and to the store's \`package.json\` dependencies: \`"${n.packageName}": "workspace:*"\`, then
\`pnpm install\` and \`qhatu migrate\`.

## Change its entities

Add a property to an entity in \`src/entities/\` (or a new entity, listed in \`entities\`), then:

\`\`\`sh
qhatu migration generate ${n.name}   # src/migrations/0002_….ts, listed in src/migrations/index.ts
qhatu migrate
\`\`\`

It compares the entities with the database (migrated up to now): new tables get \`tenant_id\` first
in their key and every index and unique constraint, and row-level security (\`tenantTable\`); new
columns and indexes are added. It never drops or changes what exists: that stays a migration of your
own. In a store project, run it as \`pnpm qhatu migration generate ${n.name}\`.

## Test it

\`\`\`sh
npx vitest run packages/${n.folder}
\`\`\`
`;
}
