import { AsyncSlot } from '../async-slot.js';
import { createHash, randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { inject, injectable } from 'tsyringe';
import { TenantContext, type RequestScope } from '../context.js';
import { EventBus, type DomainEvent } from '../events/bus.js';
import { isUuid } from '../http/schemas.js';
import type { Logger } from 'pino';
import type { QhatuConfig } from '../config.js';
import { CLOCK, CONFIG, LOGGER, ORM, type Clock } from '../tokens.js';
import { OutboxEvent } from './entities.js';
import { APP_ROLE } from './migrations.js';
import { COMMIT_LSN_SQL, callerKey, replicaSettings, Replicas, type Replica } from './replicas.js';
import { currentAttempt, isConnectionLost, isTransient, neverSent, retrying, retryingRead, type Attempt } from './retry.js';

// One statement switches to the RLS role and sets the tenant, both local to the transaction.
const ENTER_TENANT_SQL = `select set_config('role', '${APP_ROLE}', true), set_config('app.tenant_id', ?, true)`;

/** ENTER_TENANT_SQL for a checked UUID, written into the statement so that it can ride on BEGIN. */
function enterTenantSql(tenantId: string): string {
  if (!isUuid(tenantId)) throw new Error('A tenant id must be a UUID');
  return ENTER_TENANT_SQL.replace('?', `'${tenantId.toLowerCase()}'`);
}

/** The tenant a transaction about to begin enters; its BEGIN carries the setup (one round trip, not two). */
interface PendingEntry {
  sql: string;
  sent: boolean;
  /** The tenant (a checked UUID, lower case) and the connection whose BEGIN carried it. */
  tenantId?: string;
  connection?: object;
  /** With read replicas: told the primary's WAL position once its COMMIT went through (read-your-writes). */
  committedAt?: (lsn: string | undefined) => void;
  /** The outbox rows of the transaction's events (`Tx.publish`): inserted in the round trip of its COMMIT. */
  outbox: DomainEvent[];
  /** The transaction's opening until it goes out, and writes of `write({ deferred: true })`: sent with or before its next statement, or with its COMMIT. */
  deferred: DeferredWrites[];
  /** Whether the deferred writes and the outbox rows may be prepared on the connection (`DATABASE_PREPARE`). */
  prepare?: boolean;
  /** `Database.statements`, told of a round trip that sends the deferred writes on their own, and of what BEGIN and COMMIT carried. */
  statements?: EventEmitter;
  /** `tenant()`'s `before`, written in: run in a transaction of its own in the round trip that carries BEGIN. */
  before?: { text: string; rows: (rows: never[]) => void };
  /** The ORM started on an ORM-free transaction (`sqlFirst`): it began already, so knex's BEGIN does not go out. */
  begun?: boolean;
}

/** The ORM started on `sqlFirst`'s transaction: its `Tx`, the entry its statements find, the events its `Tx` records. */
interface OrmOnWrite {
  tx: Tx;
  entry: PendingEntry;
  outbox: DomainEvent[];
}
const beginning = new AsyncSlot<PendingEntry>('qhatu.pending-begin');

/** Statements queued to ride on a later round trip of their transaction (`batchText`'s, or its opening). */
interface DeferredWrites {
  text: string;
  shown: () => string;
  /** The names their text prepares on the connection: known there once it went through. */
  preparing: string[];
  /** How many results their text answers. */
  count: number;
  /** The transaction's opening (BEGIN, the tenant, `before`): until it is sent, nothing has begun on the connection. */
  opens?: boolean;
  /** Called with their own results once the round trip that carried them went through. */
  delivered?: (results: Array<{ rows: unknown[] }>) => void;
}

/** Hands each of `writes`, sent first in a round trip and in order, its results; answers the results after theirs. */
function deliverDeferred(writes: DeferredWrites[], response: unknown): Array<{ rows: unknown[] }> {
  const all = (Array.isArray(response) ? response : [response]) as Array<{ rows: unknown[] }>;
  let at = 0;
  for (const w of writes) {
    w.delivered?.(all.slice(at, at + w.count));
    at += w.count;
  }
  return all.slice(at);
}

/** A statement of the driver's answer as knex hands it on, for a BEGIN or ROLLBACK that did not need to go out. */
const unsent = (obj: { sql: string }, command: string) => Promise.resolve({ ...obj, response: { command, rows: [], rowCount: null, fields: [] } });

/** The names `writes` prepare that are not known on their connection yet. */
const preparingIn = (writes: DeferredWrites[]) => writes.flatMap((w) => w.preparing);

/**
 * After a round trip that carried `PREPARE`s failed: `PREPARE` outlives the rollback, and whether
 * it ran before the failure is unknown, so the connection is not lent again (its names would clash).
 */
function spoilIfPreparing(connection: unknown, preparing: string[]): void {
  if (preparing.length > 0) (connection as { __knex__disposed?: unknown }).__knex__disposed ??= new Error('statements prepared by a failed round trip');
}

interface KnexClient {
  query(connection: unknown, param: string | { sql: string; bindings?: unknown[] }): Promise<unknown>;
  _query(connection: unknown, obj: { sql: string; bindings?: unknown[] }): Promise<unknown>;
}

/** The tables of the ORM's tenant entities (filled by `Database`). */
const tenantTables = new Set<string>();

// The tail of an update or delete the ORM's unit of work writes: by id (a UUID), or by several ids.
const ORM_BY_ID = /^(update|delete from) "([a-z_][a-z0-9_]*)" [\s\S]* where ("id" (?:= '[0-9a-f-]{36}'|in \('[0-9a-f-]{36}'(?:, '[0-9a-f-]{36}')*\))(?: returning "[a-z_]+"(?:, "[a-z_]+")*)?)$/;

/**
 * An update or delete of a tenant entity that the ORM's unit of work sends by id, on the
 * connection of an open `tenant()` transaction, with `"tenant_id" = '<the tenant>'` added to its
 * condition: row-level security already keeps it to the tenant's rows, so it changes no row, but
 * a schema distributed by store (decision 0072) routes a statement that names the store to the
 * one node that holds it. Any other statement is sent as it is.
 */
function namingTenant(connection: object, sql: string): string {
  const entry = entryOn(connection);
  if (!entry?.tenantId) return sql;
  const match = ORM_BY_ID.exec(sql);
  if (!match || !tenantTables.has(match[2])) return sql;
  const tail = match[3];
  return `${sql.slice(0, sql.length - tail.length)}"tenant_id" = '${entry.tenantId}' and ${tail}`;
}
const riding = new WeakSet<object>();
const ROLLBACK = /^\s*rollback\s*;?\s*$/i;

/** The open `tenant()` transaction on `connection`, if any. */
function entryOn(connection: object): PendingEntry | undefined {
  // Inside the transaction's work, its scope names it; the ORM's flush at its end runs beside the work, where its entry does.
  const scope = TenantContext.current();
  const entry = (scope ? active.get(scope)?.entry : undefined) ?? beginning.get();
  return entry?.connection === connection ? entry : undefined;
}

/** Sends the deferred writes of the transaction on `connection` (before another statement of it), if it has any. */
async function flushDeferred(connection: object, entry = entryOn(connection)): Promise<void> {
  if (!entry || entry.deferred.length === 0) return;
  await sendAfterDeferred(connection, entry, undefined);
}

/**
 * One round trip on the connection of `entry`'s transaction: its deferred writes (its opening
 * first, while it waits), then `then`'s statements when given; answers the results of `then`'s.
 * The names either prepares are known on the connection once the round trip went through; after a
 * failure the connection is marked as `batchText`'s callers mark it.
 */
async function sendAfterDeferred(
  connection: object,
  entry: PendingEntry,
  then: { text: string; shown: () => string; preparing: string[] } | undefined,
): Promise<Array<{ rows: unknown[] }>> {
  const writes = entry.deferred.splice(0);
  const parts = then ? [...writes, then] : writes;
  const opens = writes.some((w) => w.opens);
  if (entry.statements && entry.statements.listenerCount('statement') > 0) entry.statements.emit('statement', parts.map((w) => w.shown()).join('; '), { opens });
  const preparing = [...preparingIn(writes), ...(then?.preparing ?? [])];
  try {
    const response = await (connection as PgClient).query(parts.map((w) => w.text).join('; '));
    knownOn(connection, preparing);
    return deliverDeferred(writes, response);
  } catch (error) {
    markIfLost(connection, error);
    spoilIfPreparing(connection, preparing);
    throw error;
  }
}

/**
 * Lets the BEGIN of a tenant transaction carry the tenant setup, and ride on the transaction's
 * first statement (decision 0105): the statement knex sends as `BEGIN;` is answered at once, and
 * `BEGIN; select set_config(...)` waits among the transaction's deferred writes for the next round
 * trip on its connection. Only the BEGIN of the transaction `tenant()` is opening is changed (an
 * async-local marks it, and the mark is spent by it); `tenant()` checks that it was and enters the
 * tenant itself otherwise, so a knex that spells BEGIN differently costs a round trip, never the isolation.
 * It also notes when a transaction's COMMIT goes out (a connection lost from then on may have
 * committed it, so it is not run again), and marks a connection a statement lost as broken.
 */
function rideOnBegin(client: KnexClient): void {
  // A transaction's client is a fresh object of the same class (knex's makeTxClient): the class's method is the one to wrap.
  const proto = Object.getPrototypeOf(client) as KnexClient;
  if (riding.has(proto)) return;
  riding.add(proto);
  const query = proto._query;
  // The ORM's own updates and deletes name their tenant: knex's `query` runs before its `query` event, which tests read.
  const send = proto.query;
  proto.query = function (this: KnexClient, connection, param) {
    const sql = typeof param === 'string' ? param : param.sql;
    const scoped = namingTenant(connection as object, sql);
    if (scoped === sql) return send.call(this, connection, param);
    return send.call(this, connection, typeof param === 'string' ? scoped : { ...param, sql: scoped });
  };
  proto._query = function (this: KnexClient, connection, obj) {
    const control = obj.sql === 'BEGIN;' || obj.sql === 'COMMIT;';
    if (!control) {
      const entry = entryOn(connection as object);
      // A rollback drops the writes it would undo (before its opening went out, nothing began: nothing to send); any other statement comes after them.
      if (entry && ROLLBACK.test(obj.sql)) {
        const begun = !entry.deferred.some((w) => w.opens);
        entry.deferred.length = 0;
        if (!begun) {
          entry.statements?.emit('statement', obj.sql, { dropped: true });
          return unsent(obj, 'ROLLBACK');
        }
      }
      const before = entry && entry.deferred.length > 0 ? flushDeferred(connection as object, entry) : Promise.resolve();
      return before.then(() => query.call(this, connection, obj)).catch((error: unknown) => {
        markIfLost(connection, error);
        throw error;
      });
    }
    const attempt = currentAttempt();
    if (attempt && obj.sql === 'COMMIT;') attempt.commitSent = true;
    const pending = beginning.get();
    let sent = obj;
    // The ORM started on a transaction that began already (`sqlFirst`): its BEGIN does not go out.
    if (pending?.begun && pending.connection === connection && obj.sql === 'BEGIN;') {
      pending.statements?.emit('statement', obj.sql, { unsent: true });
      return unsent(obj, 'BEGIN');
    }
    if (pending && !pending.sent && pending.sql && obj.sql === 'BEGIN;' && !obj.bindings?.length) {
      pending.sent = true;
      pending.connection = connection as object;
      const before = pending.before;
      // `before` first, in a transaction of its own whose commit does not wait for the disk (this one's, later in the same log, makes it durable).
      const text = before ? `BEGIN; ${pending.sql}; SET LOCAL synchronous_commit = off; ${before.text}; COMMIT; BEGIN; ${pending.sql}` : `BEGIN; ${pending.sql}`;
      // The opening rides on the transaction's first statement (`preparedIn`, `writeOn`, `flushDeferred`), or on its COMMIT.
      pending.deferred.unshift({
        text,
        shown: () => text,
        preparing: [],
        count: before ? 7 : 2,
        opens: true,
        // BEGIN, the tenant, SET, `before`: its rows are the fourth result.
        delivered: before ? (results) => before.rows(results[3].rows as never[]) : undefined,
      });
      return unsent(obj, 'BEGIN');
    }
    const ours = obj.sql === 'COMMIT;' && pending !== undefined && pending.connection === connection;
    // The deferred writes and the outbox rows of the transaction's events go out in the COMMIT's round trip, just before it.
    const riders = ours ? pending.deferred.splice(0) : [];
    if (ours && pending.outbox.length > 0) riders.push(deferredWrites(connection as object, pending.outbox.splice(0).map(outboxStatement), pending.prepare === true, preparingIn(riders)));
    const preparing = preparingIn(riders);
    // With read replicas, the COMMIT of a tenant transaction also answers where the primary's WAL stands after it.
    const noting = ours && pending.committedAt ? pending.committedAt : undefined;
    const tail = `COMMIT;${noting ? ` ${COMMIT_LSN_SQL}` : ''}`;
    if (riders.length > 0 || noting) sent = { ...obj, sql: `${riders.map((w) => `${w.text}; `).join('')}${tail}` };
    if (riders.length > 0 && pending?.statements && pending.statements.listenerCount('statement') > 0) {
      pending.statements.emit('statement', `${riders.map((w) => `${w.shown()}; `).join('')}${tail}`, { rewrites: true, opens: riders.some((w) => w.opens) });
    }
    // After a failed COMMIT, knex answers what follows with "Transaction query already complete": the first error is the one to report.
    const answered = (noting ? query.call(this, connection, sent).then((done) => (noting(lsnOf(done)), done)) : query.call(this, connection, sent)).then((done) => {
      if (riders.length > 0) deliverDeferred(riders, resultsOf(done));
      if (preparing.length > 0) knownOn(connection as object, preparing);
      return done;
    });
    return answered.catch(async (error: unknown) => {
      if (attempt) {
        attempt.controlFailure ??= error;
        if (neverSent(error)) attempt.commitSent = false;
      }
      markIfLost(connection, error);
      // A write riding on COMMIT failed: the rest of the round trip did not run, and a transaction is left aborted; it is ended here.
      if (riders.length > 0 && !isConnectionLost(error)) await (connection as PgClient).query('ROLLBACK').catch(() => undefined);
      spoilIfPreparing(connection, preparing);
      throw error;
    });
  };
}

/**
 * The reads of a transaction as strategies and pricing take them: its tenant, its clock and SQL
 * (`?` placeholders, as `em.execute` takes them). A `Tx` is one, and so is the ORM-free `SqlTx`
 * of `Database.write`; code that takes a `TxReader` runs in either.
 */
export interface TxReader {
  readonly tenantId: string;
  now(): Date;
  /**
   * `prepare`: parsed and planned once per connection, for a statement of a hot path whose planning
   * costs as much as running it (its text must not vary); where a transaction cannot prepare (a
   * `write` joined to an ORM transaction, `DATABASE_PREPARE=off`) it is sent as it is.
   */
  query<R = Record<string, unknown>>(sql: string, params?: unknown[], options?: { prepare?: boolean }): Promise<R[]>;
}

/** A unit of work inside one tenant: the entity manager and the events to publish on commit. */
export class Tx implements TxReader {
  constructor(
    readonly em: EntityManager,
    readonly tenantId: string,
    private readonly clock: Clock,
    readonly pending: DomainEvent[],
    private readonly committed: Array<() => Promise<void> | void> = [],
    /** Where the outbox rows go when the transaction inserts them with its COMMIT (`tenant()`); else the ORM flushes them. */
    private readonly outbox?: DomainEvent[],
    /** `query` with `prepare` (`tenant()`, unless the deployment prepares nothing). */
    private readonly prepared?: <R>(sql: string, params: unknown[]) => Promise<R[]>,
  ) {}

  /**
   * Runs `fn` once this transaction has committed (never if it rolls back), for work that must
   * see the commit. A job queued here is lost if the queue fails at that moment; one that must not
   * be rides on an event published in the transaction, queued by the outbox relay
   * (`OutboxRelay.queueOn`): a tenant's transaction has no rights on the queue's tables, so
   * `Jobs.addIn` is for transactions with the owner's (the relay's).
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
    const event = domainEvent(type, this.tenantId, this.clock.now(), data);
    this.pending.push(event as DomainEvent);
    if (this.outbox) {
      this.outbox.push(event as DomainEvent);
      return event;
    }
    this.em.create(OutboxEvent, {
      id: event.id,
      tenantId: event.tenantId,
      type: event.type,
      source: event.source,
      data: event.data,
      occurredAt: event.time,
      publishedAt: null,
    });
    return event;
  }

  readonly now = (): Date => this.clock.now();

  /**
   * SQL on this transaction (`em.execute`). `prepare`: parsed and planned once per connection (a
   * named statement of the protocol), for a large statement of a hot path whose planning costs as
   * much as running it; with `DATABASE_PREPARE=off` it is sent as it is.
   */
  query<R = Record<string, unknown>>(sql: string, params: unknown[] = [], options: { prepare?: boolean } = {}): Promise<R[]> {
    if (options.prepare && this.prepared) return this.prepared<R>(sql, params);
    return this.em.execute<R[]>(sql, params);
  }
}

/**
 * A tenant write transaction without the ORM (`Database.write`). Each `query` is one round trip
 * (the first one carries BEGIN and the tenant context), in the simple protocol with its parameters
 * written in as literals (text, numbers, booleans, dates, null; arrays as a PostgreSQL array
 * literal in text); it may hold several statements separated by `;`, run in order, each with its
 * own snapshot, answering the rows of the last (lock a row, then read what the lock guards).
 * Writes queued with `later` and the outbox rows of `publish` go out together with COMMIT, in the
 * order they were queued, in one round trip.
 */
export interface SqlTx extends TxReader {
  /**
   * Several statements in one round trip, run in order, each with its own snapshot; answers the
   * rows of the last. A statement may be prepared on the connection (`prepare`).
   */
  batch<R = Record<string, unknown>>(statements: SqlStatement[]): Promise<R[]>;
  /**
   * Queues a write (`?` placeholders); it runs with COMMIT, after every read. `prepare`: as in
   * `batch`. `rows`: called with the statement's rows once the queued writes went through (a guard
   * that answers something, say).
   */
  later<R = Record<string, unknown>>(sql: string, params?: unknown[], options?: { prepare?: boolean; rows?: (rows: R[]) => void }): void;
  /** Records an event in the outbox with the queued writes; it is emitted only after commit. */
  publish<T extends Record<string, unknown>>(type: string, data: T): DomainEvent<T>;
  /** Runs `fn` once the transaction has committed (never if it rolls back). */
  afterCommit(fn: () => Promise<void> | void): void;
}

/** Thrown by `ormOf` on a plain `Database.write`: its work asked for the ORM, which such a transaction never has. */
export class OrmRequired extends Error {
  constructor() {
    super('This work needs the ORM: run it in Database.sqlFirst or Database.tenant');
    this.name = 'OrmRequired';
  }
}

/** How an ORM-free transaction hands its work the ORM: `sqlFirst`'s takes it on the same connection; a plain `write`'s refuses. */
const TO_ORM = Symbol('qhatu.sql-tx.to-orm');

type OrmBound = { [TO_ORM]?: () => Promise<Tx> };

/**
 * The transaction as a `Tx`, for a part that needs the ORM's unit of work (an entity locked,
 * created or flushed). On `Database.sqlFirst`'s ORM-free transaction the ORM is started on that
 * transaction's own connection, in it, at no round trip (decision 0114); on a plain
 * `Database.write` it throws `OrmRequired`, and that transaction does not commit.
 */
export async function ormOf(tx: Tx | SqlTx): Promise<Tx> {
  if (tx instanceof Tx) return tx;
  const toOrm = (tx as OrmBound)[TO_ORM];
  if (!toOrm) throw new OrmRequired();
  return toOrm();
}

/** The ORM-free transaction of `sqlFirst` whose work is running: a transaction opened inside it starts the ORM on it and joins it. */
const sqlFirstWork = new AsyncSlot<{ open: boolean; toOrm(): Promise<Tx> }>('qhatu.sql-first');

/**
 * Inside the work of `sqlFirst`, the ORM started on its transaction (registered in the work's
 * scope), which a transaction opened there then joins; undefined elsewhere, so that every other
 * call goes on without waiting a tick.
 */
function joinSqlFirst(): Promise<Tx> | undefined {
  const work = sqlFirstWork.get();
  return work?.open ? work.toOrm() : undefined;
}

const OUTBOX_INSERT_SQL = 'insert into core_outbox (id, tenant_id, type, source, data, occurred_at) values (?, ?, ?, ?, ?::jsonb, ?)';

/** The outbox row of `event`: a prepared insert. */
function outboxStatement(event: DomainEvent): SqlStatement {
  return { sql: OUTBOX_INSERT_SQL, params: [event.id, event.tenantId, event.type, event.source, JSON.stringify(event.data), event.time], prepare: true };
}

/** `statements` as a text to ride on a later round trip of their transaction (`pending`: names already being prepared in that round trip). */
function deferredWrites(connection: object, statements: SqlStatement[], prepare: boolean, pending: string[]): DeferredWrites {
  const { text, shown, preparing, results } = batchText(connection, statements, prepare, pending);
  return { text, shown, preparing, count: results.reduce((sum, n) => sum + n, 0) };
}

/** An event of `tenantId` about to be recorded in the outbox. */
function domainEvent<T extends Record<string, unknown>>(type: string, tenantId: string, time: Date, data: T): DomainEvent<T> {
  return { id: randomUUID(), type, source: `/qhatu/${type.split('.')[0]}`, tenantId, time, data };
}

/** Read-only SQL inside a tenant transaction; `?` placeholders, as `em.execute` takes them. */
export interface SqlReader {
  readonly tenantId: string;
  /** `prepare`: prepare it on the connection (see `SqlStatement`); `readOne` does, the others send it as it is. */
  query<R = Record<string, unknown>>(sql: string, params?: unknown[], options?: { prepare?: boolean }): Promise<R[]>;
}

/**
 * A JSON column as a caller's statement read it (`json_agg`, `json_build_object`): the driver hands
 * `json` over parsed, text when the value went through a text parameter or a cache; either way, the value.
 */
export function jsonColumn<T>(column: unknown): T {
  return (typeof column === 'string' ? JSON.parse(column) : column) as T;
}

/**
 * A PostgreSQL array literal of ids for `= any(?::uuid[])`: one text parameter however many ids,
 * which every path takes alike (the ORM's, `read`'s and the literals of `readOne` and `write`).
 * What is not a UUID is left out (it could match no row anyway).
 */
export function uuidArray(ids: Iterable<string>): string {
  return `{${[...ids].filter((id) => isUuid(id)).join(',')}}`;
}

/**
 * A hot path's statement text, built on first use and the same ever after: a prepared statement is
 * named by its text, and what builds it (another plugin's SQL, say) is asked only once every plugin
 * has registered. `statementTexts` keeps one text per variant (`lock` or not).
 */
export function statementText(build: () => string): () => string {
  let text: string | undefined;
  return () => (text ??= build());
}

/** `statementText`, one text per variant. */
export function statementTexts<K extends string | number | boolean>(build: (variant: K) => string): (variant: K) => string {
  const texts = new Map<K, string>();
  return (variant) => {
    let text = texts.get(variant);
    if (text === undefined) texts.set(variant, (text = build(variant)));
    return text;
  };
}

/** `?` → `$1, $2, ...` for the driver (the SQL of readers uses no `?` operator). */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

interface PgClient {
  query(sql: string, params?: unknown[]): Promise<{ rows: unknown[] } | Array<{ rows: unknown[] }>>;
}

/**
 * `?` → each parameter written in as an SQL literal (pg's `escapeLiteral` for text), for a statement
 * sent in the simple protocol, which takes no parameters. Text, finite numbers, booleans, valid
 * dates (ISO 8601, UTC) and null only: anything else is refused rather than guessed at.
 */
function inlined(sql: string, params: unknown[]): string {
  let n = 0;
  const text = sql.replace(/\?/g, () => {
    if (n >= params.length) throw new Error('More placeholders than parameters');
    return literal(params[n++]);
  });
  if (n !== params.length) throw new Error('More parameters than placeholders');
  return ended(text);
}

/**
 * A statement that may be followed by another in the same text (`; ` joins them): one that ends
 * in a `--` comment ends its line, lest the comment swallow the `;` and the statements after it.
 */
function ended(text: string): string {
  return text.includes('--') ? `${text}\n` : text;
}

/** One parameter as an SQL literal (see `inlined`). */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') return quoted(value);
  // In parentheses, a negative number cannot turn `- ?` into a comment.
  if (typeof value === 'number' && Number.isFinite(value)) return `(${value})`;
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (value instanceof Date && Number.isFinite(value.getTime())) return `'${value.toISOString()}'`;
  throw new Error(`A parameter of type ${typeof value} cannot be written into a statement`);
}

