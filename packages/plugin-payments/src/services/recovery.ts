import { CONFIG, Database, LOGGER, Secrets, type QhatuConfig } from '@qhatu/core';
import type { Logger } from 'pino';
import { inject, injectable } from 'tsyringe';
import { Payment } from '../entities/payment.js';
import type { ChargeRequest, ChargeResult, GatewayContext, PaymentGateway, StoredSession } from '../gateway.js';
import { GatewaySettings } from './gateway-settings.js';
import { Gateways } from './gateways.js';
import { lockPayment } from './locks.js';
import { Sessions } from './sessions.js';
import { paymentSettings, type PaymentSettings } from './settings.js';
import { failedWith, Settlement } from './settlement.js';

/** What a gateway's `charge` gets for a payment: the first time, and each time it is repeated. */
export function chargeOf(payment: Payment, fields: Record<string, unknown>, session: StoredSession | null): ChargeRequest {
  return { paymentId: payment.id, orderId: payment.orderId, amount: payment.amount, currency: payment.currency, fields, session };
}

interface Unanswered {
  payment: Payment;
  gateway: PaymentGateway;
  session: StoredSession | null;
  ctx: GatewayContext;
}

/**
 * Charges whose answer was lost (a timeout, a dropped connection, the process killed between the
 * record and the answer): asked again once the payment was untouched for the quiet time, so that
 * the first call can no longer be under way. An idempotent gateway repeats the charge with the
 * same payment id (its idempotency key) and the fields sealed when the payment was recorded;
 * another looks it up by the store's own reference. Only the provider's word settles it.
 */
@injectable()
export class ChargeRecovery {
  readonly settings: PaymentSettings;

  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Gateways) private readonly gateways: Gateways,
    @inject(GatewaySettings) private readonly gatewaySettings: GatewaySettings,
    @inject(Sessions) private readonly sessions: Sessions,
    @inject(Secrets) private readonly secrets: Secrets,
    @inject(Settlement) private readonly settlement: Settlement,
    @inject(LOGGER) private readonly logger: Logger,
    @inject(CONFIG) config: QhatuConfig,
  ) {
    this.settings = paymentSettings(config);
  }

  /** True when `payment` waits for an answer and was untouched long enough to be asked again at `now`. */
  due(payment: Payment, now: Date): boolean {
    return payment.status === 'pending' && Boolean(payment.awaitingAnswer) && now.getTime() - payment.updatedAt.getTime() >= this.settings.askAgainMs;
  }

  /**
   * Asks the provider again about the payment's unanswered call, when it is due; its answer moves
   * the payment, which is returned. Null when nothing was asked or no answer came.
   */
  async recover(id: string): Promise<Payment | null> {
    const found = await this.db.tenant(async (tx): Promise<Unanswered | null> => {
      const payment = await tx.em.findOne(Payment, { id });
      const gateway = payment && this.gateways.find(payment.gateway);
      if (!payment || !gateway || !this.due(payment, tx.now())) return null;
      const session = payment.sessionId ? await this.sessions.stored(tx, payment.sessionId) : null;
      return { payment, gateway, session, ctx: await this.gatewaySettings.context(tx, gateway, { forNewPayments: false }) };
    });
    if (!found) return null;
    const { payment, gateway } = found;
    let result: ChargeResult | null | undefined;
    try {
      result = await this.ask(found);
    } catch (error) {
      this.logger.warn({ err: error, gateway: gateway.id, paymentId: id }, 'payment provider not reached again; asked later');
      await this.settlement.stillUnanswered(id);
      return null;
    }
    if (result === undefined) {
      this.logger.warn({ gateway: gateway.id, paymentId: id }, `${gateway.name} can neither repeat nor look up a charge; the payment waits for its provider's notification`);
      await this.settlement.stillUnanswered(id);
      return null;
    }
    if (result) return this.settlement.settle(gateway.name, id, result);
    if (payment.awaitingAnswer === 'confirm') return this.backToWaiting(id);
    return this.settlement.settle(gateway.name, id, failedWith(`${gateway.name} has no charge for this payment: its charge never reached ${gateway.name}`));
  }

  /** The repeat (idempotent charge) or the look-up; null is the provider's "no such charge", undefined "nothing to ask". */
  private async ask({ payment, gateway, session, ctx }: Unanswered): Promise<ChargeResult | null | undefined> {
    if (payment.awaitingAnswer === 'charge' && gateway.idempotent?.charge && payment.retryFields) {
      const fields = JSON.parse(this.secrets.open(payment.retryFields)) as Record<string, unknown>;
      return gateway.charge(ctx, chargeOf(payment, fields, session));
    }
    if (gateway.lookup) {
      return gateway.lookup(ctx, { paymentId: payment.id, orderId: payment.orderId, amount: payment.amount, currency: payment.currency, session, createdAt: payment.createdAt });
    }
    return payment.providerPaymentId ? gateway.status(ctx, payment.providerPaymentId) : undefined;
  }

  /** A confirm that never reached the provider: the payment waits for the shopper again, who may confirm once more. */
  private async backToWaiting(id: string): Promise<Payment> {
    return this.db.tenant(async (tx) => {
      const payment = await lockPayment(tx, id);
      if (payment.status !== 'pending' || payment.awaitingAnswer !== 'confirm') return payment;
      payment.awaitingAnswer = null;
      payment.updatedAt = tx.now();
      return payment;
    });
  }
}
