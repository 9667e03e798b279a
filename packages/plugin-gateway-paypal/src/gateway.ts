import { AppError } from '@qhatu/core';
import type {
  ChargeRequest,
  ChargeResult,
  GatewayContext,
  PaymentGateway,
  RefundRequest,
  RefundResult,
  SessionRequest,
  SessionResult,
} from '@qhatu/plugin-payments';
import { errorMessage, paypal, type PayPalAnswer } from './client.js';
import { display, fromPayPalValue, PAYPAL_CURRENCIES, toPayPalValue } from './money.js';
import { AWAITING_BUYER, boundSession, captureOf, failed, mismatch, orderResult, sessionCustomId, type PayPalOrder } from './orders.js';
import { parseWebhook, verifyWebhook } from './webhooks.js';

/** Qhatu's refund reasons as a note PayPal shows the buyer; the others send no note. */
export const PAYPAL_REFUND_NOTES: Record<string, string> = {
  duplicate: 'Refund of a duplicate payment',
  requested_by_customer: 'Refund at your request',
};

interface PayPalRefund {
  id: string;
  status?: string;
  status_details?: { reason?: string } | null;
}

const orderPath = (id: string) => `/v2/checkout/orders/${encodeURIComponent(id)}`;

async function readOrder(ctx: GatewayContext, id: string): Promise<PayPalOrder> {
  const res = await paypal<PayPalOrder>(ctx, 'GET', orderPath(id));
  if (!res.ok || typeof res.json.id !== 'string') throw new Error(`PayPal answered ${res.status}: ${errorMessage(res.status, res.json)}`);
  return res.json as PayPalOrder;
}

/**
 * Captures an approved order. `requestId` makes a repeated capture PayPal's first answer again; an
 * order captured meanwhile (or no longer approved) is read back instead. With `expected`, a capture
 * of another amount is reported failed (PayPal took money the payment does not match).
 */
async function capture(ctx: GatewayContext, orderId: string, requestId: string, expected: { amount: number; currency: string } | null): Promise<ChargeResult> {
  const res = await paypal<PayPalOrder>(ctx, 'POST', `${orderPath(orderId)}/capture`, { requestId, body: {} });
  if (!res.ok) {
    const issue = res.json.details?.[0]?.issue;
    if (issue === 'ORDER_ALREADY_CAPTURED' || issue === 'ORDER_NOT_APPROVED') return orderResult(await readOrder(ctx, orderId));
    return failed(errorMessage(res.status, res.json));
  }
  const order = { ...res.json, id: res.json.id ?? orderId } as PayPalOrder;
  const taken = captureOf(order)?.amount;
  if (expected && taken && (taken.currency_code !== expected.currency || fromPayPalValue(taken.value, expected.currency) !== expected.amount)) {
    return {
      status: 'failed', providerPaymentId: order.id,
      failureReason: `PayPal captured ${taken.value} ${taken.currency_code} on order ${order.id}, the payment is for ${display(expected.amount, expected.currency)}; refund it in PayPal`,
    };
  }
  return orderResult(order);
}

function refundResult(res: PayPalAnswer<PayPalRefund>): RefundResult {
  if (!res.ok || typeof res.json.id !== 'string') return { status: 'failed', providerRefundId: null, failureReason: errorMessage(res.status, res.json) };
  const { id, status, status_details: details } = res.json;
  switch (status) {
    case 'COMPLETED':
      return { status: 'refunded', providerRefundId: id };
    case 'FAILED':
    case 'CANCELLED':
      return { status: 'failed', providerRefundId: id, failureReason: `PayPal ${status.toLowerCase()} refund ${id}${details?.reason ? `: ${details.reason}` : ''}` };
    default:
      return { status: 'processing', providerRefundId: id };
  }
}

