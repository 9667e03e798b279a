import { randomUUID } from 'node:crypto';
import { AppError, CLOCK, Database, LOGGER, paginate, Secrets, type Clock, type Page, type PageRequest, type Tx } from '@qhatu/core';
import type { Logger } from 'pino';
import { inject, injectable } from 'tsyringe';
import { Payment } from '../entities/payment.js';
import { Refund, unconfirmed } from '../entities/refund.js';
import type { ChargeResult } from '../gateway.js';
import { amountStillDue, exceedsBalance, lockOrderToPay } from './balance.js';
import { GatewaySettings } from './gateway-settings.js';
import { Gateways } from './gateways.js';
import { lockPayment, unanswered } from './locks.js';
import { PaymentMetrics } from './payment-metrics.js';
import { chargeOf, ChargeRecovery } from './recovery.js';
import { Refunds } from './refunds.js';
import { Sessions } from './sessions.js';
import { FINAL, Settlement } from './settlement.js';

export interface PaymentFilter {
  order_id?: string;
  status?: string;
  gateway?: string;
  provider_payment_id?: string;
}

export interface PaymentInput extends Record<string, unknown> {
  order_id: string;
  gateway: string;
  amount: number;
  currency: string;
}

export { lockPayment, unanswered, unreachable } from './locks.js';

/**
 * Payments: recorded first with everything a repeat of the charge needs, then charged on the
 * gateway outside any transaction, then moved by the provider's answer.
 */
