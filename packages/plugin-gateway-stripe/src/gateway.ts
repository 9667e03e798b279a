import type {
  ChargeRequest,
  ChargeResult,
  GatewayContext,
  InboundNotification,
  ParsedNotification,
  PaymentGateway,
  RefundRequest,
  RefundResult,
} from '@qhatu/plugin-payments';
import { STRIPE_CURRENCIES } from './currencies.js';
import { verifyStripeSignature } from './signature.js';

interface StripeIntent {
  id: string;
  object: 'payment_intent';
  status: string;
  client_secret?: string | null;
  next_action?: Record<string, unknown> | null;
  last_payment_error?: { message?: string; code?: string; decline_code?: string } | null;
  payment_method_types?: string[];
}

interface StripeError {
  error?: { type?: string; code?: string; decline_code?: string; message?: string; payment_intent?: StripeIntent };
}

interface StripeRefund {
  id: string;
  status: string;
  failure_reason?: string | null;
}

/** succeeded → refunded; failed or canceled → failed; pending and requires_action → processing. */
function refundResult(r: StripeRefund): RefundResult {
  if (r.status === 'succeeded') return { status: 'refunded', providerRefundId: r.id };
  if (r.status === 'failed' || r.status === 'canceled') return { status: 'failed', providerRefundId: r.id, failureReason: r.failure_reason ?? `Stripe refund ${r.status}` };
  return { status: 'processing', providerRefundId: r.id };
}

const REFUND_REASONS = new Set(['duplicate', 'fraudulent', 'requested_by_customer']);
const TIMEOUT_MS = 20_000;

/** Stripe's form encoding: nested keys as `a[b]=c`. */
function form(fields: Record<string, string | number | boolean | Record<string, string | boolean> | undefined>): string {
  const body = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (typeof value === 'object') for (const [k, v] of Object.entries(value)) body.append(`${key}[${k}]`, String(v));
    else body.append(key, String(value));
  }
  return body.toString();
}

async function call<T>(ctx: GatewayContext, method: 'GET' | 'POST', path: string, body?: string, idempotencyKey?: string): Promise<{ ok: boolean; status: number; json: T & StripeError }> {
  const headers: Record<string, string> = { authorization: `Bearer ${ctx.credentials.secret_key}` };
  if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
  if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
  const res = await fetch(`${ctx.baseUrl}${path}`, { method, headers, body, signal: AbortSignal.timeout(TIMEOUT_MS) });
  const text = await res.text();
  let json: T & StripeError;
  try {
    json = JSON.parse(text) as T & StripeError;
  } catch {
    throw new Error(`Stripe answered ${res.status} without JSON`);
  }
  return { ok: res.ok, status: res.status, json };
}

/** A PaymentIntent as a charge result; only `succeeded` (or `requires_capture`) is paid. */
export function intentResult(intent: StripeIntent): ChargeResult {
  const base = { providerPaymentId: intent.id, method: intent.payment_method_types?.[0] ?? 'card' };
  switch (intent.status) {
    case 'succeeded':
    case 'requires_capture':
      return { ...base, status: 'paid' };
    case 'processing':
      return { ...base, status: 'processing' };
    case 'requires_action':
    case 'requires_confirmation':
      return { ...base, status: 'pending', nextAction: { type: 'stripe_handle_next_action', client_secret: intent.client_secret ?? null, next_action: intent.next_action ?? null } };
    default:
      return { ...base, status: 'failed', failureReason: intent.last_payment_error?.message ?? `Stripe payment ${intent.status}` };
  }
}

function errorResult(status: number, json: StripeError): ChargeResult {
  const e = json.error ?? {};
  const reason = [e.message ?? `Stripe answered ${status}`, e.decline_code ?? e.code].filter(Boolean).join(' — ');
  return { status: 'failed', providerPaymentId: e.payment_intent?.id ?? null, failureReason: reason };
}

