import { randomUUID } from 'node:crypto';
import { AppError, Database, LOGGER, type Tx } from '@qhatu/core';
import type { Order } from '@qhatu/plugin-orders';
import { Payment, Refund, Refunds, type PaymentStatus } from '@qhatu/plugin-payments';
import type { Logger } from 'pino';
import type { DependencyContainer } from 'tsyringe';
import { Return, type PlannedRefund } from '../entities/return.js';

/** Payments some of whose money can still go back. */
const REFUNDABLE: readonly PaymentStatus[] = ['paid', 'partially_refunded'];

/** A planned refund as the payments plugin answers it now. */
export interface RefundState {
  status: string;
  failure_reason: string | null;
}

/**
 * Refunds through the order's own payments (the payments plugin's `Refunds`, each on its payment's
 * gateway; an offline payment's refund is recorded, not sent). Planned in the return's
 * transaction, sent after it commits by a job, each under the id planned for it so that a repeated
 * job sends nothing twice.
 */
export interface PaymentRefunder {
  /**
   * Splits `amount` over the order's captured payments, newest first, each within what is left of
   * it once its refunds and the refunds other returns planned are counted: 409
   * REFUND_EXCEEDS_PAYMENTS when they cannot take it, 422 PAYMENTS_UNAVAILABLE without the plugin.
   */
  plan(tx: Tx, order: Order, amount: number): Promise<PlannedRefund[]>;
  /** Asks for each planned refund of the return that is not recorded yet. */
  send(returnId: string): Promise<void>;
  /** The planned refunds as they stand (absent: not recorded yet). */
  states(tx: Tx, ids: string[]): Promise<Map<string, RefundState>>;
}

export const PAYMENT_REFUNDER = Symbol.for('qhatu.returns.payment-refunder');

class Refunder implements PaymentRefunder {
  constructor(
    private readonly db: Database,
    private readonly refunds: Refunds,
    private readonly logger: Logger,
  ) {}

  async plan(tx: Tx, order: Order, amount: number): Promise<PlannedRefund[]> {
    if (amount <= 0) return [];
    const payments = await tx.em.find(Payment, { orderId: order.id, status: { $in: [...REFUNDABLE] }, currency: order.currency.trim() }, { orderBy: { createdAt: 'desc', id: 'desc' } });
    const taken = await this.taken(tx, order.id, payments.map((p) => p.id));
    const left = payments.map((p) => ({ id: p.id, left: p.amount - (taken.get(p.id) ?? 0) })).filter((p) => p.left > 0);
    const refundable = left.reduce((s, p) => s + p.left, 0);
    if (refundable < amount) {
      throw AppError.conflict('The order’s payments cannot take this refund back: refund as store credit, or less', 'REFUND_EXCEEDS_PAYMENTS', [
        { path: 'body.amount', message: `at most ${refundable} can go back through the order’s payments`, refundable, amount },
      ]);
    }
    let rest = amount;
    const plan: PlannedRefund[] = [];
    for (const p of left) {
      if (rest === 0) break;
      const part = Math.min(rest, p.left);
      plan.push({ id: randomUUID(), payment_id: p.id, amount: part });
      rest -= part;
    }
    return plan;
  }

  /** Each payment's refunds not failed, and what other returns planned but the payments plugin has not recorded yet. */
  private async taken(tx: Tx, orderId: string, paymentIds: string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (paymentIds.length === 0) return out;
    const recorded = await tx.em.find(Refund, { paymentId: { $in: paymentIds } });
    for (const r of recorded) if (r.status !== 'failed') out.set(r.paymentId, (out.get(r.paymentId) ?? 0) + r.amount);
    const known = new Set(recorded.map((r) => r.id));
    const others = await tx.em.find(Return, { orderId, refundedAt: { $ne: null } });
    for (const p of others.flatMap((r) => r.refunds)) if (!known.has(p.id)) out.set(p.payment_id, (out.get(p.payment_id) ?? 0) + p.amount);
    return out;
  }

  async send(returnId: string): Promise<void> {
    const ret = await this.db.tenant(({ em }) => em.findOne(Return, { id: returnId }));
    for (const planned of ret?.refunds ?? []) {
      const refund = await this.refunds.create(planned.payment_id, { amount: planned.amount, reason: 'requested_by_customer', id: planned.id }).catch((error: unknown) => {
        // Refunded meanwhile by other means, or no longer refundable: staff see it on the return; asking again would not help.
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        this.logger.warn({ err: error, returnId, paymentId: planned.payment_id }, 'a return’s refund was refused by the payments plugin');
        return null;
      });
      if (refund?.status === 'failed') this.logger.warn({ returnId, refundId: refund.id, reason: refund.failureReason }, 'the provider refused a return’s refund');
    }
  }

  async states(tx: Tx, ids: string[]): Promise<Map<string, RefundState>> {
    if (ids.length === 0) return new Map();
    const rows = await tx.em.find(Refund, { id: { $in: ids } });
    return new Map(rows.map((r) => [r.id, { status: r.status, failure_reason: r.failureReason ?? null }]));
  }
}

/** Without the payments plugin an order has no payments to refund through. */
const NO_PAYMENTS: PaymentRefunder = {
  plan: async (_tx, _order, amount) => {
    if (amount <= 0) return [];
    throw AppError.unprocessable('PAYMENTS_UNAVAILABLE', 'This store takes no payments here: refund as store credit', [{ path: 'body.method', message: 'original_payments needs the payments plugin' }]);
  },
  send: async () => {},
  states: async () => new Map(),
};

export function paymentRefunderOf(container: DependencyContainer): PaymentRefunder {
  if (!container.isRegistered(Refunds, true)) return NO_PAYMENTS;
  return new Refunder(container.resolve(Database), container.resolve(Refunds), container.resolve<Logger>(LOGGER));
}
