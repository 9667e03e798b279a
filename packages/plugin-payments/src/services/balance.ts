import { LockMode } from '@mikro-orm/core';
import { AppError, type Tx } from '@qhatu/core';
import { awaitsPayment, Order } from '@qhatu/plugin-orders';

/**
 * The order a new payment or session is for, locked until the transaction ends: two payments of
 * one order are recorded one after the other, each seeing the other's amount. 404 when it is not
 * the store's, 409 when it no longer awaits payment.
 */
export async function lockOrderToPay(tx: Tx, orderId: string): Promise<Order> {
  const order = await tx.em.findOne(Order, { id: orderId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!order) throw new AppError(404, 'ORDER_NOT_FOUND', 'Order not found', [{ path: 'body.order_id', message: 'no such order in this store' }]);
  // Pending or confirmed, or shipped before it was paid (cash on delivery, an order on a company's account).
  if (!awaitsPayment(order)) {
    throw AppError.conflict(`The order is ${order.status}: there is nothing to pay`, 'ORDER_NOT_PAYABLE', [{ path: 'body.order_id', message: `status is ${order.status}` }]);
  }
  return order;
}

/**
 * What is still due on a locked order: its total, less what the store gave up of it
 * (`amount_waived`) and every payment that is not failed, net of its confirmed refunds. Payments still pending or processing count (they may yet succeed), so
 * payments made at once can never together exceed the total. Read after the lock: it sees every
 * payment committed before.
 */
export async function amountStillDue(tx: Tx, order: Order): Promise<number> {
  const [row] = await tx.em.execute<Array<{ taken: string }>>(
    `select coalesce(sum(amount - refunded_amount), 0) as taken from payments_payment
      where tenant_id = ? and order_id = ? and status <> 'failed'`,
    [tx.tenantId, order.id],
  );
  return Math.max(0, order.total - order.amountWaived - Number(row.taken));
}

/** 422 PAYMENT_EXCEEDS_BALANCE: an amount above what is still due on the order. */
export function exceedsBalance(due: number, order: Order): AppError {
  return AppError.unprocessable('PAYMENT_EXCEEDS_BALANCE', `The payment exceeds what is still due on the order: at most ${due} ${order.currency}`, [
    { path: 'body.amount', message: `must be at most ${due}, what the order's total leaves after its other payments (those in progress included)`, amount_due: due, order_total: order.total },
  ]);
}