/**
 * Text as a string literal, as pg's `escapeLiteral` writes it (quotes doubled; with a backslash,
 * an `E''` literal with backslashes doubled), without building it a character at a time: the
 * placing path writes kilobytes of JSON (lines, addresses, events) into its statements.
 */
function quoted(text: string): string {
  const inside = text.includes("'") ? text.replaceAll("'", "''") : text;
  return text.includes('\\') ? ` E'${inside.replaceAll('\\', '\\\\')}'` : `'${inside}'`;
}

/** How `writeOnce` runs: `before` rides on its BEGIN; `sqlFirst`: an attempt of `Database.sqlFirst`. */
interface WriteOptions {
  before?: BeforeStatement;
  sqlFirst?: boolean;
}

/**
 * A statement `Database.tenant` or `Database.sqlFirst` runs just before its transaction, in a short transaction of its own
 * sent in the round trip of the transaction's BEGIN, whose commit does not wait for the disk (the
 * transaction's own commit, later in the same log, makes it durable): for a counter the transaction
 * must not keep locked while it works (an order's number, decision 0081). BEGIN goes out with the
 * transaction's first statement (decision 0105): the rows reach `rows` before that statement's
 * answer does, and a transaction that ends before sending any statement sends none of it. Inside an
 * open transaction it runs at once, on a connection of its own.
 */
