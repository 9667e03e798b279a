import type { Logger } from 'pino';
import { TenantContext } from '../context.js';
import { uuidArray, type Database, type Tx } from '../db/database.js';
import type { Jobs } from '../jobs/jobs.js';
import type { DomainEvent, EventBus } from './bus.js';

/**
 * Receives each committed event once (at least once across crashes), inside the relay's
 * transaction: rows it writes there commit together with the event being marked published.
 * `tx` has the platform's rights; name the event's tenant in what it writes.
 */
export type OutboxSubscriber = (event: DomainEvent, tx: Tx) => Promise<void> | void;

interface OutboxRow {
  id: string;
  tenant_id: string;
  type: string;
  source: string;
  data: Record<string, unknown>;
  occurred_at: Date;
}


export const OUTBOX_DISPATCH_JOB = 'core.outbox.dispatch';

/**
 * Events committed within this many milliseconds of each other share one dispatch job (at most
 * `DISPATCH_BATCH` ids a job): under load one queue write carries many commits instead of one each.
 */
const DISPATCH_WINDOW_MS = 20;
const DISPATCH_BATCH = 500;

/**
 * Moves committed outbox rows to their out-of-process subscribers (webhooks, search indexers) by
 * jobs: at least once, retried with backoff; a periodic sweep picks up what a crash or a failed
 * dispatch left behind. A row is marked published in the transaction its subscribers wrote and
 * queued in: a failure anywhere leaves it pending.
 */
export class OutboxRelay {
  private readonly subscribers: OutboxSubscriber[] = [];
  private sweepTimer?: NodeJS.Timeout;
  private waiting: Array<{ id: string; tenantId: string }> = [];
  private flushTimer?: NodeJS.Timeout;
  private readonly queueing = new Set<Promise<void>>();

  constructor(
    private readonly db: Database,
    private readonly jobs: Jobs,
    bus: EventBus,
    private readonly logger: Logger,
  ) {
    jobs.define(OUTBOX_DISPATCH_JOB, {
      handler: (data: { ids: string[]; tenants?: string[] }) => this.dispatch(data.ids, undefined, data.tenants),
      attempts: 8,
      backoffMs: 2000,
    });
    // Queued without holding up the writer's answer, a few commits to a job; the sweep covers a queue that is down.
    bus.onCommitted((events) => {
      this.waiting.push(...events.map((e) => ({ id: e.id, tenantId: e.tenantId })));
      if (this.waiting.length >= DISPATCH_BATCH) this.flush();
      else this.flushTimer ??= setTimeout(() => this.flush(), DISPATCH_WINDOW_MS);
    });
  }

  /** Queues one dispatch job for the ids committed since the last one. */
  private flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, DISPATCH_BATCH);
      const queued = this.queueDispatch(batch.map((e) => e.id), [...new Set(batch.map((e) => e.tenantId))])
        .catch((err) => this.logger.warn({ err }, 'outbox dispatch not queued; the sweep will deliver it'))
        .finally(() => this.queueing.delete(queued));
      this.queueing.add(queued);
    }
  }

  /** A queue that failed for a moment (a lost connection) is tried twice more before the sweep is left to it. */
  private async queueDispatch(ids: string[], tenants: string[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.jobs.add(OUTBOX_DISPATCH_JOB, { ids, tenants });
        return;
      } catch (error) {
        if (attempt >= 3) throw error;
        await new Promise((r) => setTimeout(r, 100 * attempt));
      }
    }
  }

  subscribe(subscriber: OutboxSubscriber): void {
    this.subscribers.push(subscriber);
  }

  /**
   * Reacts to another plugin's event with a job of one's own: for each committed event of `type`,
   * `job` is queued (once per event: its id names the job) with the event's data, in the event's
   * tenant; with `accept`, only events whose data it accepts. The job is queued in the relay's
   * transaction (`Jobs.addIn`): the event counts as published only once its jobs are queued, and
   * a failure to queue one fails the dispatch, which is tried again. The job must be safe to run twice.
   */
  queueOn(type: string, job: string, accept?: (data: Record<string, unknown>) => boolean): void {
    this.subscribe(async (event, tx) => {
      if (event.type !== type || (accept && !accept(event.data))) return;
      await TenantContext.run({ tenantId: event.tenantId }, () => this.jobs.addIn(tx, job, event.data, { jobId: `${job}-${event.id}` }));
    });
  }

  /**
   * Delivers the given rows (or, without ids, every row left pending for over `olderThanMs`).
   * `tenants`, the stores the ids are of, lets a schema distributed by store look on their nodes only.
   */
  async dispatch(ids?: string[], olderThanMs = 10_000, tenants?: string[]): Promise<number> {
    return this.db.platform(async (tx) => {
      const { em } = tx;
      const rows: OutboxRow[] = ids
        ? await em.execute(
            `select * from core_outbox where ${tenants ? 'tenant_id = any(?::uuid[]) and ' : ''}id = any(?::uuid[]) and published_at is null
              order by occurred_at for update skip locked`,
            tenants ? [uuidArray(tenants), uuidArray(ids)] : [uuidArray(ids)],
          )
        : await em.execute(
            // A sweep of every store's leftovers, marked so (a distributed schema sends it to every node).
            `/* every store */ select * from core_outbox where published_at is null and occurred_at < now() - make_interval(secs => ?)
              order by occurred_at limit 500 for update skip locked`,
            [olderThanMs / 1000],
          );
      for (const row of rows) {
        const event: DomainEvent = {
          id: row.id,
          type: row.type,
          source: row.source,
          tenantId: row.tenant_id,
          time: new Date(row.occurred_at),
          data: row.data,
        };
        for (const subscriber of this.subscribers) await subscriber(event, tx);
      }
      if (rows.length > 0) {
        await em.execute(`update core_outbox set published_at = now() where tenant_id = any(?::uuid[]) and id = any(?::uuid[])`, [
          uuidArray(new Set(rows.map((r) => r.tenant_id))),
          uuidArray(rows.map((r) => r.id)),
        ]);
      }
      return rows.length;
    });
  }

  startSweeping(everyMs = 5_000): void {
    this.sweepTimer ??= setInterval(() => {
      this.dispatch().catch((err) => this.logger.warn({ err }, 'outbox sweep failed'));
    }, everyMs);
    this.sweepTimer.unref();
  }

  /** Stops sweeping; the ids still waiting are queued (and the queue writes awaited) before the queue closes. */
  async stop(): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
    this.flush();
    await Promise.all(this.queueing);
  }
}