@injectable()
export class Payments {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Gateways) private readonly gateways: Gateways,
    @inject(GatewaySettings) private readonly settings: GatewaySettings,
    @inject(Sessions) private readonly sessions: Sessions,
    @inject(Refunds) private readonly refunds: Refunds,
    @inject(Secrets) private readonly secrets: Secrets,
    @inject(LOGGER) private readonly logger: Logger,
    @inject(PaymentMetrics) private readonly metrics: PaymentMetrics,
    @inject(Settlement) private readonly settlement: Settlement,
    @inject(ChargeRecovery) private readonly recovery: ChargeRecovery,
    @inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * Always records the payment once the gateway is configured. The record commits the payment id
   * (the charge's idempotency key), its session and its fields sealed before the provider is
   * called, so a charge whose answer is lost (even with this process) can be asked again; until
   * then the payment stays `pending` and its amount counts against what is due.
   */
  async create(input: PaymentInput): Promise<Payment> {
    const { gateway, fields } = this.gateways.checkPayment(input);
    const { payment, ctx, session } = await this.db.tenant(async (tx) => {
      const ctx = await this.settings.context(tx, gateway, { forNewPayments: true });
      const order = await lockOrderToPay(tx, input.order_id);
      if (input.currency !== order.currency) {
        throw AppError.unprocessable('PAYMENT_CURRENCY_MISMATCH', `The order is in ${order.currency}: a payment of it must be too, not ${input.currency}`, [
          { path: 'body.currency', message: `must be the order's currency, ${order.currency}`, order_currency: order.currency },
        ]);
      }
      const due = await amountStillDue(tx, order);
      const at = tx.now();
      const payment = tx.em.create(Payment, {
        id: randomUUID(), tenantId: tx.tenantId, orderId: order.id, gateway: gateway.id, amount: input.amount, currency: input.currency,
        status: 'pending', providerPaymentId: null, method: null, failureReason: null, nextAction: null, gatewayData: null,
        retryFields: this.secrets.seal(JSON.stringify(fields)), awaitingAnswer: 'charge', sessionId: null, refundedAmount: 0,
        capturedAt: null, createdAt: at, updatedAt: at,
      });
      const session = await this.sessions.claim(tx, gateway, payment, fields);
      payment.sessionId = session?.id ?? null;
      this.metrics.reached(tx, payment);
      // After the session's own checks: a session already used says so (a replayed form post).
      if (input.amount > due) throw exceedsBalance(due, order);
      // Written now: a caller's transaction this joins (a draft order marked paid) may go on to rows that refer to it.
      await tx.em.flush();
      return { payment, ctx, session };
    });
    let result: ChargeResult;
    try {
      result = await gateway.charge(ctx, chargeOf(payment, fields, session));
    } catch (error) {
      // The provider may have charged: the payment stays pending until it is asked again.
      this.logger.warn({ err: error, gateway: gateway.id, paymentId: payment.id }, 'payment gateway call got no answer; the provider is asked again later');
      return payment;
    }
    return this.settlement.settle(gateway.name, payment.id, result);
  }

  /** The store's payments, newest first unless sorted otherwise, each with its refunds (one query for the page's refunds). */
  async list(page: PageRequest, filter: PaymentFilter): Promise<{ page: Page<Payment>; refunds: Map<string, Refund[]> }> {
    return this.db.tenant(async ({ em }) => {
      const where: Record<string, unknown> = {};
      if (filter.order_id) where.orderId = filter.order_id;
      if (filter.status) where.status = filter.status;
      if (filter.gateway) where.gateway = filter.gateway;
      if (filter.provider_payment_id) where.providerPaymentId = filter.provider_payment_id;
      const found = await paginate(em, Payment, where, page);
      const refunds = new Map<string, Refund[]>();
      if (found.items.length) {
        const rows = await em.find(Refund, { paymentId: { $in: found.items.map((p) => p.id) } }, { orderBy: { createdAt: 'asc', id: 'asc' } });
        for (const r of rows) refunds.set(r.paymentId, [...(refunds.get(r.paymentId) ?? []), r]);
      }
      return { page: found, refunds };
    });
  }

  /**
   * The payment with its refunds. An open payment is re-read from the provider first (polling);
   * one whose charge went unanswered is asked again once it is due (never while the first call
   * may still be under way); open refunds are re-read or asked again.
   */
  async get(id: string): Promise<{ payment: Payment; refunds: Refund[] }> {
    const read = () =>
      this.db.tenant(async ({ em }) => ({
        payment: await em.findOne(Payment, { id }),
        refunds: await em.find(Refund, { paymentId: id }, { orderBy: { createdAt: 'asc', id: 'asc' } }),
      }));
    const { payment, refunds } = await read();
    if (!payment) throw AppError.notFound('Payment', 'PAYMENT_NOT_FOUND');
    const polled = !FINAL.has(payment.status) && Boolean(payment.providerPaymentId) && !payment.awaitingAnswer;
    const askAgain = this.recovery.due(payment, this.clock.now());
    // An unconfirmed refund waits for the store: there is nothing to ask the provider.
    const open = refunds.filter((r) => (r.status === 'pending' || r.status === 'processing') && !unconfirmed(r));
    if (!polled && !askAgain && !open.length) return { payment, refunds };
    if (polled) await this.poll(payment);
    else if (askAgain) await this.recovery.recover(payment.id);
    for (const refund of open) await (refund.providerRefundId ? this.refunds.refresh(refund.id) : this.refunds.retry(refund.id));
    const now = await read();
    return { payment: now.payment!, refunds: now.refunds };
  }

  /**
   * The browser finished the provider's step (`next_action`): the gateway completes the charge
   * with what the client sends, or, for a provider that settles by itself, the payment is re-read.
   * A confirm that charges is recorded as awaiting its answer first, so a lost answer is looked up.
   */
  async confirm(id: string, confirmation: Record<string, unknown>): Promise<Payment> {
    // A charge whose answer was lost is asked first: when the provider settles it, that is the answer.
    const settled = await this.recovery.recover(id);
    if (settled && settled.status !== 'pending') return settled;
    const { payment, ctx, gateway } = await this.db.tenant(async (tx) => {
      const payment = await lockPayment(tx, id);
      if (payment.status !== 'pending') {
        throw AppError.conflict(`A ${payment.status} payment has nothing to confirm`, 'PAYMENT_NOT_PENDING', [{ path: 'params.id', message: `status is ${payment.status}` }]);
      }
      if (payment.awaitingAnswer) throw unanswered(payment, this.recovery.settings.askAgainMs);
      const gateway = this.gateways.get(payment.gateway);
      const ctx = await this.settings.context(tx, gateway, { forNewPayments: false });
      if (gateway.confirm) {
        payment.awaitingAnswer = 'confirm';
        payment.updatedAt = tx.now();
      }
      return { payment, ctx, gateway };
    });
    let result: ChargeResult;
    try {
      if (gateway.confirm) {
        result = await gateway.confirm(ctx, {
          paymentId: payment.id, orderId: payment.orderId, amount: payment.amount, currency: payment.currency,
          providerPaymentId: payment.providerPaymentId ?? null, kept: payment.gatewayData ?? {}, confirmation,
        });
      } else if (payment.providerPaymentId) {
        result = await gateway.status(ctx, payment.providerPaymentId);
      } else {
        throw AppError.conflict(`${gateway.name} has nothing to confirm for this payment`, 'PAYMENT_NOT_PENDING');
      }
    } catch (error) {
      if (error instanceof AppError) {
        // Refused before anything reached the provider: the payment waits for the shopper as before.
        await this.notAsked(id);
        throw error;
      }
      // The payment stays pending: a confirm is looked up later, a re-read may simply be asked again.
      this.logger.warn({ err: error, gateway: gateway.id, paymentId: payment.id }, 'payment confirmation failed');
      throw new AppError(502, 'GATEWAY_UNAVAILABLE', `${gateway.name} could not be reached to confirm the payment; read it again shortly`);
    }
    return this.settlement.settle(gateway.name, payment.id, result);
  }

  private async notAsked(id: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      const payment = await lockPayment(tx, id);
      if (payment.awaitingAnswer === 'confirm') payment.awaitingAnswer = null;
    });
  }

  /** Re-reads an open payment from its provider (the sweep); a final one is left alone. */
  async refresh(id: string): Promise<void> {
    const payment = await this.db.tenant(({ em }) => em.findOne(Payment, { id }));
    if (payment && !FINAL.has(payment.status) && payment.providerPaymentId) await this.poll(payment);
  }

  private async poll(payment: Payment): Promise<void> {
    const gateway = this.gateways.find(payment.gateway);
    if (!gateway) return;
    try {
      const ctx = await this.db.tenant((tx) => this.settings.context(tx, gateway, { forNewPayments: false }));
      const result = await gateway.status(ctx, payment.providerPaymentId!);
      await this.db.tenant(async (tx) => this.settlement.applyCharge(tx, await lockPayment(tx, payment.id), result));
    } catch (error) {
      // Polling is best effort: the stored state is still the truth we have.
      this.logger.warn({ err: error, paymentId: payment.id }, 'payment status not re-read from the provider');
    }
  }

  /** Moves a locked payment to what the provider says (see `Settlement.applyCharge`). */
  applyCharge(tx: Tx, payment: Payment, result: ChargeResult): Promise<Payment> {
    return this.settlement.applyCharge(tx, payment, result);
  }
}