/** Gateway 7: PayPal Orders v2 and the JS SDK, over plain fetch with OAuth client credentials. */
export const paypalGateway: PaymentGateway = {
  id: 'paypal',
  name: 'PayPal',
  currencies: PAYPAL_CURRENCIES,
  paymentFields: [
    { name: 'paypal_order_id', type: 'string', required: true, description: "The PayPal order id the JS SDK hands onApprove (data.orderID): a payment session's, or one the SDK created" },
  ],
  credentialFields: [
    { name: 'client_id', required: true, secret: false, description: "The REST app's client id (also the JS SDK's client-id)" },
    { name: 'client_secret', required: true, secret: true, description: "The REST app's secret" },
    { name: 'webhook_id', required: false, secret: true, description: "The id of the app's webhook for <public url>/webhooks/paypal/<store id>; without it webhooks are refused and polling still works" },
    { name: 'merchant_id', required: false, secret: false, description: "The store's PayPal account id; when set, an order paying any other account is refused" },
  ],
  defaultBaseUrl: 'https://api-m.paypal.com',
  // Every capture and refund carries a PayPal-Request-Id made from Qhatu's id.
  idempotent: { charge: true, refund: true },
  sessionField: 'paypal_order_id',
  sessionRequired: false,

  async createSession(ctx: GatewayContext, req: SessionRequest): Promise<SessionResult> {
    const value = toPayPalValue(req.amount, req.currency);
    if (!(PAYPAL_CURRENCIES as readonly string[]).includes(req.currency)) throw new AppError(422, 'GATEWAY_REFUSED', `PayPal does not take ${req.currency}`);
    if (value === null) throw new AppError(422, 'GATEWAY_REFUSED', `PayPal takes ${req.currency} in whole units only, not ${display(req.amount, req.currency)}`);
    const res = await paypal<PayPalOrder>(ctx, 'POST', '/v2/checkout/orders', {
      requestId: `qhatu-session-${req.sessionId}`,
      body: {
        intent: 'CAPTURE',
        purchase_units: [{ reference_id: req.orderId, custom_id: sessionCustomId(ctx, req.sessionId, req.currency, req.amount), amount: { currency_code: req.currency, value } }],
      },
    });
    if (res.status >= 500) throw new Error(`PayPal answered ${res.status}: ${errorMessage(res.status, res.json)}`);
    if (!res.ok) throw new AppError(422, 'GATEWAY_REFUSED', errorMessage(res.status, res.json));
    const id = res.json.id;
    if (typeof id !== 'string') throw new Error(`PayPal answered ${res.status} without an order`);
    // PayPal states no expiry on the order; it forgets unapproved orders on its own.
    return { reference: id, client: { paypal_order_id: id, client_id: ctx.credentials.client_id, currency: req.currency }, data: {}, expiresAt: null };
  },

  async charge(ctx: GatewayContext, req: ChargeRequest): Promise<ChargeResult> {
    const orderId = String(req.fields.paypal_order_id);
    const read = await paypal<PayPalOrder>(ctx, 'GET', orderPath(orderId));
    if (!read.ok || typeof read.json.id !== 'string') return failed(errorMessage(read.status, read.json));
    const order = read.json as PayPalOrder;
    const expected = { amount: req.amount, currency: req.currency };
    const wrong = mismatch(order, { ...expected, merchantId: ctx.credentials.merchant_id })
      ?? (req.session && boundSession(ctx, order) !== req.session.id ? `PayPal order ${order.id} was not opened by payment session ${req.session.id}` : null);
    if (wrong) return failed(wrong);
    if (order.status === 'APPROVED') return capture(ctx, order.id, `qhatu-payment-${req.paymentId}`, expected);
    if (AWAITING_BUYER.has(order.status ?? '') && !req.session) {
      // Only a session's order can be captured later by a poll (its custom_id vouches for the amount).
      return failed(`The buyer has not approved PayPal order ${order.id} yet; pay an order the storefront created from onApprove, or open a payment session first`);
    }
    return orderResult(order);
  },

  async status(ctx: GatewayContext, providerPaymentId: string): Promise<ChargeResult> {
    const order = await readOrder(ctx, providerPaymentId);
    if (order.status !== 'APPROVED') return orderResult(order);
    // Approved is not money yet: captured here, with one request id per order for every poll.
    const payee = order.purchase_units?.[0]?.payee?.merchant_id;
    if (!boundSession(ctx, order) || (ctx.credentials.merchant_id && payee !== ctx.credentials.merchant_id)) {
      return failed(`PayPal order ${order.id} no longer matches the payment session that opened it; not captured`);
    }
    return capture(ctx, order.id, `qhatu-capture-${order.id}`, null);
  },

  async refund(ctx: GatewayContext, req: RefundRequest): Promise<RefundResult> {
    const read = await paypal<PayPalOrder>(ctx, 'GET', orderPath(req.providerPaymentId));
    if (!read.ok || typeof read.json.id !== 'string') return { status: 'failed', providerRefundId: null, failureReason: errorMessage(read.status, read.json) };
    const captured = captureOf(read.json as PayPalOrder);
    if (!captured || !['COMPLETED', 'PARTIALLY_REFUNDED'].includes(captured.status ?? '')) {
      return { status: 'failed', providerRefundId: null, failureReason: `PayPal order ${req.providerPaymentId} has no completed capture to refund (${captured?.status ?? 'none'})` };
    }
    const value = toPayPalValue(req.amount, req.currency);
    if (value === null) return { status: 'failed', providerRefundId: null, failureReason: `PayPal refunds ${req.currency} in whole units only, not ${display(req.amount, req.currency)}` };
    const note = req.reason ? PAYPAL_REFUND_NOTES[req.reason] : undefined;
    const res = await paypal<PayPalRefund>(ctx, 'POST', `/v2/payments/captures/${encodeURIComponent(captured.id)}/refund`, {
      requestId: `qhatu-refund-${req.refundId}`,
      body: { amount: { value, currency_code: req.currency }, ...(note ? { note_to_payer: note } : {}) },
    });
    return refundResult(res);
  },

  async refundStatus(ctx: GatewayContext, providerRefundId: string): Promise<RefundResult> {
    const res = await paypal<PayPalRefund>(ctx, 'GET', `/v2/payments/refunds/${encodeURIComponent(providerRefundId)}`);
    if (!res.ok) throw new Error(`PayPal answered ${res.status}: ${errorMessage(res.status, res.json)}`);
    return refundResult(res);
  },

  verifyNotification: verifyWebhook,
  parseNotification: parseWebhook,
};
