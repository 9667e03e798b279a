import { AppError } from '@qhatu/core';
import type {
  ChargeRequest,
  ChargeResult,
  GatewayContext,
  InboundNotification,
  LookupRequest,
  ParsedCallback,
  PaymentGateway,
  RefundRequest,
  RefundResult,
  SessionRequest,
  SessionResult,
} from '@qhatu/plugin-payments';
import { toDecimal } from './amounts.js';
import { niubiz, segment } from './client.js';
import { authorizationResult, errorMessage, refundEntry, refundResult, refundState } from './results.js';
import { NiubizCredentialsRefused } from './security.js';

/** Niubiz's Pago Web merchant codes are per currency; this gateway takes the soles one. */
export const NIUBIZ_CURRENCIES = ['PEN'] as const;

/** Qhatu's refund reasons as the `comment` of Niubiz's devolución. */
export const NIUBIZ_REFUND_COMMENTS: Record<string, string> = {
  duplicate: 'Cargo duplicado',
  fraudulent: 'Cargo fraudulento',
  requested_by_customer: 'Solicitud del cliente',
};

/** The store's devolución reference (`externalReferenceId`, at most 20 characters): the refund id's first 20 hex digits. */
export function externalReferenceId(refundId: string): string {
  return refundId.replace(/-/g, '').slice(0, 20);
}

const failed = (failureReason: string): ChargeResult => ({ status: 'failed', providerPaymentId: null, failureReason });

/** Niubiz's `expirationTime` (milliseconds since the epoch) as a date; null when it gives none. */
function expiration(value: unknown): Date | null {
  const ms = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
  return Number.isFinite(ms) && ms > 0 ? new Date(ms) : null;
}

/** What is wrong with the session a charge brings, or null when it can be authorized. */
function sessionProblem(ctx: GatewayContext, req: ChargeRequest): string | null {
  const session = req.session;
  if (!session) return 'Niubiz payments need a payment session (session_key)';
  if (session.reference !== req.fields.session_key) return 'The payment session does not match session_key';
  if (typeof session.data.purchase_number !== 'string' || !/^\d{1,12}$/.test(session.data.purchase_number)) return 'The payment session has no Niubiz purchase number';
  if (session.data.merchant_id !== ctx.credentials.merchant_id) return 'The payment session was opened for another Niubiz merchant code';
  if (session.amount !== req.amount || session.currency !== req.currency) return 'The payment does not match the amount and currency of its session';
  return null;
}

