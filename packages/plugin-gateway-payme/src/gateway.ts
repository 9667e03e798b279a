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
import { alignetMessage, authBaseUrl, api, PaymeAuthError, truthy, withToken } from './client.js';
import {
  NUMERIC_CURRENCY,
  operationResult,
  parseProviderPaymentId,
  PAYME_CURRENCIES,
  paymeAmount,
  providerPaymentId,
  type PaymeOperation,
} from './operation.js';
import { verifySignature } from './signature.js';

/** The reason a partial refund is refused: Pay-me's extorno cancels the whole operation. */
export const WHOLE_OPERATION_ONLY = 'Pay-me refunds a whole operation only: refund the full amount of the payment';

const charges = (merchantCode: string, operationNumber: string, transactionId?: string) =>
  `/charges/${[merchantCode, operationNumber, transactionId].filter((p) => p !== undefined).map((p) => encodeURIComponent(p!)).join('/')}`;

/** Reads an operation and the result of one of its charges, checked against what is expected. */
async function query(ctx: GatewayContext, operationNumber: string, transactionId: string, expected: { amount?: string; currency?: string }) {
  const res = await api<PaymeOperation>(ctx, 'GET', charges(ctx.credentials.merchant_code, operationNumber, transactionId));
  const result = operationResult(res.status, res.json, operationNumber, transactionId, { merchantCode: ctx.credentials.merchant_code, ...expected });
  return { res, result };
}

