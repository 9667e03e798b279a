import type { ChargeResult, RefundResult } from '@qhatu/plugin-payments';
import type { LyraPayment, LyraTransaction } from './lyra.js';

/** Lyra's detailed statuses that mean the money is taken (or will be at the next remittance). */
const PAID = new Set(['AUTHORISED', 'CAPTURED', 'ACCEPTED']);
/** Lyra's detailed statuses of a transaction that will never take the money. */
const UNPAID = new Set(['REFUSED', 'CANCELLED', 'EXPIRED', 'ERROR', 'CAPTURE_FAILED', 'ABANDONED']);

type Verdict = 'paid' | 'processing' | 'failed';

/**
 * Lyra's verdict on a transaction: `status` PAID (AUTHORISED, CAPTURED) is paid; UNPAID (REFUSED,
 * CANCELLED, EXPIRED…) is failed; RUNNING (WAITING_AUTHORISATION, AUTHORISED_TO_VALIDATE,
 * UNDER_VERIFICATION…) and anything Lyra adds later is still under way.
 */
export function verdict(tx: LyraTransaction): Verdict {
  if (tx.status === 'PAID' || (!tx.status && PAID.has(tx.detailedStatus ?? ''))) return 'paid';
  if (tx.status === 'UNPAID' || (!tx.status && UNPAID.has(tx.detailedStatus ?? ''))) return 'failed';
  return 'processing';
}

/** Why Lyra did not take the money: `Izipay REFUSED the transaction: payment refused (ACQ_001/51)`. */
export function refusal(tx: LyraTransaction, what = 'transaction'): string {
  const codes = [tx.errorCode, tx.detailedErrorCode].filter(Boolean).join('/');
  const message = tx.errorMessage || tx.detailedErrorMessage || 'no reason given';
  return `Izipay ${tx.detailedStatus ?? tx.status ?? 'refused'} the ${what}: ${message}${codes ? ` (${codes})` : ''}`;
}

/** The payment method as `card:visa`, or Lyra's `paymentMethodType` in lower case. */
export function methodOf(tx: LyraTransaction): string | null {
  const type = tx.paymentMethodType?.toLowerCase() ?? null;
  const brand = tx.transactionDetails?.cardDetails?.effectiveBrand?.toLowerCase() ?? null;
  if (type === 'card' || (!type && brand)) return brand ? `card:${brand}` : 'card';
  return type;
}

/** A debit transaction as a charge result. */
export function chargeResult(tx: LyraTransaction): ChargeResult {
  const base = { providerPaymentId: tx.uuid, method: methodOf(tx) };
  const v = verdict(tx);
  return v === 'failed' ? { ...base, status: 'failed', failureReason: refusal(tx) } : { ...base, status: v };
}

/**
 * What CancelOrRefund (or a re-read) tells of a refund. A refund is a CREDIT transaction of its
 * own; a cancellation brings the debit back as CANCELLED, so the money never left the buyer.
 */
export function refundResult(tx: LyraTransaction): RefundResult {
  if (tx.operationType === 'CREDIT') {
    const v = verdict(tx);
    if (v === 'failed') return { status: 'failed', providerRefundId: tx.uuid, failureReason: refusal(tx, 'refund') };
    return { status: v === 'paid' ? 'refunded' : 'processing', providerRefundId: tx.uuid };
  }
  if (tx.detailedStatus === 'CANCELLED') return { status: 'refunded', providerRefundId: tx.uuid };
  return { status: 'failed', providerRefundId: null, failureReason: `Izipay left transaction ${tx.uuid} ${tx.detailedStatus ?? tx.status ?? 'unchanged'}: neither refunded nor cancelled` };
}

/** `kr-answer` read as Lyra's `V4/Payment`; a string says why it cannot be. */
export function readKrAnswer(text: string): LyraPayment | string {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch (error) {
    return `kr_answer is not JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (!answer || typeof answer !== 'object' || Array.isArray(answer)) return 'kr_answer is not a JSON object';
  const transactions = (answer as { transactions?: unknown }).transactions;
  if (!Array.isArray(transactions) || transactions.some((t) => !t || typeof t !== 'object' || typeof (t as { uuid?: unknown }).uuid !== 'string')) {
    return 'kr_answer is not an Izipay payment answer: it has no transactions with a uuid';
  }
  return answer as LyraPayment;
}
