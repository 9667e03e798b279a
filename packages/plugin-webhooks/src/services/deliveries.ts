import { randomUUID } from 'node:crypto';
import { AppError, Database, Jobs, LOGGER, Metrics, paginate, type DomainEvent, type Page, type PageRequest, type Tx } from '@qhatu/core';
import type { Logger } from 'pino';
import { inject, injectable } from 'tsyringe';
import { Attempt, Delivery, type DeliveryStatus } from '../entities/delivery.js';
import { Subscription } from '../entities/subscription.js';
import { send, type SendResult } from './sender.js';
import { retryDelayMs, WEBHOOK_SETTINGS, type WebhookSettings } from './settings.js';
import { cloudEvent, sign, signedHeaders } from './signing.js';
import { Subscriptions } from './subscriptions.js';

export const DELIVER_JOB = 'webhooks.deliver';

interface DeliverJob {
  tenantId: string;
  deliveryId: string;
}

/**
 * Turns committed events into signed deliveries and sends them: at least once, retried with
 * backoff until `dead`, each attempt recorded. A delivery is claimed with a lease before it is
 * sent, so a job run twice (or a manual retry racing a worker) never sends it twice at once.
 */
@injectable()
export class Deliveries {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Jobs) private readonly jobs: Jobs,
    @inject(Subscriptions) private readonly subscriptions: Subscriptions,
    @inject(WEBHOOK_SETTINGS) private readonly settings: WebhookSettings,
    @inject(LOGGER) private readonly logger: Logger,
    @inject(Metrics) metrics: Metrics,
  ) {
    this.outcomes = metrics.counter(
      'qhatu_webhook_deliveries_total',
      'Webhook delivery attempts by outcome: delivered, failed (to be retried, or a manual retry that failed), dead (given up)',
      ['outcome'],
    );
  }

  private readonly outcomes: ReturnType<Metrics['counter']>;

  /**
   * Outbox subscriber: one delivery per interested subscription, written in the relay's
   * transaction. A subscription gets the events that happened after it was made, however late
   * the relay reads them.
   */
  readonly recordEvent = async (event: DomainEvent, tx: Tx): Promise<void> => {
    const subscriptions = await tx.em.find(
      Subscription,
      { tenantId: event.tenantId, enabled: true, events: { $contains: [event.type] }, createdAt: { $lte: event.time } } as never,
      { filters: false },
    );
    if (subscriptions.length === 0) return;
    const body = cloudEvent(event);
    const signedAt = Math.floor(tx.now().getTime() / 1000);
    const created: string[] = [];
    for (const subscription of subscriptions) {
      const id = randomUUID();
      const signature = sign(this.subscriptions.secretOf(subscription), event.id, signedAt, body);
      const inserted = await tx.em.execute(
        `insert into webhooks_delivery (tenant_id, id, subscription_id, event_id, event_type, body, signed_at, signature,
           status, attempts, next_attempt_at, created_at, updated_at)
         values (?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, now(), now(), now())
         on conflict (tenant_id, subscription_id, event_id) do nothing returning id`,
        [event.tenantId, id, subscription.id, event.id, event.type, body, signedAt, signature],
      );
      if (inserted.length > 0) created.push(id);
    }
    tx.afterCommit(async () => {
      for (const deliveryId of created) await this.jobs.add(DELIVER_JOB, { tenantId: event.tenantId, deliveryId } satisfies DeliverJob);
    });
  };

  /** The job: sends a due delivery once, then records the outcome and schedules the next try. */
  async deliver({ tenantId, deliveryId }: DeliverJob): Promise<void> {
    const claimed = await this.db.tenant(async (tx) => {
      const rows = await tx.em.execute(
        `update webhooks_delivery set locked_until = now() + make_interval(secs => ?)
          where id = ? and status in ('pending', 'failed') and (locked_until is null or locked_until < now())
            and (next_attempt_at is null or next_attempt_at <= now() + interval '1 second')
          returning id`,
        [this.leaseSeconds(), deliveryId],
      );
      return rows.length > 0 ? this.load(tx, deliveryId) : null;
    }, tenantId);
    if (!claimed) return;
    if (!claimed.subscription.enabled) {
      await this.finish(tenantId, deliveryId, { ok: false, status: null, error: 'the subscription is disabled', durationMs: 0 }, 'automatic', true);
      return;
    }
    const result = await this.send(claimed.delivery, claimed.subscription);
    await this.finish(tenantId, deliveryId, result, 'automatic');
  }

  /** POST .../retry: resends a failed or dead delivery now, with its original body and signature. */
  async retry(subscriptionId: string, deliveryId: string): Promise<Delivery> {
    const tenantId = await this.db.tenant(async (tx) => {
      const delivery = await tx.em.findOne(Delivery, { id: deliveryId, subscriptionId });
      if (!delivery) throw AppError.notFound('Delivery', 'DELIVERY_NOT_FOUND');
      if (delivery.status !== 'failed' && delivery.status !== 'dead') {
        throw new AppError(409, 'INVALID_STATE_TRANSITION', `Only failed or dead deliveries can be retried; this one is ${delivery.status}`);
      }
      const rows = await tx.em.execute(
        `update webhooks_delivery set locked_until = now() + make_interval(secs => ?)
          where id = ? and (locked_until is null or locked_until < now()) returning id`,
        [this.leaseSeconds(), deliveryId],
      );
      if (rows.length === 0) throw AppError.conflict('This delivery is being sent right now; try again in a moment', 'DELIVERY_IN_PROGRESS');
      return tx.tenantId;
    });
    const { delivery, subscription } = await this.db.tenant((tx) => this.load(tx, deliveryId), tenantId);
    const result = await this.send(delivery, subscription);
    return this.finish(tenantId, deliveryId, result, 'manual');
  }

  async list(subscriptionId: string, page: PageRequest, status?: DeliveryStatus): Promise<Page<Delivery>> {
    return this.db.tenant(async ({ em }) => {
      if (!(await em.count(Subscription, { id: subscriptionId }))) throw AppError.notFound('Webhook subscription', 'WEBHOOK_NOT_FOUND');
      return paginate(em, Delivery, { subscriptionId, ...(status ? { status } : {}) }, page);
    });
  }

  async attempts(deliveryIds: string[]): Promise<Map<string, Attempt[]>> {
    return this.db.tenant(async ({ em }) => {
      const rows = await em.find(Attempt, { deliveryId: { $in: deliveryIds } }, { orderBy: { number: 'asc' } });
      const byDelivery = new Map<string, Attempt[]>();
      for (const a of rows) byDelivery.set(a.deliveryId, [...(byDelivery.get(a.deliveryId) ?? []), a]);
      return byDelivery;
    });
  }

  /** Queues every due delivery whose job was lost (say, a worker stopped mid-delivery). */
  async sweep(): Promise<number> {
    const due = await this.db.query<{ tenant_id: string; id: string }>(
      `select tenant_id, id from webhooks_delivery
        where status in ('pending', 'failed') and next_attempt_at <= now() - interval '2 seconds'
          and (locked_until is null or locked_until < now())
        order by next_attempt_at limit 500`,
    );
    for (const row of due) await this.jobs.add(DELIVER_JOB, { tenantId: row.tenant_id, deliveryId: row.id } satisfies DeliverJob);
    return due.length;
  }

  private leaseSeconds(): number {
    return Math.ceil(this.settings.timeoutMs / 1000) + 5;
  }

  private async load(tx: Tx, deliveryId: string) {
    const delivery = await tx.em.findOneOrFail(Delivery, { id: deliveryId });
    const subscription = await tx.em.findOneOrFail(Subscription, { id: delivery.subscriptionId });
    return { delivery, subscription };
  }

  private send(delivery: Delivery, subscription: Subscription): Promise<SendResult> {
    return send(subscription.url, delivery.body, signedHeaders(delivery), {
      timeoutMs: this.settings.timeoutMs,
      allowPrivate: this.settings.allowPrivate,
    });
  }

  /** Records the attempt and moves the delivery: delivered, failed with a next try, or dead. */
  private async finish(tenantId: string, deliveryId: string, result: SendResult, trigger: 'automatic' | 'manual', giveUp = false): Promise<Delivery> {
    return this.db.tenant(async (tx) => {
      const delivery = await tx.em.findOneOrFail(Delivery, { id: deliveryId });
      const now = tx.now();
      delivery.attempts += 1;
      delivery.responseStatus = result.status;
      delivery.lastError = result.ok ? null : (result.error ?? `the receiver answered ${result.status}`);
      delivery.lockedUntil = null;
      delivery.updatedAt = now;
      tx.em.create(Attempt, {
        id: randomUUID(),
        tenantId,
        deliveryId,
        number: delivery.attempts,
        trigger,
        startedAt: new Date(now.getTime() - result.durationMs),
        durationMs: result.durationMs,
        responseStatus: result.status,
        error: delivery.lastError,
      });
      let outcome: 'delivered' | 'failed' | 'dead' = 'failed';
      if (result.ok) {
        outcome = 'delivered';
        delivery.status = 'delivered';
        delivery.deliveredAt = now;
        delivery.nextAttemptAt = null;
      } else if (trigger === 'manual') {
        if (delivery.status === 'pending') delivery.status = 'failed';
      } else if (giveUp || delivery.attempts >= this.settings.maxAttempts) {
        outcome = 'dead';
        delivery.status = 'dead';
        delivery.nextAttemptAt = null;
        this.logger.warn({ deliveryId, tenantId, attempts: delivery.attempts }, 'webhook delivery is dead');
      } else {
        const delayMs = retryDelayMs(this.settings, delivery.attempts);
        delivery.status = 'failed';
        delivery.nextAttemptAt = new Date(now.getTime() + delayMs);
        tx.afterCommit(() => this.jobs.add(DELIVER_JOB, { tenantId, deliveryId } satisfies DeliverJob, { delayMs }).then(() => undefined));
      }
      tx.afterCommit(() => this.outcomes.inc({ outcome }));
      return delivery;
    }, tenantId);
  }
}
