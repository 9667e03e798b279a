import { Database } from '@qhatu/core';
import { Order } from '@qhatu/plugin-orders';
import { Payments, Refunds, type PaymentStatus } from '@qhatu/plugin-payments';
import type { DependencyContainer } from 'tsyringe';

/** Payments some of whose money can still go back. */
const REFUNDABLE: readonly PaymentStatus[] = ['paid', 'partially_refunded'];

/**
 * Sends back what an order's payments brought in beyond its total (less its `amount_waived`) after an edit, through its own
 * payments (the payments plugin's `Refunds`, on each payment's gateway), newest payment first.
 * Worked out from the payments as they stand (refunds in progress count), so running it again
 * refunds nothing twice. A refusal by a provider is thrown: the job tries again.
 */
export interface EditRefunder {
  refundOverpaid(orderId: string): Promise<number>;
}

export const EDIT_REFUNDS = Symbol.for('qhatu.order-edits.refunds');

class PaymentsRefunder implements EditRefunder {
  constructor(
    private readonly db: Database,
    private readonly payments: Payments,
    private readonly refunds: Refunds,
  ) {}

  async refundOverpaid(orderId: string): Promise<number> {
    const order = await this.db.tenant(({ em }) => em.findOne(Order, { id: orderId }, { refresh: true }));
    if (!order) return 0;
    const { page, refunds } = await this.payments.list({ limit: 100, sort: '-created_at' }, { order_id: orderId });
    const left = page.items
      .filter((p) => REFUNDABLE.includes(p.status) && p.currency === order.currency)
      .map((p) => ({ id: p.id, left: p.amount - (refunds.get(p.id) ?? []).filter((r) => r.status !== 'failed').reduce((s, r) => s + r.amount, 0) }));
    // What the order costs the customer: its total less what the store gave up of it (a refund outside an edit stays given).
    let over = left.reduce((s, p) => s + p.left, 0) - (order.total - order.amountWaived);
    let refunded = 0;
    for (const p of left) {
      if (over <= 0) break;
      const amount = Math.min(over, p.left);
      if (amount <= 0) continue;
      await this.refunds.create(p.id, { amount, reason: 'other' });
      over -= amount;
      refunded += amount;
    }
    return refunded;
  }
}

/** Without the payments plugin an order has no payments, so nothing to send back. */
const NOTHING: EditRefunder = { refundOverpaid: async () => 0 };

export function refunderOf(container: DependencyContainer): EditRefunder {
  if (!container.isRegistered(Payments, true) || !container.isRegistered(Refunds, true)) return NOTHING;
  return new PaymentsRefunder(container.resolve(Database), container.resolve(Payments), container.resolve(Refunds));
}
