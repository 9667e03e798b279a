import { LockMode } from '@mikro-orm/core';
import { AppError, type Tx } from '@qhatu/core';
import { Payment } from '@qhatu/plugin-payments';
import { OfflinePayment } from '../entities/offline-payment.js';

export const paymentNotFound = () => new AppError(404, 'PAYMENT_NOT_FOUND', 'Payment not found', [{ path: 'body.payment_id', message: 'no such payment in this store' }]);

/**
 * The payment row locked (the payments plugin's own lock: every move of a payment takes it), and
 * the offline payment kept for it, if any. Receipts, voids and cancels of one payment queue here.
 */
export async function lockOfflinePayment(tx: Tx, paymentId: string): Promise<{ payment: Payment; offline: OfflinePayment | null }> {
  const payment = await tx.em.findOne(Payment, { id: paymentId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!payment) throw paymentNotFound();
  const offline = await tx.em.findOne(OfflinePayment, { paymentId }, { refresh: true });
  return { payment, offline };
}

/** What the receipts of a payment that still count add up to. */
export async function receivedFor(tx: Tx, paymentId: string): Promise<number> {
  const [row] = await tx.query<{ received: string }>(
    'select coalesce(sum(amount), 0) as received from offline_receipt where tenant_id = ? and payment_id = ? and voided_at is null',
    [tx.tenantId, paymentId],
  );
  return Number(row.received);
}
