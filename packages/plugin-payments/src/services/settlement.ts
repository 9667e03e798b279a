import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { Database, type Tx } from '@qhatu/core';
import { inject, injectable } from 'tsyringe';
import type { Payment } from '../entities/payment.js';
import type { ChargeResult } from '../gateway.js';
import { paymentMachine } from '../machines/payment.js';
import { publishFailed, publishPaid } from './events.js';
import { lockPayment } from './locks.js';
import { PaymentMetrics } from './payment-metrics.js';

export const FINAL = new Set(['paid', 'failed', 'partially_refunded', 'refunded']);

/** A failed charge result with the store's reason. */
export const failedWith = (failureReason: string): ChargeResult => ({ status: 'failed', providerPaymentId: null, failureReason });

/** How the provider's answers move a payment: the one writer of a payment's state after it is recorded. */
@injectable()
export class Settlement {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(PaymentMetrics) private readonly metrics: PaymentMetrics,
  ) {}

  /** Applies a charge's answer; a provider payment already paying another payment fails this one. */
  async settle(gatewayName: string, paymentId: string, result: ChargeResult): Promise<Payment> {
    try {
      return await this.db.tenant(async (tx) => this.applyCharge(tx, await lockPayment(tx, paymentId), result));
    } catch (error) {
      // A provider's payment pays one Qhatu payment: the unique index on it refuses a token or
      // transaction brought twice (also at once), and the second payment fails instead.
      if (!(error instanceof UniqueConstraintViolationException) || !result.providerPaymentId) throw error;
      const taken = failedWith(`${gatewayName}'s payment ${result.providerPaymentId} already pays another payment of this store`);
      return this.db.tenant(async (tx) => this.applyCharge(tx, await lockPayment(tx, paymentId), taken));
    }
  }

  /** A call whose answer is still awaited failed again: it waits its turn to be asked once more. */
  async stillUnanswered(paymentId: string): Promise<void> {
    await this.db.tenant(async (tx) => {
      const payment = await lockPayment(tx, paymentId);
      if (payment.status === 'pending' && payment.awaitingAnswer) payment.updatedAt = tx.now();
    });
  }

  /**
   * Moves a locked payment to what the provider says, through the machine; safe to repeat and
   * to receive out of order (a final state is never left by a charge result).
   */
  async applyCharge(tx: Tx, payment: Payment, result: ChargeResult): Promise<Payment> {
    if (result.providerPaymentId && !payment.providerPaymentId) payment.providerPaymentId = result.providerPaymentId;
    // The provider answered: nothing is left to repeat.
    payment.retryFields = null;
    payment.awaitingAnswer = null;
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
