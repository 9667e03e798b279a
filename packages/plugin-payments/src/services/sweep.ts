import { CLOCK, CONFIG, Database, TenantContext, type Clock, type QhatuConfig } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import { PaymentCancellations } from './cancellations.js';
import { Gateways } from './gateways.js';
import { Payments } from './payments.js';
import { ChargeRecovery } from './recovery.js';
import { Refunds } from './refunds.js';
import { paymentSettings, type PaymentSettings } from './settings.js';

export const SWEEP_JOB = 'payments.sweep';

export interface PaymentSweepResult {
  payments: number;
  refunds: number;
  /** Pending payments whose browser step was left unfinished for a day, given up (voided at a provider that can). */
  abandoned: number;
  /** Charges and refunds whose answer was lost, asked again (repeated, or looked up at the provider). */
  repeated: number;
}

/** A payment waiting for the browser's next action this long is given up. */
export const PENDING_EXPIRES_MS = 24 * 3_600_000;

type Row = { tenant_id: string; id: string };

/** `?, ?, ?` for a list of bound values. */
const marks = (values: readonly unknown[]) => values.map(() => '?').join(', ');

/** At most this many of each per run, oldest first: a run stays short, the next one goes on. */
const BATCH = 200;

/**
 * Payments and refunds a provider left `pending` or `processing` and no notification settled
 * (a provider without notifications, one that never arrived), and charges whose answer was lost:
 * asked again, every store in one run, each row in its own store's transaction. Nothing is
 * failed without the provider's word.
 */
@injectable()
export class PaymentSweep {
  readonly settings: PaymentSettings;

  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Payments) private readonly payments: Payments,
    @inject(ChargeRecovery) private readonly recovery: ChargeRecovery,
    @inject(PaymentCancellations) private readonly cancellations: PaymentCancellations,
    @inject(Refunds) private readonly refunds: Refunds,
    @inject(Gateways) private readonly gateways: Gateways,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(CONFIG) config: QhatuConfig,
  ) {
    this.settings = paymentSettings(config);
  }

  async run(log?: (error: unknown, row: Row) => void): Promise<PaymentSweepResult> {
    const now = this.clock.now().getTime();
    const cutoff = new Date(now - this.settings.afterMs);
    const askCutoff = new Date(now - this.settings.askAgainMs);
    const dayAgo = new Date(now - PENDING_EXPIRES_MS);
    // Only gateways that can void, or repeat a refund: the others' rows would fill every batch.
    const voiding = this.gateways.all().filter((g) => g.cancel).map((g) => g.id);
    const repeatable = this.gateways.all().filter((g) => g.idempotent?.refund).map((g) => g.id);
    const unrepeatable = this.gateways.all().filter((g) => !g.idempotent?.refund).map((g) => g.id);
    const open = `IN ('pending', 'processing')`;

    // Charges whose answer was lost, once the first call can no longer be under way.
    const unanswered = await this.rows('payments_payment x', `x.awaiting_answer IS NOT NULL AND x.status = 'pending' AND x.updated_at < ?`, [askCutoff]);
    // Refunds with no answer (none lost and marked yet) on these gateways, untouched since `before`.
    const noAnswer = (gateways: string[], before: Date) =>
      gateways.length
        ? this.rows(
            'payments_refund x JOIN payments_payment p ON p.tenant_id = x.tenant_id AND p.id = x.payment_id',
            `x.status = 'pending' AND x.provider_refund_id IS NULL AND x.answer_lost_at IS NULL AND x.updated_at < ? AND p.gateway IN (${marks(gateways)})`,
            [before, ...gateways],
          )
        : Promise.resolve([]);
    const unansweredRefunds = await noAnswer(repeatable, cutoff);
    // On the other gateways the process stopped during the call: the store records what the provider did.
    const cutShort = await noAnswer(unrepeatable, askCutoff);
    const payments = await this.rows('payments_payment x', `x.status ${open} AND x.provider_payment_id IS NOT NULL AND x.awaiting_answer IS NULL AND x.updated_at < ?`, [cutoff]);
    const refunds = await this.rows('payments_refund x', `x.status ${open} AND x.provider_refund_id IS NOT NULL AND x.updated_at < ?`, [cutoff]);
    // The browser's step left unfinished for a day: nothing at the provider, or a payment it can void.
    const voidable = voiding.length ? ` OR x.gateway IN (${marks(voiding)})` : '';
    const left = await this.rows(
      'payments_payment x',
      `x.status = 'pending' AND x.awaiting_answer IS NULL AND x.next_action IS NOT NULL AND x.created_at < ? AND (x.provider_payment_id IS NULL${voidable})`,
      [dayAgo, ...voiding],
      'created_at',
    );

    const each = async (rows: Row[], work: (id: string) => Promise<unknown>) => {
      for (const row of rows) {
        try {
          await TenantContext.run({ tenantId: row.tenant_id }, () => work(row.id));
        } catch (error) {
          log?.(error, row);
        }
      }
    };
    await each(unanswered, (id) => this.recovery.recover(id));
    await each(unansweredRefunds, (id) => this.refunds.retry(id));
    await each(cutShort, (id) => this.refunds.answerNeverCame(id));
    await each(payments, (id) => this.payments.refresh(id));
    await each(refunds, (id) => this.refunds.refresh(id));
    await each(left, (id) => this.cancellations.abandon(id, dayAgo));
    return { payments: payments.length, refunds: refunds.length, abandoned: left.length, repeated: unanswered.length + unansweredRefunds.length };
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