export interface BeforeStatement {
  /** One statement, `?` placeholders; its parameters are written in. */
  sql: string;
  params: unknown[];
  rows: (rows: never[]) => void;
}

/** A statement of `SqlTx.batch`. */
export interface SqlStatement {
  sql: string;
  params?: unknown[];
  /** `SqlTx.later`'s: called with the statement's rows. */
  rows?: (rows: never[]) => void;
  /**
   * Prepare it on the connection (once per connection, under a name of its text): later runs skip
   * parsing and planning, which for a large read cost more than running it. One statement; each
   * parameter's type must follow from the statement (cast it where it does not).
   */
  prepare?: boolean;
}

// The statements prepared on each pooled connection, by name; a name is a digest of the statement's text.
const preparedOn = new WeakMap<object, Set<string>>();
const preparedNames = new Map<string, string>();

/** The name of a statement prepared by the protocol (`Tx.query`), apart from those of `PREPARE`: the driver keeps its own list of them. */
function protocolName(sql: string): string {
  return `${preparedName(sql)}_p`;
}

function preparedName(sql: string): string {
  let name = preparedNames.get(sql);
  if (!name) {
    name = `qhatu_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`;
    preparedNames.set(sql, name);
  }
  return name;
}

/**
 * The text of `statements` for `connection`, and the names it prepares there: a prepared statement
 * is `EXECUTE name(literals)`, preceded by its `PREPARE` the first time on a connection.
 */
