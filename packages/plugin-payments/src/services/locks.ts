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

/** 409 PAYMENT_IN_PROGRESS: a call to the provider about this payment has no answer yet. */
export function unanswered(payment: Payment, retryAfterMs: number): AppError {
  return AppError.conflict('The payment provider has not answered about this payment yet; it is asked again shortly', 'PAYMENT_IN_PROGRESS', [
    { path: 'params.id', message: `waits for the provider's answer to its ${payment.awaitingAnswer}`, payment_id: payment.id, retry_after_seconds: Math.ceil(retryAfterMs / 1000) },
  ]);
}
