import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { AppError, Database, LOGGER, type Tx } from '@qhatu/core';
import { Order } from '@qhatu/plugin-orders';
import type { Logger } from 'pino';
import { inject, injectable } from 'tsyringe';
import { Payment } from '../entities/payment.js';
import { Refund } from '../entities/refund.js';
import type { ChargeResult } from '../gateway.js';
import { paymentMachine } from '../machines/payment.js';
import { publishFailed, publishPaid } from './events.js';
import { GatewaySettings } from './gateway-settings.js';
import { Gateways } from './gateways.js';

export interface PaymentInput extends Record<string, unknown> {
  order_id: string;
  gateway: string;
  amount: number;
  currency: string;
}

const FINAL = new Set(['paid', 'failed', 'partially_refunded', 'refunded']);

export async function lockPayment(tx: Tx, id: string): Promise<Payment> {
  const payment = await tx.em.findOne(Payment, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!payment) throw AppError.notFound('Payment', 'PAYMENT_NOT_FOUND');
  return payment;
}

/** The reason a gateway call threw, for the payment's failure_reason. */
export function unreachable(error: unknown): string {
  return `The payment provider could not be reached: ${error instanceof Error ? error.message : String(error)}`;
}

/** Payments: recorded first, then charged on the gateway outside any transaction, then moved by the answer. */
@injectable()
export class Payments {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(Gateways) private readonly gateways: Gateways,
    @inject(GatewaySettings) private readonly settings: GatewaySettings,
    @inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Always records the payment once the gateway is configured: `failed` with the reason when the provider refuses or is unreachable. */
  async create(input: PaymentInput): Promise<Payment> {
    const { gateway, fields } = this.gateways.checkPayment(input);
    const { payment, ctx } = await this.db.tenant(async (tx) => {
      const ctx = await this.settings.context(tx, gateway, { forNewPayments: true });
      const order = await tx.em.findOne(Order, { id: input.order_id });
      if (!order) throw new AppError(404, 'ORDER_NOT_FOUND', 'Order not found', [{ path: 'body.order_id', message: 'no such order in this store' }]);
      const at = tx.now();
      const payment = tx.em.create(Payment, {
        id: randomUUID(), tenantId: tx.tenantId, orderId: order.id, gateway: gateway.id, amount: input.amount, currency: input.currency,
        status: 'pending', providerPaymentId: null, method: null, failureReason: null, nextAction: null, refundedAmount: 0,
        capturedAt: null, createdAt: at, updatedAt: at,
      });
      return { payment, ctx };
    });
    let result: ChargeResult;
    try {
      result = await gateway.charge(ctx, { paymentId: payment.id, orderId: payment.orderId, amount: payment.amount, currency: payment.currency, fields });
    } catch (error) {
      this.logger.warn({ err: error, gateway: gateway.id, paymentId: payment.id }, 'payment gateway call failed');
      result = { status: 'failed', providerPaymentId: null, failureReason: unreachable(error) };
    }
    return this.db.tenant(async (tx) => this.applyCharge(tx, await lockPayment(tx, payment.id), result));
  }

  /** The payment with its refunds; one still open is re-read from the provider first (polling). */
  async get(id: string): Promise<{ payment: Payment; refunds: Refund[] }> {
    const payment = await this.db.tenant(({ em }) => em.findOne(Payment, { id }));
    if (!payment) throw AppError.notFound('Payment', 'PAYMENT_NOT_FOUND');
    if (!FINAL.has(payment.status) && payment.providerPaymentId) await this.poll(payment);
    return this.db.tenant(async ({ em }) => ({
      payment: (await em.findOne(Payment, { id }))!,
      refunds: await em.find(Refund, { paymentId: id }, { orderBy: { createdAt: 'asc', id: 'asc' } }),
    }));
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
    if (FINAL.has(payment.status)) return payment;
    if (result.method) payment.method = result.method;
    payment.nextAction = result.status === 'pending' ? (result.nextAction ?? null) : null;
    payment.updatedAt = tx.now();
    if (result.status === 'failed') {
      payment.failureReason = result.failureReason ?? 'The payment provider refused the payment';
      await paymentMachine.apply(tx, payment, 'fail');
      publishFailed(tx, payment);
      return payment;
    }
    if (result.status === 'pending') return payment;
    if (payment.status === 'pending') await paymentMachine.apply(tx, payment, 'process');
    if (result.status === 'paid') {
      payment.capturedAt = tx.now();
      await paymentMachine.apply(tx, payment, 'capture');
      publishPaid(tx, payment);
    }
    return payment;
  }
}
