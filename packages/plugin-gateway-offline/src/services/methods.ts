import { randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { AppError, Database, keyset, pgDate, type KeysetColumn, type Page, type PageRequest, type SqlReader } from '@qhatu/core';
import { GatewaySettings } from '@qhatu/plugin-payments';
import { inject, injectable } from 'tsyringe';
import { OfflineMethod, type MethodKind } from '../entities/method.js';
import type { MethodInput, MethodPatch } from '../schemas/method.js';
import { METHOD_CREATED, METHOD_DELETED, METHOD_UPDATED, publishMethod } from './events.js';

/** The gateway id of every offline payment. */
export const OFFLINE = 'offline';

export interface MethodFilter {
  enabled?: boolean;
  kind?: MethodKind;
  currency?: string;
}

const COLUMNS = 'id, tenant_id, name, kind, instructions, currencies, enabled, position, created_at, updated_at';
const SORTS: Record<string, KeysetColumn> = {
  position: { sql: 'position', type: 'int' },
  name: { sql: 'name', type: 'text' },
  created_at: { sql: 'created_at', type: 'timestamptz' },
};

function toMethod(r: Record<string, unknown>): OfflineMethod {
  return {
    id: r.id as string,
    tenantId: r.tenant_id as string,
    name: r.name as string,
    kind: r.kind as MethodKind,
    instructions: r.instructions as string,
    currencies: r.currencies as string[],
    enabled: r.enabled as boolean,
    position: Number(r.position),
    createdAt: pgDate(r.created_at),
    updatedAt: pgDate(r.updated_at),
  } as OfflineMethod;
}

export const methodNotFound = () => AppError.notFound('Offline payment method', 'OFFLINE_METHOD_NOT_FOUND');

const nameTaken = (name: string) =>
  AppError.conflict(`The store already has an offline payment method named "${name}"`, 'OFFLINE_METHOD_EXISTS', [{ path: 'body.name', message: 'is taken by another method of this store' }]);

/** The store's offline payment methods: the only place that writes them. */
@injectable()
export class OfflineMethods {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(GatewaySettings) private readonly settings: GatewaySettings,
  ) {}

  async create(input: MethodInput): Promise<OfflineMethod> {
    return this.named(input.name, () =>
      this.db.tenant(async (tx) => {
        const at = tx.now();
        const method = tx.em.create(OfflineMethod, {
          id: randomUUID(), tenantId: tx.tenantId, name: input.name, kind: input.kind, instructions: input.instructions,
          currencies: input.currencies, enabled: input.enabled, position: input.position, createdAt: at, updatedAt: at,
        });
        publishMethod(tx, METHOD_CREATED, method);
        return method;
      }),
    );
  }

  async update(id: string, patch: MethodPatch): Promise<OfflineMethod> {
    return this.named(patch.name ?? '', () =>
      this.db.tenant(async (tx) => {
        const method = await tx.em.findOne(OfflineMethod, { id });
        if (!method) throw methodNotFound();
        const changes = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
        if (Object.keys(changes).length === 0) return method;
        Object.assign(method, changes, { updatedAt: tx.now() });
        publishMethod(tx, METHOD_UPDATED, method);
        return method;
      }),
    );
  }

  /** Deletes the method; payments made with it keep the method as the shopper was shown it. */
  async remove(id: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      const method = await tx.em.findOne(OfflineMethod, { id });
      if (!method) throw methodNotFound();
      tx.em.remove(method);
      tx.publish(METHOD_DELETED, { id, deleted_at: tx.now().toISOString() });
    });
  }

  async get(id: string): Promise<OfflineMethod> {
    return this.db.read(async (sql) => {
      const [row] = await sql.query<Record<string, unknown>>(`select ${COLUMNS} from offline_method where tenant_id = ? and id = ?`, [sql.tenantId, id]);
      if (!row) throw methodNotFound();
      return toMethod(row);
    });
  }

  async list(page: PageRequest, filter: MethodFilter): Promise<Page<OfflineMethod>> {
    return this.db.read((sql) => readPage(sql, page, filter));
  }

  /**
   * What the storefront offers for an order in `currency`: the enabled methods that take it, in
   * the store's order; none while the store has not switched the offline gateway on.
   */
  async available(currency: string): Promise<OfflineMethod[]> {
    const setting = await this.settings.get(OFFLINE);
    if (!setting?.enabled) return [];
    return this.db.read(async (sql) =>
      (
        await sql.query<Record<string, unknown>>(
          `select ${COLUMNS} from offline_method where tenant_id = ? and enabled and currencies @> ?::jsonb order by position, name, id limit 100`,
          [sql.tenantId, JSON.stringify([currency])],
        )
      ).map(toMethod),
    );
  }

  /** Runs a write; the unique index on the store's method names makes a taken name the same 409 under a race. */
  private async named<T>(name: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException) throw nameTaken(name);
      throw error;
    }
  }
}

async function readPage(sql: SqlReader, page: PageRequest, filter: MethodFilter): Promise<Page<OfflineMethod>> {
  const conditions = ['tenant_id = ?'];
  const params: unknown[] = [sql.tenantId];
  const where = (condition: string, ...values: unknown[]) => {
    conditions.push(condition);
    params.push(...values);
  };
  if (filter.enabled !== undefined) where('enabled = ?', filter.enabled);
  if (filter.kind) where('kind = ?', filter.kind);
  if (filter.currency) where('currencies @> ?::jsonb', JSON.stringify([filter.currency]));
  const resume = keyset(page, SORTS);
  if (resume.where) where(resume.where, ...resume.params);
  const rows = await sql.query<Record<string, unknown>>(`select ${COLUMNS} from offline_method where ${conditions.join(' and ')} ${resume.tail}`, params);
  const field = page.sort.replace(/^-/, '');
  return resume.finish(rows.map(toMethod), (m) => (field === 'position' ? m.position : field === 'name' ? m.name : m.createdAt.toISOString()));
}
