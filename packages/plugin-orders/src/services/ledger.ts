import type { Tx } from '@qhatu/core';
import type { Order } from '../entities/order.js';

/** A payment of the order as the payments plugin knows it: what came in and what went back. */
export interface PaymentEntry {
  payment_id: string;
  amount: number;
  currency: string;
  /** What the provider confirmed refunded of it (0 when only confirmed). */
  refunded_amount: number;
}

/**
 * Records payments in the order's ledger (`orders_payment`, one row per payment, so a repeated job
 * counts nothing twice; a refunded amount only ever grows) and sets the order's `amountPaid` and
 * `amountRefunded` from it, in the order's currency only. The order must be locked by the caller.
 */
export async function recordPayments(tx: Tx, order: Order, entries: PaymentEntry[]): Promise<void> {
  if (entries.length > 0) {
    await tx.em.execute(
      `insert into orders_payment (tenant_id, order_id, payment_id, amount, currency, refunded_amount, recorded_at)
       select ?, ?, e.payment_id, e.amount, e.currency, e.refunded_amount, ?
         from jsonb_to_recordset(?::jsonb) as e(payment_id text, amount bigint, currency text, refunded_amount bigint)
       on conflict (tenant_id, order_id, payment_id)
         do update set refunded_amount = greatest(orders_payment.refunded_amount, excluded.refunded_amount)`,
      [tx.tenantId, order.id, tx.now(), JSON.stringify(entries)],
    );
  }
  const [sums] = await tx.em.execute<Array<{ paid: string; refunded: string }>>(
    `select coalesce(sum(amount), 0) as paid, coalesce(sum(least(refunded_amount, amount)), 0) as refunded
       from orders_payment where tenant_id = ? and order_id = ? and currency = ?`,
    [tx.tenantId, order.id, order.currency],
  );
  const paid = Number(sums.paid);
  const refunded = Number(sums.refunded);
  if (paid !== order.amountPaid || refunded !== order.amountRefunded) {
    order.amountPaid = paid;
    order.amountRefunded = refunded;
    order.updatedAt = tx.now();
  }
}

/** The order's figures the money it is owed is worked out from. */
type Money = Pick<Order, 'status' | 'total' | 'amountPaid' | 'amountRefunded' | 'amountWaived'>;

/** States an order reaches by shipping, which it may do before it is paid (cash on delivery, an order on a company's account). */
export const SHIPPED_STATUSES: ReadonlySet<string> = new Set(['ready_to_ship', 'in_transit', 'partially_fulfilled', 'fulfilled']);

/** True while the order waits for its money: pending or confirmed, or shipped and not paid yet. */
export const awaitsPayment = (order: Pick<Order, 'status' | 'paidAt'>) =>
  order.status === 'pending' || order.status === 'confirmed' || (order.paidAt == null && SHIPPED_STATUSES.has(order.status));

/**
 * What the order's confirmed payments, net of refunds, still leave to pay of what it costs the
 * customer (`total − amountWaived`) while it awaits payment ({@link awaitsPayment}); 0 otherwise.
 */
export function amountDue(order: Money & Pick<Order, 'paidAt'>): number {
  if (!awaitsPayment(order)) return 0;
  return Math.max(0, order.total - order.amountWaived - (order.amountPaid - order.amountRefunded));
}

/** {@link amountDue} in SQL, over the `orders_order` row `o`. */
export const AMOUNT_DUE_SQL = `case when o.status in ('pending', 'confirmed') or (o.paid_at is null and o.status in (${[...SHIPPED_STATUSES].map((s) => `'${s}'`).join(', ')}))
  then greatest(0, o.total - o.amount_waived - (o.amount_paid - o.amount_refunded)) else 0 end`;

/** True when the confirmed payments, net of refunds, cover what the order costs the customer (always, for a total of 0). */
export const isCovered = (order: Money) => order.amountPaid - order.amountRefunded >= order.total - order.amountWaived;

/**
 * What an edit of the order gives up for good before it applies its new totals (decision 0085):
 * on an order that was paid and no longer awaits payment, what refunds made outside an edit (a
 * goodwill refund, a return's) left its payments short of what it cost. The order then owes
 * exactly what the edit adds, and a cheaper edit sends back exactly what it takes off.
 */
export function waivedBy(order: Money & Pick<Order, 'paidAt'>): number {
  if (order.paidAt == null || order.status === 'pending' || order.status === 'confirmed') return 0;
  return Math.max(0, order.total - order.amountWaived - (order.amountPaid - order.amountRefunded));
}