function batchText(
  connection: object,
  statements: SqlStatement[],
  allowed: boolean,
  /** Names an earlier text of the same round trip prepares. */
  pending: string[] = [],
): { text: string; shown: () => string; preparing: string[]; results: number[] } {
  const known = preparedOn.get(connection);
  const preparing: string[] = [];
  // How many results each statement gives (a PREPARE gives one of its own).
  const results: number[] = [];
  const texts = statements.map(({ sql, params = [], prepare }) => {
    results.push(1);
    if (!prepare || !allowed) return inlined(sql, params);
    const name = preparedName(sql);
    const run = `EXECUTE ${name}${params.length ? `(${params.map(literal).join(', ')})` : ''}`;
    if (known?.has(name) || preparing.includes(name) || pending.includes(name)) return run;
    preparing.push(name);
    results[results.length - 1] = 2;
    return `PREPARE ${name} AS ${ended(numbered(sql))}; ${run}`;
  });
  // What `statements` listeners see (written only when one listens): each statement with its
  // parameters, a prepared one marked with its name.
  const shown = () =>
    statements.map(({ sql, params = [], prepare }) => (prepare && allowed ? `/* ${preparedName(sql)} */ ` : '') + inlined(sql, params)).join('; ');
  return { text: texts.join('; '), shown, preparing, results };
}

/** Hands each statement that asks for them (`rows`) its rows, out of a simple query's results; `lead`: results before the first statement. */
function deliverRows(statements: SqlStatement[], counts: number[], lead: number, results: { rows: unknown[] } | Array<{ rows: unknown[] }>): void {
  const all = Array.isArray(results) ? results : [results];
  let at = lead;
  statements.forEach((statement, n) => {
    at += counts[n];
    statement.rows?.(all[at - 1].rows as never[]);
  });
}

/**
 * After a failure: a failed statement leaves its transaction open and aborted on the connection,
 * so it is rolled back; `PREPARE` outlives a rollback, but the failed batch may have stopped
 * before it, so the names it was preparing are dropped and prepared again next time.
 */
async function abandon(connection: PgClient, preparing: string[]): Promise<void> {
  await connection.query('ROLLBACK').catch(() => undefined);
  for (const name of preparing) await connection.query(`DEALLOCATE ${name}`).catch(() => undefined);
}

/** Records `names` as prepared on `connection` (their batch went through). */
function knownOn(connection: object, names: string[]): void {
  const known = preparedOn.get(connection) ?? new Set<string>();
  for (const name of names) known.add(name);
  preparedOn.set(connection, known);
}

