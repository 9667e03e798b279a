import { Queue, Worker, createPostgresBackend, withBackend, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { DependencyContainer } from 'tsyringe';
import { TenantContext } from '../context.js';
import type { TxReader } from '../db/database.js';
import { leavesDatabase } from '../db/retry.js';
import { jobTraceContext, traceJob } from '../observability/tracing.js';

export interface JobContext {
  /** The tenant the job was queued for, if any; the handler runs inside its context. */
  tenantId?: string;
  /** The app's container, to reach the plugin's services. */
  container: DependencyContainer;
  attempt: number;
  log: Logger;
}

export type JobHandler<T = any> = (data: T, ctx: JobContext) => Promise<unknown> | unknown;

export type JobDefinition<T = any> =
  | JobHandler<T>
  | { handler: JobHandler<T>; attempts?: number; backoffMs?: number; concurrency?: number };

export interface QueueOptions {
  databaseUrl: string;
  redisUrl?: string;
  /** The Redis key prefix; PostgreSQL queues live in the database's own schema. */
  prefix?: string;
  /** PGlite serves one session: a worker also looks for jobs every few seconds, should a notification not reach it. */
  embedded: boolean;
  logger: Logger;
  /** A running job's lock; stalled jobs (their worker gone) are looked for as often. Default 30 s. */
  lockMs?: number;
}

/** Told of each job run that ends in this process's workers (metrics). */
export type JobRunListener = (name: string, outcome: 'completed' | 'failed', seconds?: number) => void;

export const QUEUE_NAME = 'qhatu';
export const BULLMQ_SCHEMA = 'bullmq';

/** Work that has waited with nothing running (readiness): the queue, its figures, and for how long. */
export interface QueueStall {
  queue: string;
  waiting: number;
  seconds: number;
}

/**
 * The PostgreSQL queue's own function for adding one job (what `Queue.add` calls), with the
 * arguments a job without parent, deduplication, scheduler or priority takes: queue, id, name,
 * data, options, priority, delay, timestamp, attempts, then the parent's, deduplication's and
 * scheduler's (none) and LIFO (no). It inserts `on conflict (queue, id) do nothing` and notifies
 * the workers, which hear it when the transaction commits.
 */
const ADD_JOB_SQL = `select ${BULLMQ_SCHEMA}.add_job(?, ?, ?, ?::jsonb, ?::jsonb, 0, ?, ?, ?, null, null, null, null, null, false) as id`;

/** Where the embedded database cannot wake a worker, it looks for new jobs at least this often (seconds). */
const EMBEDDED_WAIT_S = 5;

interface Envelope {
  tenantId?: string;
  data: unknown;
  /** The trace that queued the job (W3C trace context), when tracing is on. */
  trace?: Record<string, string>;
}

/** Background jobs on BullMQ: PostgreSQL (the same database) by default, Redis when REDIS_URL is set. */
export class Jobs {
  private readonly handlers = new Map<string, { handler: JobHandler; attempts: number; backoffMs: number }>();
  private queue?: Queue;
  private worker?: Worker;
  private redis?: Redis;
  private readonly classes: { Queue: typeof Queue; Worker: typeof Worker };
  private readonly connection: unknown;

  private container?: DependencyContainer;
  private readonly runListeners: JobRunListener[] = [];
  /** The job at the head of the queue as `stall` last saw it, and since when it has waited. */
  private watched?: { head: string; since: number };

  constructor(private readonly options: QueueOptions) {
    if (options.redisUrl) {
      this.redis = new Redis(options.redisUrl, { maxRetriesPerRequest: null, lazyConnect: true });
      this.classes = { Queue, Worker };
      this.connection = this.redis;
    } else {
      const pgClasses = withBackend(createPostgresBackend) as unknown as { Queue: typeof Queue; Worker: typeof Worker };
      this.classes = pgClasses;
      this.connection = { connectionString: options.databaseUrl, schema: BULLMQ_SCHEMA, migrate: false, max: 4 };
    }
  }

  private prefixOption(): { prefix?: string } {
    return this.redis && this.options.prefix ? { prefix: this.options.prefix } : {};
  }

  /** The container handed to every handler. */
  attach(container: DependencyContainer): void {
    this.container = container;
  }

  /** Calls `listener` as each job run ends in this process. */
  onRun(listener: JobRunListener): void {
    this.runListeners.push(listener);
  }

  private ran(job: Job | undefined, outcome: 'completed' | 'failed'): void {
    if (!job) return;
    const seconds = job.processedOn && job.finishedOn ? (job.finishedOn - job.processedOn) / 1000 : undefined;
    for (const listener of this.runListeners) listener(job.name, outcome, seconds);
  }

  define(name: string, definition: JobDefinition): void {
    if (this.handlers.has(name)) throw new Error(`Job "${name}" is defined twice`);
    const d = typeof definition === 'function' ? { handler: definition } : definition;
    this.handlers.set(name, { handler: d.handler, attempts: d.attempts ?? 5, backoffMs: d.backoffMs ?? 1000 });
  }

  private getQueue(): Queue {
    if (!this.queue) {
      this.queue = new this.classes.Queue(QUEUE_NAME, { connection: this.connection as never, ...this.prefixOption() });
      // A lost connection of the queue's pool is an 'error' event: unheard, it would end the process.
      this.queue.on('error', (err) => this.options.logger.warn({ err }, 'job queue connection error'));
    }
    return this.queue;
  }

  /** The options BullMQ stores with a job of `name` (`add` and `addIn` alike). */
  private jobOptions(name: string, opts: { delayMs?: number; jobId?: string }) {
    const def = this.handlers.get(name);
    if (!def) throw new Error(`Job "${name}" is not defined`);
    // BullMQ keeps ':' for its own keys: a custom id with one is refused by the queue.
    if (opts.jobId?.includes(':')) throw new Error(`Job id "${opts.jobId}" must not contain ':'`);
    return {
      attempts: def.attempts,
      backoff: { type: 'exponential', delay: def.backoffMs },
      delay: opts.delayMs,
      jobId: opts.jobId,
      removeOnComplete: { age: 24 * 3600, count: 1000 },
      removeOnFail: { age: 7 * 24 * 3600 },
    };
  }

  private envelope(data: unknown): Envelope {
    return { tenantId: TenantContext.current()?.tenantId, data, trace: jobTraceContext() };
  }

  /**
   * Queues a job; inside a tenant context the job runs in that tenant. The job is queued at once,
   * whatever becomes of a transaction this runs in (which is then not run again after a lost
   * connection); `addIn` queues it with the transaction.
   */
  async add(name: string, data: unknown, opts: { delayMs?: number; jobId?: string } = {}): Promise<string | undefined> {
    leavesDatabase();
    const job = await this.getQueue().add(name, this.envelope(data), this.jobOptions(name, opts));
    return job.id;
  }

  /**
   * Queues a job with `tx`, a transaction with the owner's rights (the outbox relay's, `platform()`;
   * a tenant's has none on the queue's tables: publish an event and `OutboxRelay.queueOn` it).
   * On the PostgreSQL queue it is inserted in `tx` (queued if and only if
   * `tx` commits; the workers hear of it at the commit); on Redis it is queued now, before `tx`
   * commits, and `jobId` makes the repeat after a rollback harmless (a job of that id is not queued
   * twice). Either way a failure to queue it fails `tx`.
   */
  async addIn(tx: TxReader, name: string, data: unknown, opts: { jobId: string; delayMs?: number }): Promise<void> {
    const options = this.jobOptions(name, opts);
    if (this.redis) {
      await this.getQueue().add(name, this.envelope(data), options);
      return;
    }
    await tx.query(ADD_JOB_SQL, [
      QUEUE_NAME,
      opts.jobId,
      name,
      JSON.stringify(this.envelope(data)),
      JSON.stringify(options),
      opts.delayMs ?? 0,
      Date.now(),
      options.attempts,
    ]);
  }

  /**
   * Queues `name` every `everyMs`, now and then each interval, once per interval slot however many
   * worker processes ask (the slot names the job); for a plugin's `background` hook, which returns
   * the stop function this gives back. A queue that is down is logged, and the next slot tries again.
   */
  every(name: string, everyMs: number): () => void {
    const queue = () =>
      void this.add(name, {}, { jobId: `${name}-${Math.floor(Date.now() / everyMs)}` }).catch((err) =>
        this.options.logger.warn({ err, job: name }, 'could not queue a periodic job'),
      );
    const timer = setInterval(queue, everyMs);
    timer.unref();
    queue();
    return () => clearInterval(timer);
  }

  /** Starts processing in this process. */
  async startWorkers(concurrency = 4): Promise<void> {
    if (this.worker) return;
    // The embedded database's notifications reach the worker (see `startEmbeddedDatabase`); this bounds a wait if one does not.
    const Worker = this.options.embedded ? waitingAtMost(this.classes.Worker, EMBEDDED_WAIT_S) : this.classes.Worker;
    this.worker = new Worker(QUEUE_NAME, (job) => this.process(job), {
      connection: this.connection as never,
      ...this.prefixOption(),
      concurrency,
      lockDuration: this.options.lockMs ?? 30_000,
      stalledInterval: this.options.lockMs ?? 30_000,
      // A job stalls when its worker died or lost its connection: handlers are safe to run again, so it runs again.
      maxStalledCount: 5,
      ...(this.options.embedded ? { drainDelay: 1 } : {}),
    });
    this.worker.on('failed', (job, err) => {
      this.options.logger.warn({ job: job?.name, id: job?.id, attempt: job?.attemptsMade, err }, 'job failed');
      this.ran(job, 'failed');
    });
    this.worker.on('completed', (job) => this.ran(job, 'completed'));
    this.worker.on('error', (err) => this.options.logger.error({ err }, 'job worker error'));
  }

  get working(): boolean {
    return Boolean(this.worker);
  }

  private async process(job: Job): Promise<unknown> {
    const def = this.handlers.get(job.name);
    if (!def) throw new Error(`No handler for job "${job.name}"`);
    const { tenantId, data, trace } = job.data as Envelope;
    if (!this.container) throw new Error('Jobs run only once the app is built');
    const ctx: JobContext = {
      tenantId,
      container: this.container,
      attempt: job.attemptsMade + 1,
      log: this.options.logger.child({ job: job.name }),
    };
    return traceJob({ name: job.name, id: job.id, attempt: ctx.attempt, tenantId, queuedBy: trace }, async () =>
      TenantContext.run({ tenantId }, () => def.handler(data, ctx)),
    );
  }

  /** How many jobs wait, run, wait for their time, or ran out of attempts (every process's). */
  async counts(): Promise<Record<string, number>> {
    return this.getQueue().getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'failed');
  }

  /**
   * For readiness: work that has waited `windowMs` or more with nothing running (every process's
   * workers), else undefined; it fails when the queue's store does not answer. How long is what
   * this process has seen of the job at the head of the queue; a job never run nor delayed has
   * waited since it was queued.
   */
  async stall(windowMs: number, now = Date.now()): Promise<QueueStall | undefined> {
    const queue = this.getQueue();
    const counts = await queue.getJobCounts('waiting', 'prioritized', 'active');
    const waiting = (counts.waiting ?? 0) + (counts.prioritized ?? 0);
    // The oldest waiting job, the next to run: the last of the list newest first (how both queues answer it without `asc`).
    const last = (counts.waiting ?? 0) - 1;
    const [head] = last >= 0 && !counts.active ? await queue.getJobs(['waiting'], last, last) : [];
    if (!head?.id) {
      this.watched = undefined;
      return undefined;
    }
    if (this.watched?.head !== head.id) {
      const untouched = !head.attemptsStarted && !head.attemptsMade && !head.opts.delay;
      this.watched = { head: head.id, since: untouched ? Math.min(head.timestamp, now) : now };
    }
    const waited = now - this.watched.since;
    return waited >= windowMs ? { queue: QUEUE_NAME, waiting, seconds: Math.floor(waited / 1000) } : undefined;
  }

  async close(): Promise<void> {
    await this.worker?.close();
    await this.queue?.close();
    this.worker = undefined;
    this.queue = undefined;
    if (this.redis) this.redis.disconnect();
  }
}

/** `Worker` that waits for a new job at most `seconds` at a time, however far off the next delayed job is. */
function waitingAtMost(base: typeof Worker, seconds: number): typeof Worker {
  return class extends base {
    override get maximumBlockTimeout(): number {
      return Math.min(super.maximumBlockTimeout, seconds);
    }
  };
}
