import { AppError, Database, LOGGER } from '@qhatu/core';
import type { Logger } from 'pino';
import { inject, injectable } from 'tsyringe';
import type { Payment } from '../entities/payment.js';
import type { ChargeResult, GatewayContext, PaymentGateway } from '../gateway.js';
import { GatewaySettings } from './gateway-settings.js';
import { Gateways } from './gateways.js';
import { lockPayment, unanswered } from './locks.js';
import { ChargeRecovery } from './recovery.js';
import { failedWith, Settlement } from './settlement.js';

/** Who gives a payment up, and the words its failure reason takes. */
interface Giving {
  /** The payment waited for the browser and nothing at the provider can complete it. */
  nothingAtProvider: string;
  /** The provider voided it (`voided`), or a re-read says it failed. */
  failed: (gateway: PaymentGateway, voided: boolean, result: ChargeResult) => string;
  /** Refuse (the shopper, with a 409) or leave it to polling (the sweep) while the provider holds it open. */
  refuseWhileOpen: boolean;
}

const SHOPPER: Giving = {
  nothingAtProvider: 'Cancelled by the shopper before the payment was completed',
  failed: (gateway, voided, result) =>
    voided ? `Cancelled by the shopper: ${gateway.name} cancelled the payment` : `Cancelled by the shopper: ${gateway.name} says it was not completed (${result.failureReason ?? 'failed'})`,
  refuseWhileOpen: true,
};

const ABANDONED: Giving = {
  nothingAtProvider: 'The payment was not completed within 24 hours: the shopper did not finish the next action',
  failed: (gateway) => `The shopper did not finish the next action within 24 hours: ${gateway.name} cancelled the payment`,
  refuseWhileOpen: false,
};

/**
 * Giving up a `pending` payment: the shopper's `POST /payments/:id/cancel`, or the sweep a day
 * after the browser was asked to act. The provider is told first (voided where it can, re-read
 * where it cannot) and its answer is what the payment becomes: failed, or paid when the shopper
 * finished first. The row is locked for each move, so a concurrent confirm or notification and
 * the cancel end in the provider's state.
 */
@injectable()
export class PaymentCancellations {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Gateways) private readonly gateways: Gateways,
    @inject(GatewaySettings) private readonly settings: GatewaySettings,
    @inject(Settlement) private readonly settlement: Settlement,
    @inject(ChargeRecovery) private readonly recovery: ChargeRecovery,
    @inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** The shopper gives the payment up; its amount is free for a new payment once it failed. */
  async cancel(id: string): Promise<Payment> {
    // A charge whose answer was lost is asked first: when the provider settles it, that is the answer.
    const settled = await this.recovery.recover(id);
    if (settled && settled.status !== 'pending') return settled;
    return this.giveUp(id, SHOPPER);
  }

  /** The sweep: a payment whose browser step was left unfinished since before `cutoff`. */
  async abandon(id: string, cutoff: Date): Promise<void> {
    await this.giveUp(id, ABANDONED, cutoff);
  }

  private async giveUp(id: string, giving: Giving, cutoff?: Date): Promise<Payment> {
    const step = await this.db.tenant(async (tx) => {
      const payment = await lockPayment(tx, id);
      if (cutoff && (payment.status !== 'pending' || payment.awaitingAnswer || !payment.nextAction || payment.createdAt >= cutoff)) return { payment };
      if (payment.status !== 'pending') {
        throw AppError.conflict(`A ${payment.status} payment cannot be cancelled`, 'PAYMENT_NOT_PENDING', [{ path: 'params.id', message: `status is ${payment.status}`, status: payment.status }]);
      }
      if (payment.awaitingAnswer) throw unanswered(payment, this.recovery.settings.askAgainMs);
      const gateway = this.gateways.get(payment.gateway);
      // The provider answered that the browser must act and holds no payment: only a confirm through the store could complete it.
      if (!payment.providerPaymentId) return { payment: await this.settlement.applyCharge(tx, payment, failedWith(giving.nothingAtProvider)) };
      return { payment, gateway, ctx: await this.settings.context(tx, gateway, { forNewPayments: false }) };
    });
    if (!step.gateway) return step.payment;
    const result = await this.tellProvider(step.gateway, step.ctx, step.payment.providerPaymentId!);
    if (result.status === 'pending' || result.status === 'processing') {
      if (!giving.refuseWhileOpen) return step.payment;
      throw AppError.conflict(`${step.gateway.name} still holds this payment open and did not void it: the shopper may still complete it there`, 'PAYMENT_STILL_OPEN', [
        { path: 'params.id', message: `${step.gateway.name} says it is ${result.status}`, provider_status: result.status },
      ]);
    }
    const answer = result.status === 'failed' ? { ...result, failureReason: giving.failed(step.gateway, Boolean(step.gateway.cancel), result) } : result;
    return this.settlement.settle(step.gateway.name, id, answer);
  }

  /** Voids at the provider where it can, else re-reads: the payment's state there afterwards. */
  private async tellProvider(gateway: PaymentGateway, ctx: GatewayContext, providerPaymentId: string): Promise<ChargeResult> {
    try {
      return gateway.cancel ? await gateway.cancel(ctx, providerPaymentId) : await gateway.status(ctx, providerPaymentId);
    } catch (error) {
      this.logger.warn({ err: error, gateway: gateway.id, providerPaymentId }, 'payment not cancelled at the provider');
      throw new AppError(502, 'GATEWAY_UNAVAILABLE', `${gateway.name} could not be reached to cancel the payment; nothing changed, try again`);
    }
  }
}
