import { createHash } from 'node:crypto';
import { AppError } from '@qhatu/core';
import type {
  ChargeRequest,
  ChargeResult,
  GatewayContext,
  InboundNotification,
  ParsedNotification,
  PaymentGateway,
  RefundRequest,
  RefundResult,
  SessionRequest,
  SessionResult,
} from '@qhatu/plugin-payments';
import { errorReason, lyra, type LyraTransaction } from './lyra.js';
import { readKrPost, verifyKrHash, verifyKrPost } from './signature.js';
import { chargeResult, readKrAnswer, refundResult } from './transactions.js';

/** Izipay's shops on micuentaweb.pe are in soles; Lyra takes the amount in céntimos, Qhatu's minor units as is. */
export const IZIPAY_CURRENCIES = ['PEN'] as const;

const failed = (failureReason: string): ChargeResult => ({ status: 'failed', providerPaymentId: null, failureReason });

/** Why the re-read transaction cannot pay this payment; null when it can. */
export function mismatch(tx: LyraTransaction & { orderId?: string | null }, req: ChargeRequest): string | null {
  if (tx.operationType && tx.operationType !== 'DEBIT') return `Izipay transaction ${tx.uuid} is a ${tx.operationType} operation, not a payment`;
  const orderId = tx.orderDetails?.orderId ?? tx.orderId ?? null;
  if (orderId !== req.orderId) return `Izipay transaction ${tx.uuid} pays order ${orderId ?? '(none)'}, not this payment's order ${req.orderId}`;
  if (tx.amount !== req.amount || tx.currency !== req.currency) {
    return `Izipay transaction ${tx.uuid} is for ${tx.amount ?? '?'} ${tx.currency ?? '?'}, this payment for ${req.amount} ${req.currency} (minor units)`;
  }
  return null;
}

async function read(ctx: GatewayContext, uuid: string): Promise<LyraTransaction> {
  const res = await lyra<LyraTransaction>(ctx, 'Transaction/Get', { uuid });
  if (!res.ok) throw new Error(`Izipay did not return transaction ${uuid}: ${errorReason(res.error)}`);
  return res.answer;
}

/**
 * Gateway 5: Izipay on Lyra's Krypton REST V4 (micuentaweb.pe). A session is a form token for the
 * embedded form; the payment names the transaction the form made, which is re-read from Izipay
 * before anything is believed. Refunds cancel or refund; IPNs are checked by their kr-hash.
 */
