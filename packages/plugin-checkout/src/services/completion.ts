import { LockMode } from '@mikro-orm/core';
import { Database, LOGGER } from '@qhatu/core';
import { PaymentConfirmedData, type PaymentConfirmed } from '@qhatu/plugin-orders';
import type { Logger } from 'pino';
import { inject, injectable } from 'tsyringe';
import { Checkout } from '../entities/checkout.js';
import { checkoutMachine } from '../machines/checkout.js';

export const CHECKOUT_PAYMENT_MISMATCH = 'checkout.checkout.payment_mismatch';

/**
 * Completion of a checkout by its payment: the job queued for `payments.payment.confirmed`.
 * The checkout row is locked and must await payment for that order; then `completed`, once.
 */
@injectable()
export class CheckoutCompletion {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * payment_pending → completed when the payment is the checkout's total in its currency. A
   * second run, or a concurrent one, finds it completed and does nothing; a payment of another
   * amount or currency leaves it pending and publishes checkout.checkout.payment_mismatch.
   * Returns the checkout when it was completed by this call, null otherwise.
   */
  async complete(data: PaymentConfirmed): Promise<Checkout | null> {
    const parsed = PaymentConfirmedData.safeParse(data);
    if (!parsed.success) {
      this.logger.warn({ data, issues: parsed.error.issues }, 'payments.payment.confirmed with unusable data; ignored by checkout');
      return null;
    }
    const payment = parsed.data;
    return this.db.tenant(async (tx) => {
      const checkout = await tx.em.findOne(Checkout, { orderId: payment.order_id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
      // Orders placed outside a checkout (the REST create) have none: nothing to do.
      if (!checkout || checkout.status !== 'payment_pending') return null;
      if (payment.amount !== checkout.total || payment.currency !== checkout.currency) {
        tx.publish(CHECKOUT_PAYMENT_MISMATCH, {
          id: checkout.id, order_id: payment.order_id, payment_id: payment.payment_id,
          amount: payment.amount, currency: payment.currency, checkout_total: checkout.total, checkout_currency: checkout.currency,
        });
        return null;
      }
      checkout.completedAt = tx.now();
      checkout.updatedAt = tx.now();
      return checkoutMachine.apply(tx, checkout, 'complete');
    });
  }
}
