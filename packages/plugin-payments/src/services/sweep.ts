import { CLOCK, CONFIG, Database, parseEnvironment, TenantContext, type Clock, type QhatuConfig } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { z } from 'zod';
import { Gateways } from './gateways.js';
import { Payments } from './payments.js';
import { Refunds } from './refunds.js';

export const SWEEP_JOB = 'payments.sweep';

const Env = z.object({
  /** A payment or refund untouched this long while open is re-read from its provider. */
  QHATU_PAYMENTS_SWEEP_AFTER_SECONDS: z.coerce.number().int().min(1).max(7 * 24 * 3600).default(120),
  /** How often a worker process queues the sweep. */
  QHATU_PAYMENTS_SWEEP_SECONDS: z.coerce.number().int().min(1).max(24 * 3600).default(300),
});

export interface SweepSettings {
  afterMs: number;
  everyMs: number;
}

export function sweepSettings(config: QhatuConfig): SweepSettings {
  const env = parseEnvironment(config.environment, Env);
  return { afterMs: env.QHATU_PAYMENTS_SWEEP_AFTER_SECONDS * 1000, everyMs: env.QHATU_PAYMENTS_SWEEP_SECONDS * 1000 };
}

export interface PaymentSweepResult {
  payments: number;
  refunds: number;
  /** Pending payments with nothing at the provider to re-read, given up after a day. */
  expired: number;
  /** Pending payments a day old voided at a provider that can (`PaymentGateway.cancel`). */
  abandoned: number;
  /** Charges and refunds whose answer was lost, asked again (idempotent gateways). */
  repeated: number;
}

/**
 * A pending payment the provider knows nothing of (3-D Secure never finished, no answer recorded)
 * is failed after this; one the provider holds is voided there, when its gateway can.
 */
export const PENDING_EXPIRES_MS = 24 * 3_600_000;

type Row = { tenant_id: string; id: string };

/** `?, ?, ?` for a list of bound values. */
const marks = (values: readonly unknown[]) => values.map(() => '?').join(', ');

/** At most this many of each per run, oldest first: a run stays short, the next one goes on. */
const BATCH = 200;

/**
 * Payments and refunds a provider left `pending` or `processing` and no notification settled
 * (a provider without notifications, one that never arrived): re-read from the provider, every
 * store in one run, each row in its own store's transaction.
 */
@injectable()
export class PaymentSweep {
  readonly settings: SweepSettings;

  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Payments) private readonly payments: Payments,
    @inject(Refunds) private readonly refunds: Refunds,
    @inject(Gateways) private readonly gateways: Gateways,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(CONFIG) config: QhatuConfig,
  ) {
    this.settings = sweepSettings(config);
  }

  async run(log?: (error: unknown, row: Row) => void): Promise<PaymentSweepResult> {
    const now = this.clock.now().getTime();
    const cutoff = new Date(now - this.settings.afterMs);
    const dayAgo = new Date(now - PENDING_EXPIRES_MS);
    // Only gateways that can void, or repeat a refund: the others' rows would fill every batch.
    const voiding = this.gateways.all().filter((g) => g.cancel).map((g) => g.id);
    const repeatable = this.gateways.all().filter((g) => g.idempotent?.refund).map((g) => g.id);
    const open = `IN ('pending', 'processing')`;

    const payments = await this.rows('payments_payment x', `x.status ${open} AND x.provider_payment_id IS NOT NULL AND x.updated_at < ?`, [cutoff]);
    const refunds = await this.rows('payments_refund x', `x.status ${open} AND x.provider_refund_id IS NOT NULL AND x.updated_at < ?`, [cutoff]);
    const stale = await this.rows('payments_payment x', `x.status = 'pending' AND x.provider_payment_id IS NULL AND x.created_at < ?`, [dayAgo], 'created_at');
    const left = voiding.length
      ? await this.rows('payments_payment x', `x.status = 'pending' AND x.provider_payment_id IS NOT NULL AND x.created_at < ? AND x.gateway IN (${marks(voiding)})`, [dayAgo, ...voiding], 'created_at')
      : [];
    // Charges and refunds whose answer was lost, on gateways that take a repeated call as one.
    const unansweredCharges = await this.rows('payments_payment x', `x.retry_fields IS NOT NULL AND x.status = 'pending' AND x.updated_at < ?`, [cutoff]);
    const unansweredRefunds = repeatable.length
      ? await this.rows(
          'payments_refund x JOIN payments_payment p ON p.tenant_id = x.tenant_id AND p.id = x.payment_id',
          `x.status = 'pending' AND x.provider_refund_id IS NULL AND x.updated_at < ? AND p.gateway IN (${marks(repeatable)})`,
          [cutoff, ...repeatable],
        )
      : [];

    const each = async (rows: Row[], work: (id: string) => Promise<void>) => {
      for (const row of rows) {
        try {
          await TenantContext.run({ tenantId: row.tenant_id }, () => work(row.id));
        } catch (error) {
          log?.(error, row);
        }
      }
    };
    await each(unansweredCharges, (id) => this.payments.retryCharge(id));
    await each(unansweredRefunds, (id) => this.refunds.retry(id));
    await each(payments, (id) => this.payments.refresh(id));
    await each(refunds, (id) => this.refunds.refresh(id));
    await each(stale, (id) => this.payments.expire(id, dayAgo));
    await each(left, (id) => this.payments.abandon(id, dayAgo));
    return {
      payments: payments.length, refunds: refunds.length, expired: stale.length, abandoned: left.length,
      repeated: unansweredCharges.length + unansweredRefunds.length,
    };
  }

  /** Rows `x` of stores still open (active or trial) matching `where`, oldest by `order` first, one batch. */
  private rows(from: string, where: string, params: unknown[], order: 'updated_at' | 'created_at' = 'updated_at'): Promise<Row[]> {
    return this.db.query<Row>(
      `SELECT x.tenant_id, x.id FROM ${from} JOIN core_tenant t ON t.id = x.tenant_id
        WHERE ${where} AND t.status IN ('active', 'trial') ORDER BY x.${order} LIMIT ${BATCH}`,
      params,
    );
  }
}
