import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { inject, injectable } from 'tsyringe';
import { TenantContext } from '../context.js';
import { EventBus, type DomainEvent } from '../events/bus.js';
import type { Logger } from 'pino';
import { CLOCK, LOGGER, ORM, type Clock } from '../tokens.js';
import { OutboxEvent } from './entities.js';
import { APP_ROLE } from './migrations.js';

// One statement switches to the RLS role and sets the tenant, both local to the transaction.
const ENTER_TENANT_SQL = `select set_config('role', '${APP_ROLE}', true), set_config('app.tenant_id', ?, true)`;

/** A unit of work inside one tenant: the entity manager and the events to publish on commit. */
export class Tx {
  constructor(
    readonly em: EntityManager,
    readonly tenantId: string,
    private readonly clock: Clock,
    readonly pending: DomainEvent[],
    private readonly committed: Array<() => Promise<void> | void> = [],
  ) {}

  /**
   * Runs `fn` once this transaction has committed (never if it rolls back): the place to queue
   * jobs about rows it wrote, which another connection must be able to see.
   */
  afterCommit(fn: () => Promise<void> | void): void {
    this.committed.push(fn);
  }

  /** @internal */
  async runAfterCommit(log: (error: unknown) => void): Promise<void> {
    for (const fn of this.committed.splice(0)) {
      try {
        await fn();
      } catch (error) {
        log(error);
      }
    }
  }

  /** Records an event in the outbox, in this transaction; it is emitted only after commit. */
  publish<T extends Record<string, unknown>>(type: string, data: T): DomainEvent<T> {
    if (!this.tenantId) throw new Error(`Event ${type} published outside a tenant`);
    const event: DomainEvent<T> = {
      id: randomUUID(),
      type,
      source: `/qhatu/${type.split('.')[0]}`,
      tenantId: this.tenantId,
      time: this.clock.now(),
      data,
    };
    this.em.create(OutboxEvent, {
      id: event.id,
      tenantId: event.tenantId,
      type: event.type,
      source: event.source,
      data: event.data,
      occurredAt: event.time,
      publishedAt: null,
    });
    this.pending.push(event as DomainEvent);
    return event;
  }

  readonly now = (): Date => this.clock.now();
}

/** Read-only SQL inside a tenant transaction; `?` placeholders, as `em.execute` takes them. */
export interface SqlReader {
  readonly tenantId: string;
  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `?` → `$1, $2, ...` for the driver (the SQL of readers uses no `?` operator). */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

interface PgClient {
  query(sql: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}

interface ActiveTx {
  tx: Tx;
}
const active = new WeakMap<object, ActiveTx>();

@injectable()
export class Database {
  constructor(
    @inject(ORM) readonly orm: MikroORM,
    @inject(EventBus) private readonly bus: EventBus,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(LOGGER) private readonly logger: Logger,
  ) {}

  private readonly logFailure = (err: unknown) => this.logger.error({ err }, 'after-commit step failed');

  /**
   * Runs `work` in one transaction of the current tenant: as the RLS role, with the tenant
   * filter on, and with its events emitted after commit. A nested call joins the open one.
   */
  async tenant<T>(work: (tx: Tx) => Promise<T>, tenantId = TenantContext.tenantId()): Promise<T> {
    const scope = TenantContext.current();
    const open = scope ? active.get(scope) : undefined;
    if (open && open.tx.tenantId === tenantId) return work(open.tx);

    const pending: DomainEvent[] = [];
    let opened: Tx | undefined;
    const result = await this.orm.em.fork({ clear: true }).transactional(async (em) => {
      await em.execute(ENTER_TENANT_SQL, [tenantId]);
      em.setFilterParams('tenant', { tenantId });
      const tx = (opened = new Tx(em, tenantId, this.clock, pending));
      const inner = { ...(scope ?? {}), tenantId };
      active.set(inner, { tx });
      return TenantContext.run(inner, () => work(tx));
    });
    await this.bus.committed(pending);
    await opened?.runAfterCommit(this.logFailure);
    return result;
  }

  /**
   * Platform-level work (tenants, API keys, the outbox relay) with the owner's rights; tenant
   * entities need `filters: { tenant: false }` here. With `tenantId`, `tx.publish` records events of that tenant.
   */
  async platform<T>(work: (tx: Tx) => Promise<T>, tenantId = ''): Promise<T> {
    const pending: DomainEvent[] = [];
    let opened: Tx | undefined;
    const result = await this.orm.em
      .fork({ clear: true })
      .transactional((em) => work((opened = new Tx(em, tenantId, this.clock, pending))));
    await this.bus.committed(pending);
    await opened?.runAfterCommit(this.logFailure);
    return result;
  }

  /**
   * The hot read path: a read-only transaction of the tenant on a pooled connection, without the
   * ORM. Entering the tenant rides on BEGIN (one round trip), then each query, then COMMIT.
   * Inside an open `tenant()` transaction it reads on that transaction instead.
   */
  async read<T>(work: (sql: SqlReader) => Promise<T>, tenantId = TenantContext.tenantId()): Promise<T> {
    const scope = TenantContext.current();
    const open = scope ? active.get(scope) : undefined;
    if (open && open.tx.tenantId === tenantId) {
      return work({ tenantId, query: (sql, params = []) => open.tx.em.execute(sql, params) });
    }
    if (!UUID.test(tenantId)) throw new Error('A tenant id must be a UUID');
    const client = this.orm.em.getConnection().getKnex().client;
    const connection = (await client.acquireConnection()) as PgClient;
    const run = async (sql: string, params?: unknown[]) => {
      this.statements.emit('statement', sql, params);
      return (await connection.query(sql, params)).rows;
    };
    try {
      // The tenant id is a checked UUID: safe to write into the statement, which lets BEGIN carry it.
      await run(`BEGIN READ ONLY; ${ENTER_TENANT_SQL.replace('?', `'${tenantId.toLowerCase()}'`)}`);
      const result = await work({ tenantId, query: (sql, params = []) => run(numbered(sql), params) as never });
      await run('COMMIT');
      return result;
    } catch (error) {
      await run('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      await client.releaseConnection(connection);
    }
  }

  /** Every statement `read` sends (the ORM's own are on knex's `query` event); tests count them. */
  readonly statements = new EventEmitter();

  /** A read outside any transaction, as the owner; for health checks and lookups by key. */
  async query<R = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<R[]> {
    return this.orm.em.getConnection().execute<R[]>(sql, params);
  }
}