/** The rows of the last statement of a simple query (one result, or one per statement). */
function rowsOfLast<R>(result: { rows: unknown[] } | Array<{ rows: unknown[] }>): R[] {
  return (Array.isArray(result) ? result[result.length - 1].rows : result.rows) as R[];
}

/**
 * A connection a statement failed on for good is marked as knex marks a broken one, so that the
 * pool drops it rather than lend it to the next transaction (the driver may not have noticed yet).
 */
function markIfLost(connection: unknown, error: unknown): void {
  if (isConnectionLost(error)) (connection as { __knex__disposed?: unknown }).__knex__disposed = error;
}

/** The connection of the open transaction of `em` (its statements go out on it, in order). */
async function connectionOf(em: EntityManager): Promise<PgClient> {
  const trx = em.getTransactionContext() as { client: { acquireConnection(): Promise<PgClient> } } | undefined;
  if (!trx) throw new Error('An open tenant transaction has no connection');
  return trx.client.acquireConnection();
}

/** The results of a knex answer to a simple query, one per statement. */
function resultsOf(done: unknown): Array<{ rows?: unknown[] }> {
  const response = (done as { response?: { rows?: unknown[] } | Array<{ rows?: unknown[] }> } | undefined)?.response;
  return Array.isArray(response) ? response : response ? [response] : [];
}

/** The `lsn` of the last result of a knex answer (`COMMIT; select ... as lsn`). */
function lsnOf(done: unknown): string | undefined {
  return (resultsOf(done).at(-1)?.rows?.[0] as { lsn?: string } | undefined)?.lsn;
}

/** Where the connections of a read come from: the primary's pool, or a replica's. */
interface ConnectionSource {
  acquire(): Promise<PgClient>;
  release(connection: PgClient, failure: unknown): Promise<void>;
}

/** Back to the pool, unless the connection was lost. */
async function release(client: { releaseConnection(connection: unknown): Promise<unknown> }, connection: PgClient, failure: unknown): Promise<void> {
  if (failure !== undefined) markIfLost(connection, failure);
  await client.releaseConnection(connection);
}

interface ActiveTx {
  tx: Tx;
  /** How the transaction entered its tenant. */
  entry?: PendingEntry;
}
const active = new WeakMap<object, ActiveTx>();

@injectable()
export class Database {
  constructor(
    @inject(ORM) readonly orm: MikroORM,
    @inject(EventBus) private readonly bus: EventBus,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(LOGGER) private readonly logger: Logger,
    @inject(CONFIG) config: Pick<QhatuConfig, 'databasePrepare' | 'databasePoolMax' | 'embedded' | 'environment'>,
  ) {
    rideOnBegin(orm.em.getConnection().getKnex().client as KnexClient);
    for (const meta of Object.values(orm.getMetadata().getAll())) {
      if (meta.properties.tenantId?.fieldNames?.[0] === 'tenant_id' && meta.tableName) tenantTables.add(meta.tableName);
    }
    this.prepare = config.databasePrepare;
    const client = orm.em.getConnection().getKnex().client;
    this.primary = {
      acquire: async () => (await client.acquireConnection()) as PgClient,
      release: (connection, failure) => release(client, connection, failure),
    };
    const replicas = config.embedded ? undefined : replicaSettings(config.environment ?? {});
    if (replicas) {
      // Rows read on a replica are parsed as the ORM's connections parse them (dates as text, say).
      const types = (orm.em.getConnection() as unknown as { getConnectionOptions(): { types?: unknown } }).getConnectionOptions().types;
      this.replicas = new Replicas(replicas, async () => (await this.query<{ lsn: string }>(COMMIT_LSN_SQL))[0].lsn, logger, { poolMax: config.databasePoolMax, types });
      void this.replicas.start();
    }
  }

  private readonly primary: ConnectionSource;

  /** The read replicas (`DATABASE_REPLICA_URLS`), when there are (decision 0077). */
  readonly replicas?: Replicas;

  /** Closes the replicas' connections (the primary's are the ORM's). */
  async close(): Promise<void> {
    await this.replicas?.close();
  }

  /**
   * Whether statements asked to be prepared are (`DATABASE_PREPARE`): a prepared statement lives in
   * its connection's session, which the embedded database shares between connections, and which a
   * transaction-mode pooler in front of PostgreSQL does not keep.
   */
  private readonly prepare: boolean;

  private readonly logFailure = (err: unknown) => this.logger.error({ err }, 'after-commit step failed');

  private readonly retryListeners: Array<(reason: 'connection' | 'serialization') => void> = [];

  /** Calls `listener` each time a transaction runs again after a lost connection or a serialization failure (metrics). */
  onRetry(listener: (reason: 'connection' | 'serialization') => void): void {
    this.retryListeners.push(listener);
  }

  private readonly noteRetry = (err: unknown) => {
    const reason = isConnectionLost(err) ? 'connection' : 'serialization';
    this.logger.warn({ err, reason }, 'transaction run again');
    for (const listener of this.retryListeners) listener(reason);
  };

  /**
   * Runs `work` in one transaction of the current tenant: as the RLS role, with the tenant
   * filter on, and with its events emitted after commit. A nested call joins the open one.
   * After a lost connection or a serialization failure `work` may run again (decision 0051): it
   * should only touch the database, or say when it does more (`leavesDatabase()`). Its BEGIN
   * and the tenant's setup go out with its first statement, in the same round trip where that is
   * a prepared read (`tx.query(..., { prepare: true })`) or a `write` joined to it (decision 0105).
   */
  async tenant<T>(work: (tx: Tx) => Promise<T>, tenantId = TenantContext.tenantId(), options: { before?: BeforeStatement } = {}): Promise<T> {
    const joining = joinSqlFirst();
    if (joining) await joining;
    const scope = TenantContext.current();
    const open = scope ? active.get(scope) : undefined;
    if (open && open.tx.tenantId === tenantId) {
      if (options.before) await this.beforeAlone(options.before, tenantId);
      return work(open.tx);
    }
    // A lost connection or a serialization failure runs the whole body again when that is safe (decision 0051).
    const { result, tx } = await retrying(() => this.tenantOnce(work, tenantId, scope, options.before), this.noteRetry);
    await this.bus.committed(tx.pending);
    await tx.runAfterCommit(this.logFailure);
    return result;
  }

  /** One attempt of `tenant()`: the result, and the `Tx` whose events and after-commit steps follow its commit. */
  private async tenantOnce<T>(work: (tx: Tx) => Promise<T>, tenantId: string, scope: RequestScope | undefined, before?: BeforeStatement): Promise<{ result: T; tx: Tx }> {
    let opened: Tx | undefined;
    // A tenant id that is not a UUID enters as a parameter (it finds no rows).
    const valid = isUuid(tenantId);
    const entry: PendingEntry = {
      sql: valid ? enterTenantSql(tenantId) : '',
      sent: !valid,
      tenantId: valid ? tenantId.toLowerCase() : undefined,
      outbox: [],
      deferred: [],
      prepare: this.prepare,
      statements: this.statements,
    };
    if (before && valid) entry.before = { text: inlined(before.sql, before.params), rows: before.rows };
    const replicas = this.replicas;
    if (replicas && valid) {
      const caller = callerKey(tenantId);
      entry.committedAt = (lsn) => replicas.wrote(caller, lsn);
    }
    const result = await beginning.run(entry, () =>
      this.orm.em.fork({ clear: true }).transactional(async (em) => {
        // BEGIN carries the tenant setup (and `before`) on the first statement, unless a knex spelling it otherwise kept it from doing so.
        const rode = entry.sent && entry.connection !== undefined;
        if (!entry.sent) await em.execute(ENTER_TENANT_SQL, [tenantId]);
        entry.sent = true;
        if (before && !rode) await this.beforeAlone(before, tenantId);
        em.setFilterParams('tenant', { tenantId });
        // The events' outbox rows ride on COMMIT where BEGIN rode (its connection is known); else the ORM writes them.
        const tx = (opened = new Tx(em, tenantId, this.clock, [], [], entry.connection ? entry.outbox : undefined, this.prepare ? this.preparedIn(em, entry) : undefined));
        const inner = { ...(scope ?? {}), tenantId };
        active.set(inner, { tx, entry });
        // What runs inside must not mark another transaction's BEGIN (a platform() call, say).
        return beginning.run(undefined, () => TenantContext.run(inner, () => work(tx)));
      }),
    );
    return { result, tx: opened! };
  }

