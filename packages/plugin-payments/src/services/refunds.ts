import { randomUUID } from 'node:crypto';
import { AppError, Database, LOGGER, type Tx } from '@qhatu/core';
import { Order, Orders } from '@qhatu/plugin-orders';
import type { Logger } from 'pino';
import { inject, injectable } from 'tsyringe';
import { Payment } from '../entities/payment.js';
import { Refund, unconfirmed, type RefundReason } from '../entities/refund.js';
import type { RefundResult } from '../gateway.js';
import { paymentMachine, REFUNDABLE, refundableOf } from '../machines/payment.js';
import { refundMachine } from '../machines/refund.js';
import { publishRefund, publishReturned, publishReturnFailed, type ReturnReason } from './events.js';
import { GatewaySettings } from './gateway-settings.js';
import { Gateways } from './gateways.js';
import { lockPayment, unreachable } from './locks.js';
import { PaymentMetrics } from './payment-metrics.js';

export interface RefundInput {
  /** Minor units; 0 refunds what is left. */
  amount: number;
  reason?: RefundReason;
  /**
   * The refund's id, chosen by a plugin that records it before asking (a return's refund): a
   * refund of this id already recorded is answered as it stands, so asking twice sends nothing twice.
   */
  id?: string;
}

/** What the provider did with an unconfirmed refund, as the store read it on the provider's dashboard. */
export interface RecordedOutcome {
  status: 'refunded' | 'failed';
  /** The provider's id of the refund, when it shows one. */
  provider_refund_id?: string;
}

/** Money the store sends back by itself: said in `payments.payment.returned` and in a note on the order. */
export interface ReturnedMoney {
  reason: ReturnReason;
  /** The order's note, once the refund is recorded. */
  note: (refund: Refund, payment: Payment) => string;
}

/**
 * The tax in `amount` of the order's money: the order's tax in proportion, rounded half up. A
 * refund gives back the difference of this share before and after it, so that the refunds of a
 * payment never round apart: refunding a whole order gives back exactly its `tax_total`.
 */
function taxShare(amount: number, order: Pick<Order, 'taxTotal' | 'total'>): number {
  if (order.total <= 0 || order.taxTotal <= 0) return 0;
  const num = BigInt(Math.min(amount, order.total)) * BigInt(order.taxTotal);
  return Number((2n * num + BigInt(order.total)) / (2n * BigInt(order.total)));
}

/**
 * Refunds on the payment's own gateway. The payment row is locked while a refund is recorded, and
 * every refund not failed counts against the amount, so concurrent refunds can never exceed it.
 */
