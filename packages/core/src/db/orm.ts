import { MikroORM, type EntitySchema } from '@mikro-orm/postgresql';

export interface OrmOptions {
  url: string;
  poolMax: number;
  entities: EntitySchema<any, any>[];
}

/** Entities that carry `tenantId` are tenant-owned: the `tenant` filter scopes every query on them. */
export function tenantEntityNames(entities: EntitySchema<any, any>[]): string[] {
  return entities.filter((e) => 'tenantId' in (e.meta.properties ?? {})).map((e) => e.meta.className);
}

export async function createOrm({ url, poolMax, entities }: OrmOptions): Promise<MikroORM> {
  return MikroORM.init({
    clientUrl: url,
    entities,
    pool: { min: 0, max: poolMax },
    allowGlobalContext: false,
    forceUtcTimezone: true,
    discovery: { warnWhenNoEntities: false },
    // Fails closed: a query on a tenant entity without the tenant parameter throws.
    filters: {
      tenant: {
        cond: (args: { tenantId: string }) => ({ tenantId: args.tenantId }),
        entity: tenantEntityNames(entities),
        default: true,
      },
    },
  });
}

export type { MikroORM };
