import type { ChargeResult, RefundResult } from '@qhatu/plugin-payments';
import type { NiubizAnswer, NiubizData } from './client.js';

/** Niubiz's action code of an approved authorization. */
export const APPROVED = '000';

/** The refund states Niubiz reports once a devolución is settled, in its Spanish or English words. */
const REFUNDED_STATES = new Set(['PROCESADO', 'PROCESADA', 'DEVUELTO', 'DEVUELTA', 'APROBADO', 'APROBADA', 'PROCESSED', 'REFUNDED', 'APPROVED', 'COMPLETED']);
const REFUSED_STATES = new Set(['RECHAZADO', 'RECHAZADA', 'ANULADO', 'ANULADA', 'DENEGADO', 'DENEGADA', 'REJECTED', 'DENIED', 'CANCELLED', 'FAILED']);

/** Niubiz's message for an answer that is not what was asked for. */
export function errorMessage(answer: NiubizAnswer): string {
  const data = firstData(answer);
  return data?.ACTION_DESCRIPTION ?? data?.DSCERROR ?? answer.json.errorMessage ?? `Niubiz answered ${answer.status}`;
}

function firstData(answer: NiubizAnswer): NiubizData | null {
  const data = answer.json.data;
  if (Array.isArray(data)) return data[0] ?? null;
  return data ?? null;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value) || (typeof value === 'number' && Number.isFinite(value) ? String(value) : null);

/**
 * An authorization (or its re-read) as a charge result: `ACTION_CODE "000"` is a sale (paid, the
 * TRANSACTION_ID is the provider's payment id); any other action code is failed with Niubiz's
 * ACTION_DESCRIPTION, STATUS and code; an answer without an action code is failed with its message.
 */
export function authorizationResult(answer: NiubizAnswer): ChargeResult {
  const map = answer.json.dataMap ?? firstData(answer);
  const code = text(map?.ACTION_CODE) ?? text(answer.json.order?.actionCode);
  const transactionId = text(map?.TRANSACTION_ID) ?? text(answer.json.order?.transactionId);
  const method = map?.BRAND ? map.BRAND.toLowerCase() : 'card';
  if (answer.ok && code === APPROVED) {
    if (!transactionId) throw new Error('Niubiz approved the authorization without a TRANSACTION_ID');
    return { status: 'paid', providerPaymentId: transactionId, method };
  }
  if (code) {
    const reason = map?.ACTION_DESCRIPTION ?? answer.json.errorMessage ?? 'Niubiz did not authorize the payment';
    const detail = [map?.STATUS, `ACTION_CODE ${code}`].filter(Boolean).join(', ');
    return { status: 'failed', providerPaymentId: transactionId, method, failureReason: `${reason} (${detail})` };
  }
  return { status: 'failed', providerPaymentId: null, failureReason: errorMessage(answer) };
}

/** A refund registration or its re-read: settled, refused, or (Niubiz's usual answer) still under way. */
export function refundState(data: NiubizData | null, providerRefundId: string): RefundResult {
  const state = (data?.ESTADO ?? data?.STATUS ?? '').trim().toUpperCase();
  if (REFUNDED_STATES.has(state)) return { status: 'refunded', providerRefundId };
  if (REFUSED_STATES.has(state)) {
    return { status: 'failed', providerRefundId, failureReason: `Niubiz refused the refund: ${data?.DSCESTADO ?? data?.DSCERROR ?? state}` };
  }
  return { status: 'processing', providerRefundId };
}

/**
 * The answer to a refund registration: `errorCode` 0 and `CODERROR` "100" is a devolución
 * registered (processing until Niubiz settles it); anything else is failed with its message.
 */
export function refundResult(answer: NiubizAnswer, providerRefundId: string): RefundResult {
  const data = firstData(answer);
  const errorCode = answer.json.errorCode === undefined ? 0 : Number(answer.json.errorCode);
  const registered = answer.ok && errorCode === 0 && (data?.CODERROR === undefined || String(data.CODERROR) === '100');
  if (!registered) {
    const code = data?.CODERROR === undefined ? '' : ` (CODERROR ${data.CODERROR})`;
    return { status: 'failed', providerRefundId: null, failureReason: `${errorMessage(answer)}${code}` };
  }
  return refundState(data, providerRefundId);
}

/** The query-refund answer's entry for one devolución (an object, or a list to search). */
export function refundEntry(answer: NiubizAnswer, externalReferenceId: string): NiubizData | null {
  const data = answer.json.data;
  if (Array.isArray(data)) return data.find((d) => d.externalReferenceId === externalReferenceId) ?? null;
  return data ?? null;
}
