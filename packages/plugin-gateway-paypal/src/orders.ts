import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { ChargeResult, GatewayContext } from '@qhatu/plugin-payments';
import { display, fromPayPalValue } from './money.js';

/** The parts of PayPal's Orders v2 resources the adapter reads. */
export interface PayPalMoney {
  currency_code?: string;
  value?: string;
}

export interface PayPalCapture {
  id: string;
  status?: string;
  status_details?: { reason?: string } | null;
  amount?: PayPalMoney;
}

export interface PayPalPurchaseUnit {
  reference_id?: string;
  custom_id?: string;
  amount?: PayPalMoney;
  payee?: { merchant_id?: string; email_address?: string } | null;
  payments?: { captures?: PayPalCapture[] } | null;
}

export interface PayPalOrder {
  id: string;
  status?: string;
  intent?: string;
  purchase_units?: PayPalPurchaseUnit[];
  payment_source?: Record<string, unknown> | null;
  links?: Array<{ href?: string; rel?: string }>;
}

/** Order states in which the buyer has not finished in PayPal's window yet. */
export const AWAITING_BUYER = new Set(['CREATED', 'SAVED', 'PAYER_ACTION_REQUIRED']);
/** Capture states in which PayPal holds the money (refunds later do not undo the payment). */
const CAPTURED = new Set(['COMPLETED', 'PARTIALLY_REFUNDED', 'REFUNDED']);

const unitOf = (order: PayPalOrder): PayPalPurchaseUnit | undefined => order.purchase_units?.[0];

/** The order's latest capture, if any. */
export function captureOf(order: PayPalOrder): PayPalCapture | null {
  return unitOf(order)?.payments?.captures?.at(-1) ?? null;
}

/** How the buyer paid as PayPal names it (`paypal`, `card`, `venmo`, ...). */
function methodOf(order: PayPalOrder): string {
  return Object.keys(order.payment_source ?? {})[0] ?? 'paypal';
}

/** A failed payment; no provider id, since the PayPal order took no money and can still pay a correct payment. */
export function failed(reason: string): ChargeResult {
  return { status: 'failed', providerPaymentId: null, failureReason: reason };
}

/**
 * An order as a charge result. Buyer not done yet → pending with a `paypal_approval` next action
 * (the client keeps polling); a capture COMPLETED (or since refunded) → paid, PENDING → processing,
 * DECLINED/FAILED → failed; VOIDED → failed. APPROVED is pending here: only a capture is money.
 */
export function orderResult(order: PayPalOrder): ChargeResult {
  const base = { providerPaymentId: order.id, method: methodOf(order) };
  const status = order.status ?? 'unknown';
  if (AWAITING_BUYER.has(status) || status === 'APPROVED') {
    const link = order.links?.find((l) => l.rel === 'payer-action' || l.rel === 'approve')?.href;
    return { ...base, status: 'pending', nextAction: { type: 'paypal_approval', paypal_order_id: order.id, ...(link ? { approve_url: link } : {}) } };
  }
  if (status === 'VOIDED') return failed(`PayPal voided order ${order.id}`);
  const capture = captureOf(order);
  if (!capture) return { ...base, status: 'processing' };
  if (CAPTURED.has(capture.status ?? '')) return { ...base, status: 'paid' };
  if (capture.status === 'PENDING') return { ...base, status: 'processing' };
  const why = capture.status_details?.reason ? `: ${capture.status_details.reason}` : '';
  return failed(`PayPal ${String(capture.status).toLowerCase()} capture ${capture.id} of order ${order.id}${why}`);
}

/**
 * Why an order cannot pay `amount` of `currency` on this store, or null. Read from PayPal before
 * anything is captured: intent CAPTURE, one purchase unit, the same currency and amount, and (when
 * the store set its merchant id) the store as payee.
 */
export function mismatch(order: PayPalOrder, expected: { amount: number; currency: string; merchantId?: string }): string | null {
  const units = order.purchase_units ?? [];
  if (order.intent !== 'CAPTURE') return `PayPal order ${order.id} has intent ${order.intent ?? 'none'}; only CAPTURE orders are taken`;
  if (units.length !== 1) return `PayPal order ${order.id} has ${units.length} purchase units; one is expected`;
  const { amount, payee } = units[0];
  if (amount?.currency_code !== expected.currency) return `PayPal order ${order.id} is in ${amount?.currency_code ?? 'no currency'}, the payment in ${expected.currency}`;
  const value = fromPayPalValue(amount.value, expected.currency);
  if (value !== expected.amount) {
    return `PayPal order ${order.id} is for ${amount.value ?? 'no amount'} ${expected.currency}, the payment for ${display(expected.amount, expected.currency)}`;
  }
  if (expected.merchantId && payee?.merchant_id !== expected.merchantId) {
    return `PayPal order ${order.id} pays merchant ${payee?.merchant_id ?? 'unknown'}, not this store's PayPal account`;
  }
  return null;
}

function sessionTag(ctx: GatewayContext, sessionId: string, currency: string, amount: number): Buffer {
  return createHmac('sha256', ctx.credentials.client_secret ?? '').update(`qhatu-session|${sessionId}|${currency}|${amount}`).digest();
}

/**
 * The `custom_id` of an order opened by a payment session: the session id and a tag (HMAC-SHA256
 * with the client secret) over the session's currency and amount. An order can be changed between
 * approval and capture, so the tag is what later lets a poll capture it without the payment at hand.
 */
export function sessionCustomId(ctx: GatewayContext, sessionId: string, currency: string, amount: number): string {
  return `${sessionId}.${sessionTag(ctx, sessionId, currency, amount).toString('base64url')}`;
}

/** The session an order was opened for, when its `custom_id` still vouches for its currency and amount; else null. */
export function boundSession(ctx: GatewayContext, order: PayPalOrder): string | null {
  const unit = unitOf(order);
  const match = /^([^.]{1,80})\.([A-Za-z0-9_-]{43})$/.exec(unit?.custom_id ?? '');
  const currency = unit?.amount?.currency_code ?? '';
  const amount = fromPayPalValue(unit?.amount?.value, currency);
  if (!match || amount === null || (order.purchase_units ?? []).length !== 1) return null;
  const expected = createHash('sha256').update(sessionTag(ctx, match[1], currency, amount)).digest();
  const given = createHash('sha256').update(Buffer.from(match[2], 'base64url')).digest();
  return timingSafeEqual(expected, given) ? match[1] : null;
}
