import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Logger } from 'pino';

/** What the app's metrics read at scrape time: the pool, the queue and the outbox. */
export interface MetricSources {
  pool(): { used: number; idle: number; pendingAcquires: number; max: number } | undefined;
  queueCounts(): Promise<Record<string, number>>;
  outbox(): Promise<{ pending: number; lagSeconds: number }>;
  /** The process's in-memory caches, by name: what they hold against their budget. */
  caches?(): Array<{ cache: string; bytes: number; maxBytes: number; entries: number; stores: number }>;
}

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed'] as const;
/** A scrape must answer before Prometheus gives up on it (10 s by default), even with the database down. */
const COLLECT_TIMEOUT_MS = 3000;
/** The route label of a request no route matched: its raw URL would make a series per address. */
export const UNMATCHED_ROUTE = 'unmatched';

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// Process figures (CPU, memory, event loop, GC) are the process's, whatever app runs in it: one registry for all.
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * The metrics of one app, in a registry of its own (several apps may share a process): HTTP
 * requests by route pattern and status, the database pool, the job queue, the outbox, and the
 * counters plugins declare (`counter`). No label ever carries a tenant id or a raw URL.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status_code'>;
  private readonly latency: Histogram<'method' | 'route' | 'status_code'>;
  private readonly jobRuns: Counter<'job' | 'outcome'>;
  private readonly jobDuration: Histogram<'job' | 'outcome'>;

  constructor(private readonly logger: Logger) {
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'qhatu_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status code',
      labelNames: ['method', 'route', 'status_code'],
      registers,
    });
    this.latency = new Histogram({
      name: 'qhatu_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by method, route pattern and status code',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.jobRuns = new Counter({
      name: 'qhatu_jobs_total',
      help: 'Job runs finished in this process, by job and outcome (completed, or failed: each failed attempt counts)',
      labelNames: ['job', 'outcome'],
      registers,
    });
    this.jobDuration = new Histogram({
      name: 'qhatu_job_duration_seconds',
      help: 'Time a job run took in this process, by job and outcome',
      labelNames: ['job', 'outcome'],
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60],
      registers,
    });
  }

  /** Called once a request is answered; `route` is the route's pattern, never the URL. */
  observeRequest(method: string, route: string | undefined, status: number, seconds: number): void {
    const labels = { method, route: route ?? UNMATCHED_ROUTE, status_code: String(status) };
    this.requests.inc(labels);
    this.latency.observe(labels, seconds);
  }

  /** Called when a job run ends in this process's workers. */
  observeJob(job: string, outcome: 'completed' | 'failed', seconds?: number): void {
    this.jobRuns.inc({ job, outcome });
    if (seconds !== undefined && seconds >= 0) this.jobDuration.observe({ job, outcome }, seconds);
  }

  /**
   * A counter of this app, made on first use and shared after (a plugin's own: payments by
   * gateway and status, webhook deliveries by outcome). Labels must take few values.
   */
  counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
    const existing = this.registry.getSingleMetric(name);
    if (existing) {
      if (!(existing instanceof Counter)) throw new Error(`Metric ${name} exists and is not a counter`);
      return existing as Counter<L>;
    }
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  /** Where the gauges read at scrape time come from (set once the app is built). */
  watch(sources: MetricSources): void {
    const registers = [this.registry];
    const gauge = (name: string, help: string, labelNames: string[] = []) => new Gauge({ name, help, labelNames, registers });
    this.gauges = {
      pool: gauge('qhatu_db_pool_connections', 'Database connections of this process, by state (used, idle) and the pool size (max)', ['state']),
      waiting: gauge('qhatu_db_pool_pending_acquires', 'Queries of this process waiting for a database connection'),
      queue: gauge('qhatu_job_queue_jobs', 'Jobs in the queue (every process), by state; failed: jobs out of attempts, kept 7 days', ['state']),
      pending: gauge('qhatu_outbox_pending_events', 'Committed events not yet handed to their out-of-process subscribers (every tenant)'),
      lag: gauge('qhatu_outbox_lag_seconds', 'Age of the oldest event still waiting in the outbox; 0 when none waits'),
      cacheBytes: gauge('qhatu_cache_bytes', 'Bytes an in-memory cache of this process holds, by cache (storefront, facts)', ['cache']),
      cacheMax: gauge('qhatu_cache_max_bytes', 'The byte budget of an in-memory cache of this process (QHATU_CACHE_MAX_MB, QHATU_FACT_CACHE_MAX_MB)', ['cache']),
      cacheEntries: gauge('qhatu_cache_entries', 'Entries an in-memory cache of this process holds, by cache', ['cache']),
      cacheStores: gauge('qhatu_cache_stores', 'Stores with at least one entry in an in-memory cache of this process, by cache', ['cache']),
    };
    this.sources = sources;
  }

  private sources?: MetricSources;
  private gauges?: Record<'pool' | 'waiting' | 'queue' | 'pending' | 'lag' | 'cacheBytes' | 'cacheMax' | 'cacheEntries' | 'cacheStores', Gauge<string>>;

  private refreshing?: Promise<void>;

  /** Reads the pool, the queue and the outbox once for scrapes that arrive together. */
  private refresh(): Promise<void> {
    this.refreshing ??= this.read().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /** What cannot be read in time is left out of this scrape. */
  private async read(): Promise<void> {
    const { sources, gauges } = this;
    if (!sources || !gauges) return;
    for (const g of Object.values(gauges)) g.reset();
    const pool = sources.pool();
    if (pool) {
      gauges.pool.set({ state: 'used' }, pool.used);
      gauges.pool.set({ state: 'idle' }, pool.idle);
      gauges.pool.set({ state: 'max' }, pool.max);
      gauges.waiting.set(pool.pendingAcquires);
    }
    for (const c of sources.caches?.() ?? []) {
      gauges.cacheBytes.set({ cache: c.cache }, c.bytes);
      gauges.cacheMax.set({ cache: c.cache }, c.maxBytes);
      gauges.cacheEntries.set({ cache: c.cache }, c.entries);
      gauges.cacheStores.set({ cache: c.cache }, c.stores);
    }
    const failed = (what: string) => (err: unknown) => void this.logger.warn({ err }, `metrics: ${what} not read`);
    await Promise.all([
      within(sources.queueCounts(), COLLECT_TIMEOUT_MS).then((counts) => {
        for (const state of QUEUE_STATES) gauges.queue.set({ state }, counts[state] ?? 0);
      }, failed('the job queue')),
      within(sources.outbox(), COLLECT_TIMEOUT_MS).then(({ pending, lagSeconds }) => {
        gauges.pending.set(pending);
        gauges.lag.set(lagSeconds);
      }, failed('the outbox')),
    ]);
  }

  /** The exposition text: this app's metrics, then the process's. */
  async exposition(): Promise<string> {
    await this.refresh();
    const [app, proc] = await Promise.all([this.registry.metrics(), processMetrics().metrics()]);
    return `${app}\n${proc}`;
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