@injectable()
export class Refunds {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Gateways) private readonly gateways: Gateways,
    @inject(GatewaySettings) private readonly settings: GatewaySettings,
    @inject(Orders) private readonly orders: Orders,
    @inject(LOGGER) private readonly logger: Logger,
    @inject(PaymentMetrics) private readonly metrics: PaymentMetrics,
  ) {}

  /** Records the refund (its amount counted at once), then asks the provider; `returned` when the store sends the money back by itself. */
  async create(paymentId: string, input: RefundInput, returned?: ReturnedMoney): Promise<Refund> {
    const recorded = await this.db.tenant(async (tx) => {
      const payment = await lockPayment(tx, paymentId);
      if (input.id) {
        const known = await tx.em.findOne(Refund, { id: input.id, paymentId });
        if (known) return { known: known as Refund };
      }
      if (!REFUNDABLE.includes(payment.status)) {
        throw AppError.conflict(`A ${payment.status} payment cannot be refunded`, 'PAYMENT_NOT_REFUNDABLE', [
          { path: 'params.id', message: `refundable only when ${REFUNDABLE.join(' or ')}`, status: payment.status },
        ]);
      }
      const refundable = refundableOf(payment, await tx.em.find(Refund, { paymentId, status: { $ne: 'failed' } }));
      const amount = input.amount === 0 ? refundable : input.amount;
      if (amount <= 0 || amount > refundable) {
        throw AppError.conflict('The refunds would exceed the amount of the payment', 'REFUND_EXCEEDS_AMOUNT', [
          { path: 'body.amount', message: `at most ${refundable} can still be refunded`, refundable, amount: payment.amount },
        ]);
      }
      const gateway = this.gateways.get(payment.gateway);
      const ctx = await this.settings.context(tx, gateway, { forNewPayments: false });
      const order = await tx.em.findOne(Order, { id: payment.orderId });
      const refunded = payment.amount - refundable;
      const taxAmount = order ? taxShare(refunded + amount, order) - taxShare(refunded, order) : 0;
      const at = tx.now();
      const refund = tx.em.create(Refund, {
        id: input.id ?? randomUUID(), tenantId: tx.tenantId, paymentId, amount, taxAmount, reason: input.reason ?? null, status: 'pending',
        providerRefundId: null, failureReason: null, answerLostAt: null, returnedFor: returned?.reason ?? null, createdAt: at, updatedAt: at,
      });
      if (returned) {
        publishReturned(tx, payment, refund, returned.reason);
        await this.orders.addNote(tx, payment.orderId, returned.note(refund, payment));
      }
      return { payment, refund, ctx, gateway };
    });
    if ('known' in recorded && recorded.known) return recorded.known;
    const { payment, refund, ctx, gateway } = recorded as Exclude<typeof recorded, { known: Refund }>;
    let result: RefundResult;
    try {
      result = await gateway.refund(ctx, { refundId: refund.id, providerPaymentId: payment.providerPaymentId!, amount: refund.amount, currency: payment.currency, reason: refund.reason ?? null });
    } catch (error) {
      this.logger.warn({ err: error, gateway: gateway.id, refundId: refund.id }, 'refund gateway call failed');
      // The provider may have refunded: the refund stays pending (its amount still counted), as
      // failing it would let the same money go out twice. An idempotent gateway is asked again;
      // another cannot be (a repeat could refund twice), so the store records what it did.
      if (gateway.idempotent?.refund) return refund;
      return (await this.answerLost(refund.id, unreachable(error)))!;
    }
    return this.db.tenant(async (tx) => {
      const locked = await lockPayment(tx, paymentId);
      const stored = (await tx.em.findOne(Refund, { id: refund.id }, { refresh: true }))!;
      return this.apply(tx, locked, stored, result);
    });
  }

  /**
   * Marks a refund whose answer was lost on a gateway that cannot repeat it: pending, its amount
   * counted, until the store records what the provider did. One transaction, the payment locked;
   * a refund answered meanwhile, or on a gateway that repeats refunds, is left as it is.
   */
  private answerLost(refundId: string, cause: string): Promise<Refund | null> {
    return this.db.tenant(async (tx) => {
      const found = await tx.em.findOne(Refund, { id: refundId });
      if (!found) return null;
      const payment = await lockPayment(tx, found.paymentId);
      const stored = (await tx.em.findOne(Refund, { id: refundId }, { refresh: true }))!;
      if (stored.status !== 'pending' || stored.providerRefundId || stored.answerLostAt || this.gateways.find(payment.gateway)?.idempotent?.refund) return stored;
      stored.answerLostAt = tx.now();
      stored.updatedAt = tx.now();
      stored.failureReason =
        `The payment provider's answer to the refund was lost (${cause}) and it may have refunded: check the refund on the provider's dashboard, ` +
        `then record the outcome (POST /api/v1/payments/${payment.id}/refunds/${refundId}/outcome)`;
      return stored;
    });
  }

  /**
   * A refund left pending with no answer (the process stopped between recording it and the
   * provider's answer): on a gateway that cannot repeat it, its answer is lost as if the call had
   * failed, so the store can record what the provider did. The sweep calls it once no call can be
   * under way.
   */
  async answerNeverCame(refundId: string): Promise<void> {
    await this.answerLost(refundId, 'no answer was recorded: the call to the provider was cut short');
  }

  /**
   * What the provider did with an unconfirmed refund, as the store read it on the provider's
   * dashboard: `refunded` moves the payment, its order and the events as the provider's own answer
   * would; `failed` frees the amount. Only an unconfirmed refund takes it (409 otherwise), with
   * the payment row locked as when a refund is recorded.
   */
  async recordOutcome(paymentId: string, refundId: string, outcome: RecordedOutcome): Promise<Refund> {
    return this.db.tenant(async (tx) => {
      const payment = await lockPayment(tx, paymentId);
      const refund = await tx.em.findOne(Refund, { id: refundId, paymentId }, { refresh: true });
      if (!refund) throw AppError.notFound('Refund', 'REFUND_NOT_FOUND');
      if (!unconfirmed(refund)) {
        throw AppError.conflict(`The refund is ${refund.status}, not unconfirmed: only a refund whose provider's answer was lost takes an outcome`, 'INVALID_STATE_TRANSITION', [
          { path: 'params.refund_id', message: "only an unconfirmed refund (pending, the provider's answer lost) takes an outcome", status: refund.status },
        ]);
      }
      const providerRefundId = outcome.provider_refund_id ?? null;
      if (providerRefundId && (await tx.em.count(Refund, { providerRefundId, id: { $ne: refund.id } }))) {
        throw AppError.conflict("The provider's refund id is recorded for another refund of this store", 'PROVIDER_REFUND_ID_USED', [
          { path: 'body.provider_refund_id', message: 'is the provider id of another refund', provider_refund_id: providerRefundId },
        ]);
      }
      if (outcome.status === 'refunded') {
        refund.failureReason = null;
        return this.apply(tx, payment, refund, { status: 'refunded', providerRefundId });
      }
      const failed = await this.apply(tx, payment, refund, {
        status: 'failed', providerRefundId, failureReason: "The store recorded, from the provider's dashboard, that the provider did not make this refund",
      });
      // Money the store sent back by itself must still go: said with this transaction, its job runs again (decision 0112).
      if (refund.returnedFor) publishReturnFailed(tx, payment, refund, refund.returnedFor);
      return failed;
    });
  }

  /**
   * Repeats, with the same refund id (so the same idempotency key), a refund whose answer was lost
   * on an idempotent gateway, until the provider answers: failing it could send the money twice.
   * One lost on a gateway that could not repeat it is never repeated, whatever it declares now.
   */
  async retry(refundId: string): Promise<void> {
    const found = await this.db.tenant(async (tx) => {
      const refund = await tx.em.findOne(Refund, { id: refundId });
      const payment = refund && (await tx.em.findOne(Payment, { id: refund.paymentId }));
      const gateway = payment && this.gateways.find(payment.gateway);
      if (!refund || !payment || !gateway?.idempotent?.refund || refund.status !== 'pending' || refund.providerRefundId || refund.answerLostAt) return null;
      return { refund, payment, gateway, ctx: await this.settings.context(tx, gateway, { forNewPayments: false }) };
    });
    if (!found) return;
    const { refund, payment, gateway, ctx } = found;
    let result: RefundResult;
    try {
      result = await gateway.refund(ctx, { refundId, providerPaymentId: payment.providerPaymentId!, amount: refund.amount, currency: payment.currency, reason: refund.reason ?? null });
    } catch (error) {
      this.logger.warn({ err: error, gateway: gateway.id, refundId }, 'refund gateway call failed again; asked later');
      await this.db.tenant(async (tx) => {
        await lockPayment(tx, payment.id);
        const stored = (await tx.em.findOne(Refund, { id: refundId }, { refresh: true }))!;
        if (stored.status === 'pending' && !stored.providerRefundId) stored.updatedAt = tx.now();
      });
      return;
    }
    await this.db.tenant(async (tx) => {
      const locked = await lockPayment(tx, payment.id);
      const stored = (await tx.em.findOne(Refund, { id: refundId }, { refresh: true }))!;
      await this.apply(tx, locked, stored, result);
    });
  }

  /** Re-reads a refund the provider left open (polling and the sweep); best effort, like payments'. */
  async refresh(refundId: string): Promise<void> {
    const found = await this.db.tenant(async ({ em }) => {
      const refund = await em.findOne(Refund, { id: refundId });
      const payment = refund && (await em.findOne(Payment, { id: refund.paymentId }));
      return refund && payment ? { refund, payment } : null;
    });
    if (!found || !found.refund.providerRefundId || (found.refund.status !== 'pending' && found.refund.status !== 'processing')) return;
    const gateway = this.gateways.find(found.payment.gateway);
    if (!gateway?.refundStatus) return;
    try {
      const ctx = await this.db.tenant((tx) => this.settings.context(tx, gateway, { forNewPayments: false }));
      const result = await gateway.refundStatus(ctx, found.refund.providerRefundId);
      await this.db.tenant(async (tx) => {
        const payment = await lockPayment(tx, found.payment.id);
        const refund = (await tx.em.findOne(Refund, { id: refundId }, { refresh: true }))!;
        await this.apply(tx, payment, refund, result);
        // Still open: to the back of the sweep's queue.
        if (refund.status === 'processing' || refund.status === 'pending') refund.updatedAt = tx.now();
      });
    } catch (error) {
      this.logger.warn({ err: error, refundId }, 'refund status not re-read from the provider');
    }
  }

  /** Moves a refund by the provider's answer; a refunded one adds to the payment's refunded amount. */
  async apply(tx: Tx, payment: Payment, refund: Refund, result: RefundResult): Promise<Refund> {
    if (result.providerRefundId && !refund.providerRefundId) refund.providerRefundId = result.providerRefundId;
    if (refund.status === 'refunded' || refund.status === 'failed') return refund;
    refund.updatedAt = tx.now();
    if (result.status === 'failed') {
      refund.failureReason = result.failureReason ?? 'The payment provider refused the refund';
      await refundMachine.apply(tx, refund, 'fail');
      publishRefund(tx, payment, refund);
      return refund;
    }
    if (refund.status === 'pending') await refundMachine.apply(tx, refund, 'process');
    if (result.status !== 'refunded') return refund;
    await refundMachine.apply(tx, refund, 'succeed');
    payment.refundedAmount += refund.amount;
    payment.updatedAt = tx.now();
    const full = payment.refundedAmount >= payment.amount;
    await paymentMachine.apply(tx, payment, full ? 'refund_fully' : 'refund_partially');
    this.metrics.reached(tx, payment);
    await this.recordOnOrder(tx, payment, refund);
    publishRefund(tx, payment, refund);
    return refund;
  }

  /**
   * Tells the order what its captured payments now stand at (this one with its new refunded
   * amount): the order is refunded only once everything paid for it was refunded.
   */
  private async recordOnOrder(tx: Tx, payment: Payment, refund: Refund): Promise<void> {
    const captured = await tx.em.find(Payment, { orderId: payment.orderId, status: { $in: [...REFUNDABLE, 'refunded'] } });
    const entries = captured.map((p) => (p.id === payment.id ? payment : p)).map((p) => ({
      payment_id: p.id, amount: p.amount, currency: p.currency, refunded_amount: p.refundedAmount,
    }));
    await this.orders.recordRefunds(tx, payment.orderId, entries, `refund ${refund.id} of payment ${payment.id}`);
  }
}