/** Gateway 4: Niubiz Pago Web, the three-step flow (access token, session, authorization), over plain fetch. */
export const niubizGateway: PaymentGateway = {
  id: 'niubiz',
  name: 'Niubiz',
  currencies: NIUBIZ_CURRENCIES,
  paymentFields: [
    { name: 'session_key', type: 'string', required: true, description: 'The sessionKey of the payment session (POST /payments/sessions) the checkout form was opened with' },
    { name: 'transaction_token', type: 'string', required: true, description: 'The transactionToken the Niubiz checkout form posts back after the shopper pays' },
  ],
  credentialFields: [
    { name: 'merchant_id', required: true, secret: false, description: "The merchant code (código de comercio) for soles; the storefront's checkout.js needs it too" },
    { name: 'username', required: true, secret: true, description: "The API user Niubiz gave the store (the security API's Basic auth)" },
    { name: 'password', required: true, secret: true, description: "The API user's password" },
    { name: 'ruc', required: true, secret: false, description: "The merchant's RUC (tax id), which Niubiz's refund API asks for" },
  ],
  defaultBaseUrl: 'https://apiprod.vnforapps.com',
  sessionField: 'session_key',
  sessionRequired: true,

  async createSession(ctx: GatewayContext, req: SessionRequest): Promise<SessionResult> {
    if (req.currency !== 'PEN') throw AppError.unprocessable('GATEWAY_REFUSED', `Niubiz takes PEN only, not ${req.currency}`);
    const merchantId = ctx.credentials.merchant_id;
    const amount = toDecimal(req.amount);
    // Numeric, at most 12 digits and unique per merchant: the session's number is unique among all stores.
    const purchaseNumber = String(req.number);
    if (purchaseNumber.length > 12) throw new Error(`Session number ${purchaseNumber} is longer than Niubiz's 12-digit purchase number`);
    // MDD4 is the buyer's email among Niubiz's antifraud fields; a shopper IP the storefront did not give is 0.0.0.0.
    const merchantDefineData: Record<string, string> = req.customerEmail ? { MDD4: req.customerEmail } : {};
    const res = await niubiz(ctx, 'POST', `/api.ecommerce/v2/ecommerce/token/session/${segment(merchantId)}`, {
      channel: 'web',
      amount: Number(amount),
      antifraud: { clientIp: req.clientIp ?? '0.0.0.0', merchantDefineData },
    }).catch((error: unknown) => {
      if (error instanceof NiubizCredentialsRefused) throw AppError.unprocessable('GATEWAY_REFUSED', error.message);
      throw error;
    });
    if (res.status >= 500) throw new Error(`Niubiz answered ${res.status} when asked for a session: ${errorMessage(res)}`);
    if (!res.ok) throw AppError.unprocessable('GATEWAY_REFUSED', `Niubiz refused to open the payment session: ${errorMessage(res)}`);
    if (typeof res.json.sessionKey !== 'string' || !res.json.sessionKey) throw new Error(`Niubiz answered ${res.status} without a sessionKey`);
    const expiresAt = expiration(res.json.expirationTime);
    return {
      reference: res.json.sessionKey,
      // What VisanetCheckout.configure takes (sessiontoken, merchantid, purchasenumber, amount, action, ...).
      client: {
        session_key: res.json.sessionKey, merchant_id: merchantId, purchase_number: purchaseNumber, amount, currency: 'PEN',
        channel: 'web', action: req.callbackUrl, expires_at: expiresAt?.toISOString() ?? null,
      },
      data: { purchase_number: purchaseNumber, merchant_id: merchantId },
      expiresAt,
    };
  },

  async charge(ctx: GatewayContext, req: ChargeRequest): Promise<ChargeResult> {
    const problem = sessionProblem(ctx, req);
    if (problem) return failed(problem);
    const session = req.session!;
    try {
      const res = await niubiz(ctx, 'POST', `/api.authorization/v3/authorization/ecommerce/${segment(ctx.credentials.merchant_id)}`, {
        channel: 'web',
        captureType: 'manual',
        countable: true,
        order: {
          tokenId: String(req.fields.transaction_token),
          purchaseNumber: Number(session.data.purchase_number),
          amount: Number(toDecimal(session.amount)),
          currency: 'PEN',
        },
      });
      return authorizationResult(res);
    } catch (error) {
      if (error instanceof NiubizCredentialsRefused) return failed(error.message);
      throw error;
    }
  },

  async status(ctx: GatewayContext, providerPaymentId: string): Promise<ChargeResult> {
    const res = await niubiz(ctx, 'GET', `/api.authorization/v3/retrieve/transaction/${segment(ctx.credentials.merchant_id)}/${segment(providerPaymentId)}`);
    const result = authorizationResult(res);
    // A re-read without an action code tells nothing: the stored state stays the truth.
    if (result.status === 'failed' && !result.providerPaymentId) throw new Error(`Niubiz could not re-read transaction ${providerPaymentId}: ${result.failureReason}`);
    return result;
  },

  /**
   * An authorization whose answer was lost, found by the store's own reference: the session's
   * purchase number, unique per merchant, so its authorization can only be this payment's
   * (`GET /api.authorization/v3/retrieve/purchase/{merchant_id}/{purchase number}`). An
   * authorization is not repeated (its transaction token is good once). Null on Niubiz's 404.
   */
  async lookup(ctx: GatewayContext, req: LookupRequest): Promise<ChargeResult | null> {
    const purchase = req.session?.data.purchase_number;
    // Without a session's purchase number the charge was refused here, never sent.
    if (typeof purchase !== 'string' || !/^\d{1,12}$/.test(purchase)) return null;
    const res = await niubiz(ctx, 'GET', `/api.authorization/v3/retrieve/purchase/${segment(ctx.credentials.merchant_id)}/${segment(purchase)}`);
    if (res.status === 404) return null;
    const result = authorizationResult(res);
    if (result.status === 'failed' && !result.providerPaymentId) throw new Error(`Niubiz could not re-read purchase ${purchase}: ${result.failureReason}`);
    return result;
  },

  async refund(ctx: GatewayContext, req: RefundRequest): Promise<RefundResult> {
    const reference = externalReferenceId(req.refundId);
    try {
      const res = await niubiz(ctx, 'POST', `/api.refund/v1/refund/${segment(ctx.credentials.merchant_id)}/${segment(req.providerPaymentId)}`, {
        ruc: ctx.credentials.ruc,
        comment: (req.reason && NIUBIZ_REFUND_COMMENTS[req.reason]) || 'Devolución',
        externalReferenceId: reference,
        amount: Number(toDecimal(req.amount)),
      });
      return refundResult(res, reference);
    } catch (error) {
      if (error instanceof NiubizCredentialsRefused) return { status: 'failed', providerRefundId: null, failureReason: error.message };
      throw error;
    }
  },

  async refundStatus(ctx: GatewayContext, providerRefundId: string): Promise<RefundResult> {
    const res = await niubiz(ctx, 'POST', `/api.refund/v1/queryRefund/${segment(ctx.credentials.merchant_id)}`, {
      ruc: ctx.credentials.ruc,
      externalReferenceId: providerRefundId,
    });
    const errorCode = res.json.errorCode === undefined ? 0 : Number(res.json.errorCode);
    const entry = res.ok && errorCode === 0 ? refundEntry(res, providerRefundId) : null;
    if (!entry) throw new Error(`Niubiz could not re-read devolución ${providerRefundId}: ${errorMessage(res)}`);
    return refundState(entry, providerRefundId);
  },

  /** The checkout form's post to the session's `action` URL: `transactionToken` (form-encoded) and `?session=`. */
  parseCallback(n: InboundNotification): ParsedCallback | null {
    const sessionId = n.query.get('session');
    const token = new URLSearchParams(n.rawBody.toString('utf8')).get('transactionToken');
    if (!sessionId || !token || token.length > 500) return null;
    return { sessionId, fields: { transaction_token: token } };
  },

  // Niubiz signs nothing: its form post is read by parseCallback, and the authorization it leads to is the proof.
  verifyNotification(): boolean {
    return false;
  },

  parseNotification(): null {
    return null;
  },
};