/** Gateway 6: Pay-me by Alignet. Flex charges in the browser from a nonce; the server reads them back. */
export const paymeGateway: PaymentGateway = {
  id: 'payme',
  name: 'Pay-me',
  currencies: PAYME_CURRENCIES,
  paymentFields: [
    { name: 'charge_id', type: 'string', required: true, description: "Pay-me Flex's transaction_id for the charge it made in the browser" },
    {
      name: 'merchant_operation_number',
      type: 'string',
      required: false,
      description: 'The merchant_operation_number of the payment session (POST /api/v1/payments/sessions) the charge was made in; Pay-me payments need one',
    },
  ],
  credentialFields: [
    { name: 'client_id', required: true, secret: false, description: 'The client_id Alignet issued the store (OAuth client credentials)' },
    { name: 'client_secret', required: true, secret: true, description: 'The client_secret Alignet issued with the client_id' },
    { name: 'merchant_code', required: true, secret: false, description: "The store's merchant_code at Pay-me" },
    {
      name: 'alignet_public_key',
      required: true,
      secret: false,
      description: "PEM of Alignet's RSA public key for server-to-server notifications (SHA512withRSA `signature` header)",
    },
  ],
  defaultBaseUrl: 'https://api.alignet.io',
  // The charge reads back what Flex paid; the extorno takes no key.
  idempotent: { charge: true, refund: false },
  sessionField: 'merchant_operation_number',
  sessionRequired: true,

  /** A Flex nonce for a new operation number: what the browser needs to open Pay-me Flex. */
  async createSession(ctx: GatewayContext, req: SessionRequest): Promise<SessionResult> {
    const currency = NUMERIC_CURRENCY[req.currency];
    if (!currency) throw AppError.unprocessable('GATEWAY_REFUSED', `Pay-me does not take ${req.currency}`);
    // Numeric, six digits or more, unique per merchant: the session's number is unique among all stores.
    const operationNumber = String(req.number);
    let res;
    try {
      // Pay-me's Flex documentation writes this audience with its trailing slash.
      res = await withToken<{ nonce: string }>(ctx, `${authBaseUrl(ctx.baseUrl)}/nonce`, 'POST', {
        action: 'create.nonce', audience: `${ctx.baseUrl}/`, client_id: ctx.credentials.client_id, scope: 'post:charges',
      });
    } catch (error) {
      if (error instanceof PaymeAuthError) throw AppError.unprocessable('GATEWAY_REFUSED', error.message);
      throw error;
    }
    const nonce = res.json.nonce;
    if (!res.ok || !truthy(res.json.success ?? true) || typeof nonce !== 'string' || !nonce) {
      if (res.status >= 500) throw new Error(`Pay-me answered ${res.status} to the nonce request`);
      throw AppError.unprocessable('GATEWAY_REFUSED', `Pay-me refused the Flex nonce: ${alignetMessage(res.status, res.json)}`);
    }
    return {
      reference: operationNumber,
      client: { nonce, merchant_code: ctx.credentials.merchant_code, merchant_operation_number: operationNumber, amount: paymeAmount(req.amount), currency },
      data: { merchant_operation_number: operationNumber },
      // The nonce only opens the form; the operation it charges is read back whenever the payment comes.
      expiresAt: null,
    };
  },

  /** Flex already charged in the browser: the charge is read back from Pay-me and must be this payment's. */
  async charge(ctx: GatewayContext, req: ChargeRequest): Promise<ChargeResult> {
    const operationNumber = req.session?.data.merchant_operation_number;
    if (typeof operationNumber !== 'string' || !operationNumber) {
      return { status: 'failed', providerPaymentId: null, failureReason: 'A Pay-me payment needs the merchant_operation_number of its payment session' };
    }
    const transactionId = String(req.fields.charge_id);
    try {
      const { result } = await query(ctx, operationNumber, transactionId, { amount: paymeAmount(req.amount), currency: NUMERIC_CURRENCY[req.currency] });
      return result;
    } catch (error) {
      if (error instanceof PaymeAuthError) return { status: 'failed', providerPaymentId: null, failureReason: error.message };
      throw error;
    }
  },

  async status(ctx: GatewayContext, id: string): Promise<ChargeResult> {
    const parsed = parseProviderPaymentId(id);
    if (!parsed) throw new Error(`Not a Pay-me payment id: ${id}`);
    const { res, result } = await query(ctx, parsed.operationNumber, parsed.transactionId, {});
    // A charge Pay-me cannot show is not a verdict: the stored state stays until it can.
    if (!res.ok || result.providerPaymentId !== id) throw new Error(`Pay-me could not show ${id}: ${result.failureReason ?? res.status}`);
    return result;
  },

  /**
   * The extorno: `DELETE /charges/{merchant_code}/{operation}` cancels the whole operation. The
   * operation is read first, so a partial amount is refused before anything is asked of Pay-me.
   */
  async refund(ctx: GatewayContext, req: RefundRequest): Promise<RefundResult> {
    const parsed = parseProviderPaymentId(req.providerPaymentId);
    if (!parsed) return { status: 'failed', providerRefundId: null, failureReason: `Not a Pay-me payment id: ${req.providerPaymentId}` };
    const { res } = await query(ctx, parsed.operationNumber, parsed.transactionId, {});
    const total = res.json.operation?.amount;
    if (!res.ok || !total) return { status: 'failed', providerRefundId: null, failureReason: alignetMessage(res.status, res.json) };
    if (total !== paymeAmount(req.amount)) return { status: 'failed', providerRefundId: null, failureReason: `${WHOLE_OPERATION_ONLY} (${total} céntimos, not ${req.amount})` };

    const cancel = await api<PaymeOperation>(ctx, 'DELETE', charges(ctx.credentials.merchant_code, parsed.operationNumber));
    const state = cancel.json.operation?.state;
    if (cancel.ok && truthy(cancel.json.success) && state === 'CANCELADO') {
      const tx = cancel.json.operation?.transactions?.find((t) => t?.transaction_id === parsed.transactionId);
      return { status: 'refunded', providerRefundId: providerPaymentId(parsed.operationNumber, tx?.transaction_id ?? parsed.transactionId) };
    }
    const reason = cancel.ok && state ? `Pay-me left the operation ${state}` : alignetMessage(cancel.status, cancel.json);
    return { status: 'failed', providerRefundId: null, failureReason: reason };
  },

  verifyNotification(ctx: GatewayContext, n: InboundNotification): boolean {
    return verifySignature(n.rawBody, n.headers.signature, ctx.credentials.alignet_public_key);
  },

  /** The operation and transaction a notification is about; the charge is then read back from Pay-me. */
  parseNotification(n: InboundNotification): ParsedNotification | null {
    let body: { merchant_operation_number?: unknown; transaction?: { transaction_id?: unknown; state?: unknown } | null };
    try {
      body = JSON.parse(n.rawBody.toString('utf8'));
    } catch {
      return null;
    }
    if (!body || typeof body !== 'object' || Array.isArray(body) || typeof body.merchant_operation_number !== 'string') return null;
    const tx = body.transaction && typeof body.transaction === 'object' ? body.transaction : null;
    const transactionId = typeof tx?.transaction_id === 'string' && tx.transaction_id ? tx.transaction_id : null;
    const state = typeof tx?.state === 'string' ? tx.state : null;
    // One event per transaction and state; without them the body itself is the identity.
    const eventId = transactionId && state ? `${transactionId}:${state}` : `sha256:${createHash('sha256').update(n.rawBody).digest('hex')}`;
    return { eventId, providerPaymentId: transactionId ? providerPaymentId(body.merchant_operation_number, transactionId) : null };
  },
};
