import type { PluginNames } from '../names.js';

export function service(n: PluginNames): string {
  return `import { randomUUID } from 'node:crypto';
import { AppError, Database, paginate, searchWhere, type Page, type PageRequest } from '@qhatu/core';
import { ${n.entity} } from '../entities/${n.file}.js';
import type { ${n.entity}Input } from '../schemas/${n.file}.js';

export const ITEM_CREATED = '${n.name}.item.created';

/** The items of the current store. The only code that writes them; it knows nothing of HTTP. */
export class ${n.service} {
  constructor(private readonly db: Database) {}

  /** Adds an item and records \`${n.name}.item.created\` in the same transaction (sent after commit). */
  async create(input: ${n.entity}Input): Promise<${n.entity}> {
    return this.db.tenant(async (tx) => {
      const at = tx.now();
      const item = tx.em.create(${n.entity}, {
        id: randomUUID(),
        tenantId: tx.tenantId,
        title: input.title,
        description: input.description ?? null,
        createdAt: at,
        updatedAt: at,
      });
      tx.publish(ITEM_CREATED, { id: item.id, title: item.title });
      return item;
    });
  }

  async list(page: PageRequest, search?: string): Promise<Page<${n.entity}>> {
    const where = search ? searchWhere('${n.table}', search) : {};
    return this.db.tenant(({ em }) => paginate(em, ${n.entity}, where, page));
  }

  async get(id: string): Promise<${n.entity}> {
    return this.db.tenant(async ({ em }) => {
      const item = await em.findOne(${n.entity}, { id });
      if (!item) throw AppError.notFound('Item', '${n.sql.toUpperCase()}_ITEM_NOT_FOUND');
      return item;
    });
  }
}
`;
}
