import { randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { AppError, Database, LOGGER, paginate, Secrets, type Page, type PageRequest, type Tx } from '@qhatu/core';
import type { Logger } from 'pino';
import { inject, injectable } from 'tsyringe';
import { Payment } from '../entities/payment.js';
import { Refund } from '../entities/refund.js';
import type { ChargeRequest, ChargeResult, StoredSession } from '../gateway.js';
import { paymentMachine } from '../machines/payment.js';
import { PaymentMetrics } from './payment-metrics.js';
import { publishFailed, publishPaid } from './events.js';
import { lockPayment, RETRY_FOR_MS, unreachable } from './locks.js';
import { GatewaySettings } from './gateway-settings.js';
import { Gateways } from './gateways.js';
import { Refunds } from './refunds.js';
import { amountStillDue, exceedsBalance, lockOrderToPay } from './balance.js';
import { Sessions } from './sessions.js';

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

const FINAL = new Set(['paid', 'failed', 'partially_refunded', 'refunded']);

export { lockPayment, unreachable } from './locks.js';

/** What a gateway's `charge` gets for a payment: the first time, and each time it is repeated. */
function chargeOf(payment: Payment, fields: Record<string, unknown>, session: StoredSession | null): ChargeRequest {
  return { paymentId: payment.id, orderId: payment.orderId, amount: payment.amount, currency: payment.currency, fields, session };
}

/** Payments: recorded first, then charged on the gateway outside any transaction, then moved by the answer. */
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
  ) {}

  /** Always records the payment once the gateway is configured: `failed` with the reason when the provider refuses or is unreachable. */
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
        status: 'pending', providerPaymentId: null, method: null, failureReason: null, nextAction: null, gatewayData: null, retryFields: null, sessionId: null, refundedAmount: 0,
        capturedAt: null, createdAt: at, updatedAt: at,
      });
      const session = await this.sessions.claim(tx, gateway, payment, fields);
      payment.sessionId = session?.id ?? null;
      this.metrics.reached(tx, payment);
      // After the session's own checks: a session already used says so (a replayed form post).
      if (input.amount > due) throw exceedsBalance(due, order);
      return { payment, ctx, session };
    });
    let result: ChargeResult;
    try {
      result = await gateway.charge(ctx, chargeOf(payment, fields, session));
    } catch (error) {
      this.logger.warn({ err: error, gateway: gateway.id, paymentId: payment.id }, 'payment gateway call failed');
      // The provider may have charged: an idempotent one is asked again (GET /payments/:id, the sweep).
      if (gateway.idempotent?.charge) return this.keepForRetry(payment.id, fields);
      result = { status: 'failed', providerPaymentId: null, failureReason: unreachable(error) };
    }
    return this.settle(gateway.name, payment.id, result);
  }

  /** Leaves a payment whose charge went unanswered pending, with its fields sealed for the repeat. */
  private async keepForRetry(id: string, fields: Record<string, unknown>): Promise<Payment> {
    return this.db.tenant(async (tx) => {
      const payment = await lockPayment(tx, id);
      if (payment.status === 'pending' && !payment.providerPaymentId) {
        payment.retryFields = this.secrets.seal(JSON.stringify(fields));
        payment.updatedAt = tx.now();
      }
      return payment;
    });
  }

  /**
   * Repeats, with the same payment id (so the same idempotency key), a charge whose answer was
   * lost; the provider's answer moves the payment. Unanswered for RETRY_FOR_MS, the payment is failed.
   */
  async retryCharge(id: string): Promise<void> {
    const found = await this.db.tenant(async (tx) => {
      const payment = await tx.em.findOne(Payment, { id });
      const gateway = payment && this.gateways.find(payment.gateway);
      if (!payment?.retryFields || payment.status !== 'pending' || !gateway) return null;
      const session = payment.sessionId ? await this.sessions.stored(tx, payment.sessionId) : null;
      return { payment, gateway, session, ctx: await this.settings.context(tx, gateway, { forNewPayments: false }) };
    });
    if (!found) return;
    const { payment, gateway, session, ctx } = found;
    const fields = JSON.parse(this.secrets.open(payment.retryFields!)) as Record<string, unknown>;
    let result: ChargeResult;
    try {
      result = await gateway.charge(ctx, chargeOf(payment, fields, session));
    } catch (error) {
      this.logger.warn({ err: error, gateway: gateway.id, paymentId: payment.id }, 'payment gateway call failed again');
      await this.db.tenant(async (tx) => {
        const locked = await lockPayment(tx, id);
        if (!locked.retryFields || locked.status !== 'pending') return;
        if (tx.now().getTime() - locked.createdAt.getTime() < RETRY_FOR_MS) {
          locked.updatedAt = tx.now();
          return;
        }
        await this.applyCharge(tx, locked, { status: 'failed', providerPaymentId: null, failureReason: `${unreachable(error)} (for 6 hours); check the provider's dashboard before charging again` });
      });
      return;
    }
    await this.settle(gateway.name, payment.id, result);
  }

  /** Applies a charge's answer; a provider payment already paying another payment fails this one. */
  private async settle(gatewayName: string, paymentId: string, result: ChargeResult): Promise<Payment> {
    const taken = (id: string): ChargeResult => ({
      status: 'failed',
      providerPaymentId: null,
      failureReason: `${gatewayName}'s payment ${id} already pays another payment of this store`,
    });
    try {
      return await this.db.tenant(async (tx) => this.applyCharge(tx, await lockPayment(tx, paymentId), result));
    } catch (error) {
      // A provider's payment pays one Qhatu payment: the unique index on it refuses a token or
      // transaction brought twice (also at once), and the second payment fails instead.
      if (!(error instanceof UniqueConstraintViolationException) || !result.providerPaymentId) throw error;
      return this.db.tenant(async (tx) => this.applyCharge(tx, await lockPayment(tx, paymentId), taken(result.providerPaymentId!)));
    }
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

  /** The payment with its refunds; a payment or refund still open is re-read from the provider first (polling). */
  async get(id: string): Promise<{ payment: Payment; refunds: Refund[] }> {
    const read = () =>
      this.db.tenant(async ({ em }) => ({
        payment: await em.findOne(Payment, { id }),
        refunds: await em.find(Refund, { paymentId: id }, { orderBy: { createdAt: 'asc', id: 'asc' } }),
      }));
    const { payment, refunds } = await read();
    if (!payment) throw AppError.notFound('Payment', 'PAYMENT_NOT_FOUND');
    const polled = !FINAL.has(payment.status) && Boolean(payment.providerPaymentId);
    // Open refunds: re-read from the provider, or, unanswered, asked again.
    const open = refunds.filter((r) => r.status === 'pending' || r.status === 'processing');
    if (!polled && !payment.retryFields && !open.length) return { payment, refunds };
    if (polled) await this.poll(payment);
    else if (payment.retryFields) await this.retryCharge(payment.id);
    for (const refund of open) await (refund.providerRefundId ? this.refunds.refresh(refund.id) : this.refunds.retry(refund.id));
    const now = await read();
    return { payment: now.payment!, refunds: now.refunds };
  }

  /**
   * The browser finished the provider's step (`next_action`): the gateway completes the charge
   * with what the client sends, or, for a provider that settles by itself, the payment is re-read.
   */
  async confirm(id: string, confirmation: Record<string, unknown>): Promise<Payment> {
    const { payment, ctx, gateway } = await this.db.tenant(async (tx) => {
      const payment = await tx.em.findOne(Payment, { id });
      if (!payment) throw AppError.notFound('Payment', 'PAYMENT_NOT_FOUND');
      if (payment.status !== 'pending') {
        throw AppError.conflict(`A ${payment.status} payment has nothing to confirm`, 'PAYMENT_NOT_PENDING', [{ path: 'params.id', message: `status is ${payment.status}` }]);
      }
      const gateway = this.gateways.get(payment.gateway);
      return { payment, ctx: await this.settings.context(tx, gateway, { forNewPayments: false }), gateway };
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
      if (error instanceof AppError) throw error;
      // The payment stays pending: the client may confirm again.
      this.logger.warn({ err: error, gateway: gateway.id, paymentId: payment.id }, 'payment confirmation failed');
      throw new AppError(502, 'GATEWAY_UNAVAILABLE', `${gateway.name} could not be reached to confirm the payment; retry`);
    }
    return this.settle(gateway.name, payment.id, result);
  }

  /**
   * Fails a payment still pending since before `cutoff` that the provider knows nothing of: the
   * browser never finished its next action, or no answer of the provider was ever recorded.
   */
  async expire(id: string, cutoff: Date): Promise<void> {
    await this.db.tenant(async (tx) => {
      const payment = await lockPayment(tx, id);
      if (payment.status !== 'pending' || payment.providerPaymentId || payment.createdAt >= cutoff) return;
      const failureReason = payment.nextAction
        ? 'The payment was not completed within 24 hours: the shopper did not finish the next action'
        : "No answer of the provider was recorded within 24 hours; check the provider's dashboard";
      await this.applyCharge(tx, payment, { status: 'failed', providerPaymentId: null, failureReason });
    });
  }

  /**
   * Voids at the provider a payment still pending since before `cutoff` with a payment there (the
   * shopper left its next action halfway) and records the provider's answer: failed, or paid when
   * the shopper finished first. A gateway that cannot void leaves the payment to polling.
   */
  async abandon(id: string, cutoff: Date): Promise<void> {
    const found = await this.db.tenant(async (tx) => {
      const payment = await tx.em.findOne(Payment, { id });
      const gateway = payment && this.gateways.find(payment.gateway);
      if (!payment || !gateway?.cancel || payment.status !== 'pending' || !payment.providerPaymentId || payment.createdAt >= cutoff) return null;
      return { payment, gateway, ctx: await this.settings.context(tx, gateway, { forNewPayments: false }) };
    });
    if (!found) return;
    const { payment, gateway, ctx } = found;
    const result = await gateway.cancel!(ctx, payment.providerPaymentId!);
    const failureReason = `The shopper did not finish the next action within 24 hours: ${gateway.name} cancelled the payment`;
    await this.db.tenant(async (tx) => this.applyCharge(tx, await lockPayment(tx, id), result.status === 'failed' ? { ...result, failureReason } : result));
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
      await this.db.tenant(async (tx) => this.applyCharge(tx, await lockPayment(tx, payment.id), result));
    } catch (error) {
      // Polling is best effort: the stored state is still the truth we have.
      this.logger.warn({ err: error, paymentId: payment.id }, 'payment status not re-read from the provider');
    }
  }

  /**
   * Moves a locked payment to what the provider says, through the machine; safe to repeat and
   * to receive out of order (a final state is never left by a charge result).
   */
  async applyCharge(tx: Tx, payment: Payment, result: ChargeResult): Promise<Payment> {
    if (result.providerPaymentId && !payment.providerPaymentId) payment.providerPaymentId = result.providerPaymentId;
    // The provider answered: nothing is left to repeat.
    payment.retryFields = null;
    if (FINAL.has(payment.status)) return payment;
    if (result.method) payment.method = result.method;
    payment.nextAction = result.status === 'pending' ? (result.nextAction ?? null) : null;
    if (result.keep !== undefined || result.status !== 'pending') payment.gatewayData = result.status === 'pending' ? (result.keep ?? null) : null;
    payment.updatedAt = tx.now();
    if (result.status === 'failed') {
      payment.failureReason = result.failureReason ?? 'The payment provider refused the payment';
      await paymentMachine.apply(tx, payment, 'fail');
      this.metrics.reached(tx, payment);
      publishFailed(tx, payment);
      return payment;
    }
    if (result.status === 'pending') return payment;
    if (payment.status === 'pending') {
      await paymentMachine.apply(tx, payment, 'process');
      this.metrics.reached(tx, payment);
    }
    if (result.status === 'paid') {
      payment.capturedAt = tx.now();
      await paymentMachine.apply(tx, payment, 'capture');
      this.metrics.reached(tx, payment);
      publishPaid(tx, payment);
    }
    return payment;
  }
}
