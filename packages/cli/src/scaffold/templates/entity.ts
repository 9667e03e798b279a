import type { PluginNames } from '../names.js';

export function entity(n: PluginNames): string {
  return `import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** An item of one store. Having \`tenantId\` makes it tenant-owned: core scopes every query on it to the store. */
export const ${n.entity} = defineEntity({
  name: '${n.entity}',
  tableName: '${n.table}',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    title: p.string(),
    description: p.string().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type ${n.entity} = InferEntity<typeof ${n.entity}>;
`;
}
