import type { PluginNames } from '../names.js';

export function schemas(n: PluginNames): string {
  return `import { listQuery, Timestamp } from '@qhatu/core';
import { z } from 'zod';

/** Declared once: they validate requests, shape answers and document the API at /docs. */
export const ${n.entity}Input = z
  .strictObject({
    title: z.string().trim().min(1).max(200),
    description: z.string().trim().max(5000).nullable().optional(),
  })
  .meta({ id: '${n.entity}Create' });
export type ${n.entity}Input = z.output<typeof ${n.entity}Input>;

export const ${n.entity}Out = z
  .object({
    id: z.uuid(),
    title: z.string(),
    description: z.string().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: '${n.entity}' });

export const ${n.entity}List = listQuery({ sorts: ['created_at', 'title'], defaultSort: '-created_at', search: true });
`;
}