  /**
   * Platform-level work (tenants, API keys, the outbox relay) with the owner's rights; tenant
   * entities need `filters: { tenant: false }` here. With `tenantId`, `tx.publish` records events of that tenant.
   */
  async platform<T>(work: (tx: Tx) => Promise<T>, tenantId = ''): Promise<T> {
    const { result, tx } = await retrying(async () => {
      let opened: Tx | undefined;
      const result = await this.orm.em.fork({ clear: true }).transactional((em) => work((opened = new Tx(em, tenantId, this.clock, []))));
      return { result, tx: opened! };
    }, this.noteRetry);
    await this.bus.committed(tx.pending);
    await tx.runAfterCommit(this.logFailure);
    return result;
  }

  /**
   * The hot read path: a read-only transaction of the tenant on a pooled connection, without the
   * ORM. Entering the tenant rides on BEGIN (one round trip), then each query, then COMMIT.
   * Inside an open `tenant()` transaction it reads on that transaction instead.
   */
  async read<T>(work: (sql: SqlReader) => Promise<T>, tenantId = TenantContext.tenantId()): Promise<T> {
    const joining = joinSqlFirst();
    if (joining) await joining;
    const scope = TenantContext.current();
    const open = scope ? active.get(scope) : undefined;
    if (open && open.tx.tenantId === tenantId) {
      return work({ tenantId, query: (sql, params = []) => open.tx.em.execute(sql, params) });
    }
    return retryingRead(() => this.readOnce(work, tenantId, this.primary), this.noteRetry);
  }

  /**
   * `read` for reads that may be a moment old (storefront catalog pages, lists, searches,
   * analytics): on a read replica when one is configured, up, within the set lag and past the
   * caller's last commit (decision 0077), else as `read` on the primary. A replica that fails the
   * read is skipped from then on and the read runs on the primary: the caller never sees it.
   */
  async readMayLag<T>(work: (sql: SqlReader) => Promise<T>, tenantId = TenantContext.tenantId()): Promise<T> {
    const joining = joinSqlFirst();
    if (joining) await joining;
    const replica = this.replicaFor(tenantId);
    if (!replica) return this.read(work, tenantId);
    try {
      return await this.readOnce(work, tenantId, this.replicaSource(replica));
    } catch (error) {
      if (!this.leftReplica(replica, error)) throw error;
      return this.read(work, tenantId);
    }
  }

  /** `readOne` for reads that may be a moment old, as `readMayLag` routes them. */
  async readOneMayLag<T>(work: (sql: SqlReader) => Promise<T>, tenantId = TenantContext.tenantId()): Promise<T> {
    const joining = joinSqlFirst();
    if (joining) await joining;
    const replica = this.replicaFor(tenantId);
    if (!replica) return this.readOne(work, tenantId);
    try {
      return await this.readOneOnce(work, tenantId, this.replicaSource(replica));
    } catch (error) {
      if (!this.leftReplica(replica, error)) throw error;
      return this.readOne(work, tenantId);
    }
  }

  /** The replica a read of the current caller may take, if any; never inside an open transaction of the tenant. */
  private replicaFor(tenantId: string): Replica | undefined {
    if (!this.replicas) return undefined;
    const scope = TenantContext.current();
    const open = scope ? active.get(scope) : undefined;
    if (open && open.tx.tenantId === tenantId) return undefined;
    return this.replicas.pick(callerKey(tenantId));
  }

  private replicaSource(replica: Replica): ConnectionSource {
    return {
      acquire: () => replica.pool.connect() as Promise<PgClient & pg.PoolClient>,
      // A connection a statement lost is destroyed rather than lent again.
      release: async (connection, failure) => (connection as pg.PoolClient).release(failure !== undefined && isConnectionLost(failure) ? (failure as Error) : undefined),
    };
  }

  /** Whether a read that failed on `replica` runs again on the primary: when the failure says nothing about the read (the replica went away, or cancelled it to replay). */
  private leftReplica(replica: Replica, error: unknown): boolean {
    const away = isTransient(error) || (error instanceof Error && /timeout/i.test(error.message));
    if (!away) return false;
    this.replicas?.failed(replica, error);
    this.logger.warn({ err: error, replica: replica.name }, 'read on a replica failed: run on the primary');
    return true;
  }

