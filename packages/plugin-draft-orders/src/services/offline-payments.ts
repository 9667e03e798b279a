import { AppError, assertPermission, TenantContext, type Tx } from '@qhatu/core';
import { OFFLINE, OfflineMethods, OfflineReceipts } from '@qhatu/plugin-gateway-offline';
import type { Order } from '@qhatu/plugin-orders';
import { Payments } from '@qhatu/plugin-payments';
import type { DependencyContainer } from 'tsyringe';

/** Money staff received for a draft's order by one of the store's offline methods. */
export interface ReceivedPayment {
  method_id: string;
  reference?: string | null;
  received_at?: string;
  note?: string | null;
}

/**
 * How a draft is marked paid. `check` runs first, before anything is placed: the caller may record
 * money, and the method is one the store takes this currency with (its offline gateway switched
 * on). `record` runs in the draft's transaction once its order is placed: the order's payment on
 * the offline gateway (`Payments.create`), then the receipt of what is due
 * (`OfflineReceipts.record`), which pays it. The offline gateway calls no provider, so the payments
 * plugin's services join that transaction: the order, its payment and the receipt commit together
 * or not at all, and the order, its stock and its events follow as for any payment.
 */
export interface DraftPaymentRecorder {
  check(payment: ReceivedPayment, currency: string): Promise<void>;
  record(tx: Tx, order: Order, amount: number, payment: ReceivedPayment): Promise<{ paymentId: string }>;
}

export const DRAFT_PAYMENTS = Symbol.for('qhatu.draft-orders.payments');

/** The permission recording received money takes (the offline plugin's receipts take it too). */
export const CAPTURE_PERMISSION = 'payments.capture';

class OfflineRecorder implements DraftPaymentRecorder {
  constructor(
    private readonly payments: Payments,
    private readonly methods: OfflineMethods,
    private readonly receipts: OfflineReceipts,
  ) {}

  async check(payment: ReceivedPayment, currency: string): Promise<void> {
    assertPermission(TenantContext.principal(), CAPTURE_PERMISSION);
    if ((await this.methods.available(currency)).some((m) => m.id === payment.method_id)) return;
    throw AppError.unprocessable('PAYMENT_METHOD_UNAVAILABLE', `The store takes no offline payment in ${currency} with this method (or its offline payments are switched off)`, [
      { path: 'body.payment.method_id', message: 'is not an enabled offline method of the store for this currency' },
    ]);
  }

  async record(tx: Tx, order: Order, amount: number, received: ReceivedPayment): Promise<{ paymentId: string }> {
    // The order as placed is written first: the payments plugin locks and reads it (its transactions join this one).
    await tx.em.flush();
    const payment = await this.payments.create({ order_id: order.id, gateway: OFFLINE, amount, currency: order.currency, method_id: received.method_id });
    if (payment.status === 'failed') {
      throw AppError.unprocessable('PAYMENT_METHOD_UNAVAILABLE', payment.failureReason ?? 'The offline method refused the payment', [
        { path: 'body.payment.method_id', message: payment.failureReason ?? 'refused' },
      ]);
    }
    await this.receipts.record({ payment_id: payment.id, amount, reference: received.reference ?? null, received_at: received.received_at, note: received.note ?? null });
    return { paymentId: payment.id };
  }
}

/** Without the payments and offline plugins a draft cannot be marked paid: 422 saying what to install. */
const UNAVAILABLE: DraftPaymentRecorder = {
  async check() {
    throw AppError.unprocessable('OFFLINE_PAYMENTS_UNAVAILABLE', 'Marking a draft paid needs the payments and offline payments plugins', [
      { path: 'body.payment', message: 'no offline payment methods are installed' },
    ]);
  },
  async record() {
    throw new Error('no offline payments');
  },
};

/** The offline plugin's recorder when it and the payments plugin are installed (resolved once every plugin registered). */
export function paymentRecorderOf(container: DependencyContainer): DraftPaymentRecorder {
  if (!container.isRegistered(OfflineReceipts, true) || !container.isRegistered(Payments, true)) return UNAVAILABLE;
  return new OfflineRecorder(container.resolve(Payments), container.resolve(OfflineMethods), container.resolve(OfflineReceipts));
}