export const izipayGateway: PaymentGateway = {
  id: 'izipay',
  name: 'Izipay',
  currencies: IZIPAY_CURRENCIES,
  paymentFields: [
    { name: 'kr_answer', type: 'string', required: true, maxLength: 20_000, description: "The kr-answer the embedded form returned (the JSON string as received: KR.onSubmit's rawClientAnswer or the browser return's kr-answer)" },
    { name: 'transaction_id', type: 'string', required: true, description: "The Izipay transaction's uuid (kr-answer's transactions[0].uuid)" },
    { name: 'kr_hash', type: 'string', required: false, description: 'The kr-hash that came with kr-answer; when given it must be the HMAC-SHA-256 of kr_answer with the store’s hmac_key' },
  ],
  credentialFields: [
    { name: 'shop_id', required: true, secret: false, description: 'The shop identifier (Back Office → Settings → Shop → REST API keys: User)' },
    { name: 'password', required: true, secret: true, description: 'The REST password, testpassword_… or prodpassword_…; it also signs the IPN' },
    { name: 'hmac_key', required: true, secret: true, description: 'The HMAC-SHA-256 key of the REST API keys, which signs the browser return' },
    { name: 'public_key', required: true, secret: false, description: "The public key (shop id:testpublickey_…) for the storefront's embedded form" },
  ],
  defaultBaseUrl: 'https://api.micuentaweb.pe',
  // The charge reads back what the browser paid; a refund (CancelOrRefund) takes no key.
  idempotent: { charge: true, refund: false },

  async createSession(ctx: GatewayContext, req: SessionRequest): Promise<SessionResult> {
    if (!(IZIPAY_CURRENCIES as readonly string[]).includes(req.currency)) throw new AppError(422, 'GATEWAY_REFUSED', `Izipay does not take ${req.currency}`);
    const body: Record<string, unknown> = {
      amount: req.amount,
      currency: req.currency,
      orderId: req.orderId,
      ipnTargetUrl: req.callbackUrl,
      metadata: { qhatu_session_id: req.sessionId },
    };
    if (req.customerEmail) body.customer = { email: req.customerEmail };
    const res = await lyra<{ formToken?: unknown }>(ctx, 'Charge/CreatePayment', body);
    if (!res.ok) throw new AppError(422, 'GATEWAY_REFUSED', errorReason(res.error));
    const formToken = res.answer.formToken;
    if (typeof formToken !== 'string' || !formToken) throw new Error('Izipay answered CreatePayment without a formToken');
    return { reference: formToken, client: { form_token: formToken, public_key: ctx.credentials.public_key ?? null, order_id: req.orderId }, data: {}, expiresAt: null };
  },

  async charge(ctx: GatewayContext, req: ChargeRequest): Promise<ChargeResult> {
    const krAnswer = String(req.fields.kr_answer);
    const transactionId = String(req.fields.transaction_id);
    const answer = readKrAnswer(krAnswer);
    if (typeof answer === 'string') return failed(answer);
    if (!answer.transactions.some((t) => t.uuid === transactionId)) return failed(`kr_answer does not name transaction ${transactionId}`);
    if (req.fields.kr_hash !== undefined && !verifyKrHash(krAnswer, String(req.fields.kr_hash), ctx.credentials.hmac_key)) {
      return failed("kr_hash does not match kr_answer: it is not signed with this store's HMAC-SHA-256 key");
    }
    // The browser's answer is a claim: the transaction is read back from Izipay and must be this order's.
    const res = await lyra<LyraTransaction>(ctx, 'Transaction/Get', { uuid: transactionId });
    if (!res.ok) return failed(errorReason(res.error));
    const wrong = mismatch(res.answer, req);
    return wrong ? failed(wrong) : chargeResult(res.answer);
  },

  async status(ctx: GatewayContext, providerPaymentId: string): Promise<ChargeResult> {
    return chargeResult(await read(ctx, providerPaymentId));
  },

  async refund(ctx: GatewayContext, req: RefundRequest): Promise<RefundResult> {
    const paid = await lyra<LyraTransaction>(ctx, 'Transaction/Get', { uuid: req.providerPaymentId });
    if (!paid.ok) return { status: 'failed', providerRefundId: null, failureReason: errorReason(paid.error) };
    // The whole amount may be a cancellation (before remittance); a part can only be a refund.
    const resolutionMode = paid.answer.amount === req.amount ? 'AUTO' : 'REFUND_ONLY';
    const res = await lyra<LyraTransaction>(ctx, 'Transaction/CancelOrRefund', {
      uuid: req.providerPaymentId,
      amount: req.amount,
      currency: req.currency,
      resolutionMode,
      comment: `Qhatu refund ${req.refundId}`,
    });
    if (!res.ok) return { status: 'failed', providerRefundId: null, failureReason: errorReason(res.error) };
    return refundResult(res.answer);
  },

  async refundStatus(ctx: GatewayContext, providerRefundId: string): Promise<RefundResult> {
    return refundResult(await read(ctx, providerRefundId));
  },

  verifyNotification(ctx: GatewayContext, n: InboundNotification): boolean {
    return verifyKrPost(readKrPost(n.rawBody), ctx.credentials);
  },

  parseNotification(n: InboundNotification): ParsedNotification | null {
    const post = readKrPost(n.rawBody);
    if (!post) return null;
    const answer = readKrAnswer(post.answer);
    if (typeof answer === 'string') return null;
    // Lyra sends no event id; a new state of the payment is a new answer, so the answer is the identity.
    const eventId = `sha256:${createHash('sha256').update(post.answer, 'utf8').digest('hex')}`;
    const tx = answer.transactions[0];
    if (!tx) return { eventId, providerPaymentId: null };
    if (tx.operationType === 'CREDIT') return { eventId, providerPaymentId: tx.transactionDetails?.parentTransactionUuid ?? null, providerRefundId: tx.uuid };
    return { eventId, providerPaymentId: tx.uuid };
  },
};
