import { LockMode } from '@mikro-orm/core';
import { AppError, type Tx } from '@qhatu/core';
import { Payment } from '../entities/payment.js';

export async function lockPayment(tx: Tx, id: string): Promise<Payment> {
  const payment = await tx.em.findOne(Payment, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!payment) throw AppError.notFound('Payment', 'PAYMENT_NOT_FOUND');
  return payment;
}

/** The reason a gateway call threw, for the payment's failure_reason. */
export function unreachable(error: unknown): string {
  return `The payment provider could not be reached: ${error instanceof Error ? error.message : String(error)}`;
}

/**
 * A charge or refund whose answer was lost, on an idempotent gateway, is repeated for this long,
 * well within the time providers keep idempotency keys; then it is failed.
 */
export const RETRY_FOR_MS = 6 * 3_600_000;
