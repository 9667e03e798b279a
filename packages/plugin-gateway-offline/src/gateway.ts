import { Database, isUuid, type Tx } from '@qhatu/core';
import { Payment, type ChargeRequest, type ChargeResult, type GatewayContext, type PaymentGateway, type RefundRequest, type RefundResult } from '@qhatu/plugin-payments';
import { inject, injectable } from 'tsyringe';
import { OfflineMethod } from './entities/method.js';
import { OfflinePayment } from './entities/offline-payment.js';
import { OFFLINE } from './services/methods.js';
import { lockOfflinePayment, receivedFor } from './services/standing.js';

/** ISO 4217 as core's currency check reads it: each store's methods say which of these they take. */
const ANY_CURRENCY: readonly string[] = [...new Set([...Intl.supportedValuesOf('currency'), 'XAG', 'XAU', 'XBA', 'XBB', 'XBC', 'XBD', 'XPD', 'XPT', 'XTS', 'XUA', 'XXX'])].sort();


const failed = (failureReason: string): ChargeResult => ({ status: 'failed', providerPaymentId: null, failureReason });

/**
 * Offline payment methods as a gateway: no provider is called. A charge only checks the store's
 * method and keeps what the shopper was shown; the payment then waits, `pending`, for the receipts
 * the staff record (`OfflineReceipts`), which move it to paid through the payments plugin. The
 * payment's provider id is its own id, set by the first receipt, so that a payment with money
 * received is re-read here (and cannot be cancelled) while one without any is cancelled at once.
 */
@injectable()
export class OfflineGateway implements PaymentGateway {
  readonly id = OFFLINE;
  readonly name = 'Offline payments';
  readonly currencies = ANY_CURRENCY;
  readonly paymentFields = [
    { name: 'method_id', type: 'string' as const, required: true, maxLength: 36, description: "The id of one of the store's offline payment methods that takes the order's currency" },
    { name: 'payer_reference', type: 'string' as const, required: false, maxLength: 200, description: 'What the shopper says of the payment (an operation number, the payer’s name), shown to the staff' },
  ];
  readonly credentialFields = [];
  // No provider: nothing to point elsewhere.
  readonly defaultBaseUrl = '';
  // A repeated charge finds the payment's method already kept; a refund sends nothing anywhere.
  readonly idempotent = { charge: true, refund: true };

  constructor(@inject(Database) private readonly db: Database) {}

  /** Keeps the method the shopper chose; fails the payment when the store has no such method for this currency. */
  async charge(ctx: GatewayContext, req: ChargeRequest): Promise<ChargeResult> {
    return this.db.tenant(async (tx) => {
      const kept = await tx.em.findOne(OfflinePayment, { paymentId: req.paymentId });
      if (kept) return { status: 'pending', providerPaymentId: null, method: kept.methodKind };
      const methodId = String(req.fields.method_id);
      const method = isUuid(methodId) ? await tx.em.findOne(OfflineMethod, { id: methodId }) : null;
      if (!method) return failed(`This store has no offline payment method ${methodId}`);
      if (!method.enabled) return failed(`${method.name} is switched off by the store`);
      if (!method.currencies.includes(req.currency)) return failed(`${method.name} does not take ${req.currency}: it takes ${method.currencies.join(', ')}`);
      const payerReference = typeof req.fields.payer_reference === 'string' ? req.fields.payer_reference : null;
      tx.em.create(OfflinePayment, {
        paymentId: req.paymentId, tenantId: tx.tenantId, methodId: method.id, methodName: method.name, methodKind: method.kind,
        instructions: method.instructions, payerReference, cancelledAt: null, createdAt: tx.now(),
      });
      return { status: 'pending', providerPaymentId: null, method: method.kind };
    }, ctx.tenantId);
  }

  /** What the receipts say: paid once they reach the amount (the receipt that does so moves it first), failed once cancelled. */
  async status(ctx: GatewayContext, providerPaymentId: string): Promise<ChargeResult> {
    return this.db.tenant((tx) => this.standing(tx, providerPaymentId), ctx.tenantId);
  }

  /**
   * A cancel: refused (left pending) while receipts count, since that money was received; else the
   * payment is closed to receipts, with its row locked so that no receipt slips in before it fails.
   */
  async cancel(ctx: GatewayContext, providerPaymentId: string): Promise<ChargeResult> {
    return this.db.tenant(async (tx) => {
      const { offline, payment } = await lockOfflinePayment(tx, providerPaymentId);
      if (!offline || payment.status !== 'pending') return this.standing(tx, providerPaymentId);
      if ((await receivedFor(tx, providerPaymentId)) > 0) return { status: 'pending', providerPaymentId };
      offline.cancelledAt ??= tx.now();
      return { status: 'failed', providerPaymentId, failureReason: 'Cancelled with nothing received' };
    }, ctx.tenantId);
  }

  /** Refunds of offline payments are recorded, not sent: the store gives the money back itself. */
  async refund(_ctx: GatewayContext, _req: RefundRequest): Promise<RefundResult> {
    return { status: 'refunded', providerRefundId: null };
  }

  // No provider sends notifications about offline payments: every one is refused.
  verifyNotification(): boolean {
    return false;
  }

  parseNotification(): null {
    return null;
  }

  private async standing(tx: Tx, paymentId: string): Promise<ChargeResult> {
    const offline = await tx.em.findOne(OfflinePayment, { paymentId });
    const payment = await tx.em.findOne(Payment, { id: paymentId });
    if (!offline || !payment) return failed('No offline payment is kept for this payment');
    if (offline.cancelledAt) return { status: 'failed', providerPaymentId: paymentId, failureReason: 'Cancelled with nothing received' };
    const received = await receivedFor(tx, paymentId);
    return { status: received >= payment.amount ? 'paid' : 'pending', providerPaymentId: paymentId, method: offline.methodKind };
  }
}