  private async readOnce<T>(work: (sql: SqlReader) => Promise<T>, tenantId: string, source: ConnectionSource): Promise<T> {
    const enter = enterTenantSql(tenantId);
    const connection = await source.acquire();
    const run = async (sql: string, params?: unknown[]) => {
      this.statements.emit('statement', sql, params);
      return ((await connection.query(sql, params)) as { rows: unknown[] }).rows;
    };
    let failure: unknown;
    try {
      // The tenant id is a checked UUID: safe to write into the statement, which lets BEGIN carry it.
      await run(`BEGIN READ ONLY; ${enter}`);
      const result = await work({ tenantId, query: (sql, params = []) => run(numbered(sql), params) as never });
      await run('COMMIT');
      return result;
    } catch (error) {
      failure = error;
      await run('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      await source.release(connection, failure);
    }
  }

  /**
   * `read` for work that runs exactly one query (a product by id, say): BEGIN READ ONLY, the tenant
   * context, the query with its parameters written in as literals, and COMMIT go out as one simple
   * query, one round trip in all; row-level security and the read-only transaction hold as in
   * `read`. A second query in `work` is refused. Inside an open `tenant()` transaction it reads on
   * that transaction.
   */
  async readOne<T>(work: (sql: SqlReader) => Promise<T>, tenantId = TenantContext.tenantId()): Promise<T> {
    const joining = joinSqlFirst();
    if (joining) await joining;
    const scope = TenantContext.current();
    const open = scope ? active.get(scope) : undefined;
    if (open && open.tx.tenantId === tenantId) return this.read(work, tenantId);
    return retryingRead(() => this.readOneOnce(work, tenantId, this.primary), this.noteRetry);
  }

  private async readOneOnce<T>(work: (sql: SqlReader) => Promise<T>, tenantId: string, source: ConnectionSource): Promise<T> {
    const enter = enterTenantSql(tenantId);
    let connection: PgClient | undefined;
    let sent = false;
    let preparing: string[] = [];
    let failure: unknown;
    try {
      return await work({
        tenantId,
        query: async <R>(sql: string, params: unknown[] = [], options: { prepare?: boolean } = {}) => {
          if (sent) throw new Error('readOne runs one query; use read for more');
          sent = true;
          connection = await source.acquire();
          const built = batchText(connection, [{ sql, params, prepare: options.prepare }], this.prepare);
          preparing = built.preparing;
          if (this.statements.listenerCount('statement') > 0) this.statements.emit('statement', `BEGIN READ ONLY; ${enter}; ${built.shown()}; COMMIT`);
          const results = await connection.query(`BEGIN READ ONLY; ${enter}; ${built.text}; COMMIT`);
          if (preparing.length > 0) knownOn(connection, preparing);
          preparing = [];
          // BEGIN, the tenant, (PREPARE,) the query, COMMIT: the query's rows are the last but one.
          return (Array.isArray(results) ? results[results.length - 2].rows : []) as R[];
        },
      });
    } catch (error) {
      failure = error;
      if (connection) await abandon(connection, preparing);
      throw error;
    } finally {
      if (connection) await source.release(connection, failure);
    }
  }

  /**
   * The hot write path: a tenant transaction on a pooled connection, without the ORM's unit of
   * work. The first read carries BEGIN and the tenant context (one round trip, its parameters
   * written in as in `readOne`); further reads are one round trip each; the queued writes, the
   * outbox rows and COMMIT go out as one simple query at the end. A failure anywhere rolls the
   * whole transaction back. Row-level security holds as in `tenant()`, and events are emitted
   * after commit as there. Inside an open `tenant()` transaction of the same tenant it works on
   * that transaction (the queued writes run when `work` ends; with `deferred`, they go out with the
   * transaction's next statement instead, its COMMIT when it has no other: a round trip saved, for
   * writes whose failure nothing in the transaction catches, as it then fails that statement).
   */
  async write<T>(work: (sql: SqlTx) => Promise<T>, tenantId = TenantContext.tenantId(), options: { deferred?: boolean } = {}): Promise<T> {
    const joining = joinSqlFirst();
    if (joining) await joining;
    const scope = TenantContext.current();
    const open = scope ? active.get(scope) : undefined;
    if (open && open.tx.tenantId === tenantId) return this.writeOn(open.tx, work, options.deferred ? open.entry : undefined);
    return this.writeAlone(work, tenantId);
  }

  /**
   * A tenant transaction for work that most often needs no ORM (a hot path) but may: it runs as
   * `write` (no unit of work; its BEGIN carries `before` in a transaction of its own, as `tenant()`
   * sends it), and where a part of it needs the ORM (`ormOf`, or a transaction opened inside it)
   * the ORM is started on the same connection, in the same transaction, at no round trip: its unit
   * of work is flushed before COMMIT, the queued writes go out with COMMIT as always (after every
   * read, the ORM's too), and its events are the transaction's. Work written for both takes `Tx | SqlTx`.
   */
  async sqlFirst<T>(work: (tx: Tx | SqlTx) => Promise<T>, tenantId = TenantContext.tenantId(), options: { before?: BeforeStatement } = {}): Promise<T> {
    const joining = joinSqlFirst();
    if (joining) await joining;
    const scope = TenantContext.current();
    const open = scope ? active.get(scope) : undefined;
    if (open && open.tx.tenantId === tenantId) return this.tenant(work, tenantId, options);
    return this.writeAlone(work, tenantId, { before: options.before, sqlFirst: true });
  }

  /** `write` on a transaction of its own, run again after a lost connection or a serialization failure. */
  private async writeAlone<T>(work: (sql: SqlTx) => Promise<T>, tenantId: string, options: WriteOptions = {}): Promise<T> {
    const { result, pending, committed } = await retrying((attempt) => this.writeOnce(work, tenantId, attempt, options), this.noteRetry);
    await this.bus.committed(pending);
    for (const fn of committed) await Promise.resolve().then(fn).catch(this.logFailure);
    return result;
  }

  /** One attempt of `write()`: the result, and the events and after-commit steps that follow its commit. */
  private async writeOnce<T>(work: (sql: SqlTx) => Promise<T>, tenantId: string, attempt: Attempt, options: WriteOptions) {
    // `before` rides on BEGIN in a transaction of its own that does not wait for the disk, as `tenant()` sends it.
    const enter = options.before
      ? `${enterTenantSql(tenantId)}; SET LOCAL synchronous_commit = off; ${inlined(options.before.sql, options.before.params)}; COMMIT; BEGIN; ${enterTenantSql(tenantId)}`
      : enterTenantSql(tenantId);
    // BEGIN, the tenant, and with `before` its statement, its COMMIT, BEGIN and the tenant again.
    const opening = options.before ? 7 : 2;
    const client = this.orm.em.getConnection().getKnex().client;
    let connection: PgClient | undefined;
    let begun = false;
    // The ORM started on this transaction (`sqlFirst`), once a part of the work asked for it.
    let orm: OrmOnWrite | undefined;
    // A plain write's work asked for the ORM (`ormOf` threw): whatever caught that, it does not commit.
    let refused = false;
    const writes: SqlStatement[] = [];
    const pending: DomainEvent[] = [];
    const committed: Array<() => Promise<void> | void> = [];
    // Names this transaction's statements prepare on the connection; known there once sent without error.
    let preparing: string[] = [];
    const send = async (text: string, shown: () => string = () => text) => {
      connection ??= (await client.acquireConnection()) as PgClient;
      if (this.statements.listenerCount('statement') > 0) this.statements.emit('statement', shown());
      return connection.query(text);
    };
    const run = async (statements: SqlStatement[]) => {
      connection ??= (await client.acquireConnection()) as PgClient;
      // Writes a `write` joined to the ORM deferred (decision 0102) go first.
      const waiting = orm && orm.entry.deferred.length > 0 ? orm.entry : undefined;
      const built = batchText(connection, statements, this.prepare, waiting ? preparingIn(waiting.deferred) : []);
      const opens = !begun;
      begun = true;
      preparing = built.preparing;
      const results = waiting
        ? await sendAfterDeferred(connection, waiting, built)
        : await (opens ? send(`BEGIN; ${enter}; ${built.text}`, () => `BEGIN; ${enter}; ${built.shown()}`) : send(built.text, built.shown));
      if (preparing.length > 0) knownOn(connection, preparing);
      preparing = [];
      if (opens && options.before) options.before.rows((results as Array<{ rows: unknown[] }>)[3].rows as never[]);
      // What opened the transaction comes first when this round trip did.
      if (statements.some((st) => st.rows)) deliverRows(statements, built.results, opens ? opening : 0, results);
      return results;
    };
    const batch = async <R>(statements: SqlStatement[]) => rowsOfLast<R>(await run(statements));
    const sql: SqlTx = {
      tenantId,
      now: () => this.clock.now(),
      query: (text, params = [], options = {}) => batch([{ sql: text, params, prepare: options.prepare }]),
      batch,
      later: (text, params = [], options = {}) => void writes.push({ sql: text, params, prepare: options.prepare, rows: options.rows as SqlStatement['rows'] }),
      publish: (type, data) => {
        const event = domainEvent(type, tenantId, this.clock.now(), data);
        writes.push(outboxStatement(event as DomainEvent));
        pending.push(event as DomainEvent);
        return event;
      },
      afterCommit: (fn) => void committed.push(fn),
    };
    // `sqlFirst`'s work runs in a scope of its own: the ORM started on this transaction is registered there, for what opens a transaction inside.
    const scope: (RequestScope & { tenantId: string }) | undefined = options.sqlFirst ? { ...TenantContext.current(), tenantId } : undefined;
    let starting: Promise<OrmOnWrite> | undefined;
    const toOrm = async (): Promise<Tx> => {
      if (!scope) {
        refused = true;
        throw new OrmRequired();
      }
      starting ??= (async () => {
        // The transaction begins now if nothing began it yet (its `before` with it).
        if (!begun) await run([]);
        return (orm = await this.ormOn(connection!, scope, pending, committed));
      })();
      return (await starting).tx;
    };
    (sql as OrmBound)[TO_ORM] = toOrm;
    let failure: unknown;
    try {
      const result = await (scope ? this.sqlFirstWork(sql, work, toOrm, scope) : work(sql));
      if (refused) throw new OrmRequired();
      if (orm) {
        // The unit of work's changes first (in the work's scope, where its statements find the transaction), then the events its `Tx` recorded ride with the queued writes.
        const { tx } = orm;
        await TenantContext.run(scope!, () => tx.em.flush());
        writes.push(...orm.outbox.splice(0).map(outboxStatement));
      }
      // From here a lost connection may have committed the transaction: it is not run again.
      attempt.commitSent = begun || writes.length > 0;
      if (writes.length > 0 || (orm && orm.entry.deferred.length > 0)) {
        // With read replicas, the COMMIT's round trip also answers where the primary's WAL stands after it (read-your-writes).
        const noted = this.replicas && { sql: COMMIT_LSN_SQL, rows: (rows: Array<{ lsn?: string }>) => this.replicas?.wrote(callerKey(tenantId), rows[0]?.lsn) };
        await run([...writes, { sql: 'COMMIT' }, ...(noted ? [noted as SqlStatement] : [])]);
      } else if (begun && this.replicas) {
        // Its statements may have written (an update in `query`): the caller's reads wait for it as for any write.
        this.replicas.wrote(callerKey(tenantId), rowsOfLast<{ lsn?: string }>(await send(`COMMIT; ${COMMIT_LSN_SQL}`))[0]?.lsn);
      } else if (begun) await send('COMMIT');
      return { result, pending, committed };
    } catch (error) {
      failure = error;
      if (neverSent(error)) attempt.commitSent = false;
      if (connection && begun) await abandon(connection, preparing);
      throw error;
    } finally {
      if (connection) await release(client, connection, failure);
    }
  }

  /**
   * The ORM on an ORM-free transaction (`sqlFirst`), on its connection, in it: a knex transaction
   * made on that connection, whose BEGIN is answered without going out (it began already) and which
   * knex never ends (the write commits or rolls back), and a fork of the entity manager bound to it.
   * The transaction's queued writes stay queued for its COMMIT, after every read (the ORM's too);
   * its events and after-commit steps are the transaction's.
   */
  private async ormOn(
    connection: PgClient,
    scope: RequestScope & { tenantId: string },
    pending: DomainEvent[],
    committed: Array<() => Promise<void> | void>,
  ): Promise<OrmOnWrite> {
    const tenantId = scope.tenantId;
    const entry: PendingEntry = { sql: '', sent: true, begun: true, tenantId: tenantId.toLowerCase(), connection, outbox: [], deferred: [], prepare: this.prepare, statements: this.statements };
    const trx = await beginning.run(entry, () => this.orm.em.getConnection().getKnex().transaction({ connection }));
    const em = this.orm.em.fork({ clear: true });
    em.setTransactionContext(trx);
    em.setFilterParams('tenant', { tenantId });
    const outbox: DomainEvent[] = [];
    const tx = new Tx(em, tenantId, this.clock, pending, committed, outbox);
    active.set(scope, { tx, entry });
    return { tx, entry, outbox };
  }

  /** `work` of `sqlFirst`, in a scope of its own: a transaction opened inside it starts the ORM on this one and joins it. */
  private async sqlFirstWork<T>(sql: SqlTx, work: (sql: SqlTx) => Promise<T>, toOrm: () => Promise<Tx>, scope: RequestScope): Promise<T> {
    const running = { open: true, toOrm };
    try {
      return await TenantContext.run(scope, () => sqlFirstWork.run(running, () => work(sql)));
    } finally {
      running.open = false;
    }
  }

  /** `before` in a transaction of its own on a pooled connection (never joined to one open in this scope), its commit not waiting for the disk. */
  private async beforeAlone(before: BeforeStatement, tenantId: string): Promise<void> {
    await TenantContext.run({ ...TenantContext.current(), tenantId }, () =>
      this.write(async (sql) => {
        sql.later('set local synchronous_commit = off');
        sql.later(before.sql, before.params, { rows: before.rows as SqlStatement['rows'] });
      }, tenantId),
    );
  }

  /** `Tx.query` with `prepare` in the transaction of `em`: a named statement of the protocol, which the driver parses once per connection. */
  private preparedIn(em: EntityManager, entry: PendingEntry) {
    return async <R>(sql: string, params: unknown[]): Promise<R[]> => {
      const connection = (await connectionOf(em)) as unknown as { query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: R[] }> };
      if (entry.connection === connection && entry.deferred.length > 0) {
        // What waits to go out (the transaction's opening, deferred writes) and this statement, as `PREPARE`/`EXECUTE`: one round trip.
        return rowsOfLast<R>(await sendAfterDeferred(connection, entry, batchText(connection, [{ sql, params, prepare: true }], true, preparingIn(entry.deferred))));
      }
      if (this.statements.listenerCount('statement') > 0) this.statements.emit('statement', `/* ${protocolName(sql)} */ ${inlined(sql, params)}`);
      try {
        return (await connection.query({ name: protocolName(sql), text: numbered(sql), values: params })).rows;
      } catch (error) {
        markIfLost(connection, error);
        throw error;
      }
    };
  }

