import { LockMode } from '@mikro-orm/core';
import { Database, LOGGER } from '@qhatu/core';
import type { Logger } from 'pino';
import { inject, injectable } from 'tsyringe';
import { z } from 'zod';
import { Checkout } from '../entities/checkout.js';
import { checkoutMachine } from '../machines/checkout.js';

/** No longer published (a checkout completes when its order is paid, however many payments that took); declared for existing webhook subscriptions. */
export const CHECKOUT_PAYMENT_MISMATCH = 'checkout.checkout.payment_mismatch';

/** The orders plugin's `orders.order.paid`, as far as completion reads it. */
export const OrderPaidData = z.object({ id: z.uuid(), status: z.string() });
export type OrderPaid = z.input<typeof OrderPaidData>;

/**
 * Completion of a checkout by its order: the job queued for `orders.order.paid` (decision 0055).
 * The checkout row is locked and must await payment for that order; then `completed`, once.
 */
@injectable()
export class CheckoutCompletion {
  constructor(
    @inject(Database) private readonly db: Database,
    @inject(LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * payment_pending → completed: the order was paid in full (one payment or several, or nothing
   * to pay) and holds its stock. A second run, or a concurrent one, finds it completed and does
   * nothing. Returns the checkout when it was completed by this call, null otherwise.
   */
  async orderPaid(data: OrderPaid): Promise<Checkout | null> {
    const parsed = OrderPaidData.safeParse(data);
    if (!parsed.success) {
      this.logger.warn({ data, issues: parsed.error.issues }, 'orders.order.paid with unusable data; ignored by checkout');
      return null;
    }
    return this.db.tenant(async (tx) => {
      const checkout = await tx.em.findOne(Checkout, { orderId: parsed.data.id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
      // Orders placed outside a checkout (the REST create) have none: nothing to do.
      if (!checkout || checkout.status !== 'payment_pending') return null;
      checkout.completedAt = tx.now();
      checkout.updatedAt = tx.now();
      return checkoutMachine.apply(tx, checkout, 'complete');
    });
  }
}
