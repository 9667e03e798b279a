import type { ChargeResult } from '@qhatu/plugin-payments';
import { alignetMessage, type AlignetMeta } from './client.js';

/** Pay-me takes soles; its API names currencies by their ISO 4217 number. */
export const PAYME_CURRENCIES = ['PEN'] as const;
export const NUMERIC_CURRENCY: Record<string, string> = { PEN: '604' };

/** Minor units as Pay-me writes amounts: a string of céntimos (`9500` is S/ 95.00). */
export function paymeAmount(amount: number): string {
  if (!Number.isSafeInteger(amount) || amount < 0) throw new Error(`Not an amount in minor units: ${amount}`);
  return String(amount);
}

/**
 * Qhatu's provider payment id for a Pay-me charge: `<merchant_operation_number>/<transaction_id>`,
 * what the query (`GET /charges/{merchant_code}/{operation}/{transaction}`) and the extorno
 * (`DELETE /charges/{merchant_code}/{operation}`) need, with the store's merchant code.
 */
export function providerPaymentId(operationNumber: string, transactionId: string): string {
  return `${operationNumber}/${transactionId}`;
}

export function parseProviderPaymentId(id: string): { operationNumber: string; transactionId: string } | null {
  const match = /^(\d{6,20})\/([^/]+)$/.exec(id);
  return match ? { operationNumber: match[1], transactionId: match[2] } : null;
}

export interface PaymeTransaction {
  transaction_id?: string;
  state?: string;
  state_reason?: string | null;
  amount?: string;
  currency?: string;
  payment_method?: { method_name?: string | null } | null;
  processor_response?: {
    authorization_code?: string | null;
    result_message?: { code?: string | null; description?: string | null } | null;
  } | null;
}

/** The operation as the query and the extorno return it: one merchant operation, its transactions. */
export interface PaymeOperation {
  success?: boolean | string;
  merchant_code?: string;
  operation?: {
    merchant_operation_number?: string;
    amount?: string;
    currency?: string;
    state?: string;
    transactions?: PaymeTransaction[] | null;
  } | null;
  meta?: AlignetMeta | null;
}

/** What the charge must be for; anything else is not this payment's charge. */
export interface Expected {
  merchantCode: string;
  amount: string;
  currency: string;
}

const FIELD: Record<keyof Expected, string> = { merchantCode: 'merchant_code', amount: 'amount', currency: 'currency' };

const PAID = new Set(['AUTORIZADO', 'LIQUIDADO', 'DEPOSITADO']);
const OPEN = new Set(['REGISTRADO', 'PENDIENTE']);

function declined(tx: PaymeTransaction): string {
  const result = tx.processor_response?.result_message;
  const words = result?.description || tx.state_reason || `Pay-me left the charge ${tx.state ?? 'without a state'}`;
  return [words, result?.code, tx.state].filter(Boolean).join(' — ');
}

/**
 * One transaction of a Pay-me operation as a charge result, once it is known to be the payment's:
 * AUTORIZADO with the processor's `00` (or settled later: LIQUIDADO, DEPOSITADO) → paid;
 * REGISTRADO/PENDIENTE, or AUTORIZADO without the processor's answer yet → processing;
 * DENEGADO, CANCELADO, EXPIRADO and any other state → failed with the processor's message.
 */
export function transactionResult(operationNumber: string, tx: PaymeTransaction): ChargeResult {
  const base = { providerPaymentId: providerPaymentId(operationNumber, tx.transaction_id!), method: tx.payment_method?.method_name?.toLowerCase() ?? 'card' };
  const state = (tx.state ?? '').toUpperCase();
  const code = tx.processor_response?.result_message?.code;
  if (state === 'AUTORIZADO' && !code) return { ...base, status: 'processing' };
  if (PAID.has(state) && (state !== 'AUTORIZADO' || code === '00')) return { ...base, status: 'paid' };
  if (OPEN.has(state)) return { ...base, status: 'processing' };
  return { ...base, status: 'failed', failureReason: declined(tx) };
}

/**
 * A queried operation as the charge result of `transactionId`, after checking it is what the
 * payment expects: the store's merchant code, the amount in céntimos and the numeric currency.
 * A charge for anything else is failed without a provider id: it is not this payment's.
 */
export function operationResult(status: number, answer: PaymeOperation, operationNumber: string, transactionId: string, expected: Partial<Expected>): ChargeResult {
  const operation = answer.operation;
  const tx = operation?.transactions?.find((t) => t?.transaction_id === transactionId);
  if (!operation || !tx) {
    const why = operation ? `Pay-me has no charge ${transactionId} in operation ${operationNumber}` : alignetMessage(status, answer);
    return { status: 'failed', providerPaymentId: null, failureReason: why };
  }
  const got: Record<keyof Expected, string | undefined> = { merchantCode: answer.merchant_code, amount: tx.amount ?? operation.amount, currency: tx.currency ?? operation.currency };
  const differs = (Object.keys(got) as Array<keyof Expected>).filter((k) => expected[k] !== undefined && got[k] !== expected[k]);
  if (differs.length) {
    const said = differs.map((k) => `${FIELD[k]} ${JSON.stringify(got[k] ?? null)} instead of ${JSON.stringify(expected[k])}`).join(', ');
    return { status: 'failed', providerPaymentId: null, failureReason: `The Pay-me charge ${transactionId} is not this payment's: ${said}` };
  }
  return transactionResult(operationNumber, tx);
}