  /** `write` joining an open `tenant()` transaction: on its connection, events on it, queued writes when `work` ends. */
  private async writeOn<T>(tx: Tx, work: (sql: SqlTx) => Promise<T>, deferTo?: PendingEntry): Promise<T> {
    const connection = await connectionOf(tx.em);
    const send = async (text: string) => {
      // What waits to go out on the connection (the transaction's opening, deferred writes) goes first, in the same round trip.
      const entry = entryOn(connection);
      if (entry && entry.deferred.length > 0) return sendAfterDeferred(connection, entry, { text, shown: () => text, preparing: [] });
      this.statements.emit('statement', text);
      return connection.query(text);
    };
    const writes: SqlStatement[] = [];
    const result = await work({
      tenantId: tx.tenantId,
      now: tx.now,
      query: async <R>(text: string, params: unknown[] = []) => rowsOfLast<R>(await send(inlined(text, params))),
      // Prepared statements are for the pooled path; here each statement is written in.
      batch: async <R>(statements: SqlStatement[]) => rowsOfLast<R>(await send(statements.map((st) => inlined(st.sql, st.params ?? [])).join('; '))),
      later: (text, params = [], options = {}) => void writes.push({ sql: text, params, prepare: options.prepare, rows: options.rows as SqlStatement['rows'] }),
      publish: (type, data) => tx.publish(type, data),
      afterCommit: (fn) => tx.afterCommit(fn),
    });
    if (writes.length > 0) {
      if (deferTo?.connection === connection && writes.every((st) => !st.rows)) {
        // Shown with the statement it rides on; prepared where asked, as on the pooled path (known once it went through).
        deferTo.deferred.push(deferredWrites(connection, writes, this.prepare, preparingIn(deferTo.deferred)));
        return result;
      }
      const results = await send(writes.map((st) => inlined(st.sql, st.params ?? [])).join('; '));
      deliverRows(writes, writes.map(() => 1), 0, results);
    }
    return result;
  }

  /**
   * Every round trip `read`, `readOne` and `write` send (the ORM's own are on knex's `query`
   * event); tests count them. A prepared statement shows as its text with the parameters written
   * in, after a comment with its name.
   */
  readonly statements = new EventEmitter();

  /** A read outside any transaction, as the owner; for health checks and lookups by key. */
  async query<R = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<R[]> {
    return this.orm.em.getConnection().execute<R[]>(sql, params);
  }
}
