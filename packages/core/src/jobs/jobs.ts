import { Queue, Worker, createPostgresBackend, withBackend, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { DependencyContainer } from 'tsyringe';
import { TenantContext } from '../context.js';
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
  /** PGlite serves one session: workers poll instead of waiting for notifications. */
  embedded: boolean;
  logger: Logger;
}

/** Told of each job run that ends in this process's workers (metrics). */
export type JobRunListener = (name: string, outcome: 'completed' | 'failed', seconds?: number) => void;

export const QUEUE_NAME = 'qhatu';
export const BULLMQ_SCHEMA = 'bullmq';

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
    this.queue ??= new this.classes.Queue(QUEUE_NAME, { connection: this.connection as never, ...this.prefixOption() });
    return this.queue;
  }

  /** Queues a job; inside a tenant context the job runs in that tenant. */
  async add(name: string, data: unknown, opts: { delayMs?: number; jobId?: string } = {}): Promise<string | undefined> {
    const def = this.handlers.get(name);
    if (!def) throw new Error(`Job "${name}" is not defined`);
    // BullMQ keeps ':' for its own keys: a custom id with one is refused by the queue.
    if (opts.jobId?.includes(':')) throw new Error(`Job id "${opts.jobId}" must not contain ':'`);
    const envelope: Envelope = { tenantId: TenantContext.current()?.tenantId, data, trace: jobTraceContext() };
    const job = await this.getQueue().add(name, envelope, {
      attempts: def.attempts,
      backoff: { type: 'exponential', delay: def.backoffMs },
      delay: opts.delayMs,
      jobId: opts.jobId,
      removeOnComplete: { age: 24 * 3600, count: 1000 },
      removeOnFail: { age: 7 * 24 * 3600 },
    });
    return job.id;
  }

  /** Starts processing in this process. */
  async startWorkers(concurrency = 4): Promise<void> {
    if (this.worker) return;
    this.worker = new this.classes.Worker(QUEUE_NAME, (job) => this.process(job), {
      connection: this.connection as never,
      ...this.prefixOption(),
      concurrency,
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

  /** For readiness: the queue's store answers. */
  async ping(): Promise<void> {
    await this.getQueue().getJobCounts('waiting');
  }

  async close(): Promise<void> {
    await this.worker?.close();
    await this.queue?.close();
    this.worker = undefined;
    this.queue = undefined;
    if (this.redis) this.redis.disconnect();
  }
}
