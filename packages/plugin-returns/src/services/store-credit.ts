import { AppError, type Tx } from '@qhatu/core';
import type { Order } from '@qhatu/plugin-orders';
import { STORE_CREDIT, type StoreCreditService } from '@qhatu/plugin-store-credit';
import type { DependencyContainer } from 'tsyringe';

/** Refunds as store credit: the store-credit plugin's `STORE_CREDIT` when it is installed. */
export interface StoreCreditGrants {
  /** 422 STORE_CREDIT_UNAVAILABLE without the plugin; 422 CUSTOMER_REQUIRED for an order of no customer account. */
  assertAvailable(order: Pick<Order, 'customerId'>): void;
  /** Adds `amount` to the order's customer's credit inside `tx`, once per return. */
  grant(tx: Tx, input: { order: Order; returnId: string; returnName: string; amount: number }): Promise<{ entryId: string; balance: number }>;
}

export const STORE_CREDIT_GRANTS = Symbol.for('qhatu.returns.store-credit');

const unavailable = () =>
  AppError.unprocessable('STORE_CREDIT_UNAVAILABLE', 'This store gives no store credit: refund through the order’s payments', [
    { path: 'body.refund_method', message: 'store_credit needs the store-credit plugin' },
  ]);

class Grants implements StoreCreditGrants {
  constructor(private readonly credit: StoreCreditService | null) {}

  assertAvailable(order: Pick<Order, 'customerId'>): void {
    if (!this.credit) throw unavailable();
    if (!order.customerId) {
      throw AppError.unprocessable('CUSTOMER_REQUIRED', 'Store credit is kept on a customer account; this order has none', [{ path: 'body.refund_method', message: 'the order has no customer' }]);
    }
  }

  async grant(tx: Tx, input: { order: Order; returnId: string; returnName: string; amount: number }) {
    this.assertAvailable(input.order);
    return this.credit!.grant(tx, {
      customerId: input.order.customerId!,
      currency: input.order.currency.trim(),
      amount: input.amount,
      reason: `Return ${input.returnName} of order #${input.order.number}`,
      source: { type: 'return', id: input.returnId },
    });
  }
}

/** The store-credit plugin's service when installed, whichever order the plugins register in. */
export function storeCreditOf(container: DependencyContainer): StoreCreditGrants {
  return new Grants(container.isRegistered(STORE_CREDIT, true) ? container.resolve<StoreCreditService>(STORE_CREDIT) : null);
}
