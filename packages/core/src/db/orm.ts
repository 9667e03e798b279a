import { MikroORM, type EntitySchema } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';

export interface OrmOptions {
  url: string;
  poolMax: number;
  entities: EntitySchema<any, any>[];
  /** Where knex's own warnings go (a connection dropped from the pool after it was lost), instead of the console. */
  logger?: Logger;
}

/** Entities that carry `tenantId` are tenant-owned: the `tenant` filter scopes every query on them. */
export function tenantEntityNames(entities: EntitySchema<any, any>[]): string[] {
  return entities.filter((e) => 'tenantId' in (e.meta.properties ?? {})).map((e) => e.meta.className);
}

export async function createOrm({ url, poolMax, entities, logger }: OrmOptions): Promise<MikroORM> {
  return MikroORM.init({
    clientUrl: url,
    entities,
    pool: { min: 0, max: poolMax },
    ...(logger ? { driverOptions: { log: knexLog(logger) } } : {}),
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

function knexLog(logger: Logger) {
  const log = (level: 'warn' | 'error' | 'debug') => (message: unknown) => logger[level]({ knex: message instanceof Error ? message.message : String(message) }, 'database driver');
  return { warn: log('warn'), error: log('error'), deprecate: log('warn'), debug: log('debug') };
}

export type { MikroORM };