/** Gateway 1: Stripe PaymentIntents, refunds and signed webhooks, over plain fetch. */
export const stripeGateway: PaymentGateway = {
  id: 'stripe',
  name: 'Stripe',
  currencies: STRIPE_CURRENCIES,
  paymentFields: [{ name: 'payment_method_id', type: 'string', required: true, description: 'The pm_… token from Stripe.js createPaymentMethod' }],
  credentialFields: [
    { name: 'secret_key', required: true, secret: true, description: 'sk_live_… or sk_test_…' },
    { name: 'webhook_secret', required: true, secret: true, description: "The webhook endpoint's signing secret, whsec_…" },
    { name: 'publishable_key', required: false, secret: false, description: 'pk_… for Stripe.js in the storefront' },
  ],
  defaultBaseUrl: 'https://api.stripe.com',

  async charge(ctx: GatewayContext, req: ChargeRequest): Promise<ChargeResult> {
    const body = form({
      amount: req.amount,
      currency: req.currency.toLowerCase(),
      payment_method: String(req.fields.payment_method_id),
      confirm: true,
      // No redirect methods: the intent settles here or asks the browser for 3-D Secure.
      automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
      metadata: { qhatu_payment_id: req.paymentId, order_id: req.orderId, tenant_id: ctx.tenantId },
    });
    const res = await call<StripeIntent>(ctx, 'POST', '/v1/payment_intents', body, `qhatu-payment-${req.paymentId}`);
    return res.ok ? intentResult(res.json) : errorResult(res.status, res.json);
  },

  async status(ctx: GatewayContext, providerPaymentId: string): Promise<ChargeResult> {
    const res = await call<StripeIntent>(ctx, 'GET', `/v1/payment_intents/${encodeURIComponent(providerPaymentId)}`);
    if (!res.ok) throw new Error(`Stripe answered ${res.status}: ${res.json.error?.message ?? 'no message'}`);
    return intentResult(res.json);
  },

  async refundStatus(ctx: GatewayContext, providerRefundId: string): Promise<RefundResult> {
    const res = await call<StripeRefund>(ctx, 'GET', `/v1/refunds/${encodeURIComponent(providerRefundId)}`);
    if (!res.ok) throw new Error(`Stripe answered ${res.status}: ${res.json.error?.message ?? 'no message'}`);
    return refundResult(res.json);
  },

  async refund(ctx: GatewayContext, req: RefundRequest): Promise<RefundResult> {
    const body = form({
      payment_intent: req.providerPaymentId,
      amount: req.amount,
      reason: req.reason && REFUND_REASONS.has(req.reason) ? req.reason : undefined,
      metadata: { qhatu_refund_id: req.refundId },
    });
    const res = await call<StripeRefund>(ctx, 'POST', '/v1/refunds', body, `qhatu-refund-${req.refundId}`);
    if (!res.ok) {
      return { status: 'failed', providerRefundId: null, failureReason: res.json.error?.message ?? `Stripe answered ${res.status}` };
    }
    return refundResult(res.json);
  },

  verifyNotification(ctx: GatewayContext, n: InboundNotification): boolean {
    const header = n.headers['stripe-signature'];
    return verifyStripeSignature(Array.isArray(header) ? header[0] : header, n.rawBody, ctx.credentials.webhook_secret ?? '', n.now);
  },

  parseNotification(n: InboundNotification): ParsedNotification | null {
    let event: { id?: unknown; type?: unknown; data?: { object?: { id?: unknown; object?: unknown; payment_intent?: unknown } } };
    try {
      event = JSON.parse(n.rawBody.toString('utf8'));
    } catch {
      return null;
    }
    if (typeof event.id !== 'string' || typeof event.type !== 'string') return null;
    const object = event.data?.object;
    // payment_intent.* events carry the intent; charge.* and refund.* events name it.
    const intent = object?.object === 'payment_intent' ? object.id : object?.payment_intent;
    const refund = object?.object === 'refund' && typeof object.id === 'string' ? object.id : null;
    return { eventId: event.id, providerPaymentId: typeof intent === 'string' ? intent : null, providerRefundId: refund };
  },
};
