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
import type Stripe from 'stripe';
import { loadStripe, stripeClient } from './client.js';
import { STRIPE_CURRENCIES } from './currencies.js';
import { verifyStripeSignature } from './signature.js';

/** succeeded → refunded; failed or canceled → failed; pending and requires_action → processing. */
function refundResult(r: Stripe.Refund): RefundResult {
  if (r.status === 'succeeded') return { status: 'refunded', providerRefundId: r.id };
  if (r.status === 'failed' || r.status === 'canceled') return { status: 'failed', providerRefundId: r.id, failureReason: r.failure_reason ?? `Stripe refund ${r.status}` };
  return { status: 'processing', providerRefundId: r.id };
}

const REFUND_REASONS = new Set<string>(['duplicate', 'fraudulent', 'requested_by_customer']);

/** A PaymentIntent as a charge result; only `succeeded` (or `requires_capture`) is paid. */
export function intentResult(intent: Stripe.PaymentIntent): ChargeResult {
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
      return {
        ...base,
        status: 'failed',
        failureReason: intent.last_payment_error?.message ?? (intent.cancellation_reason ? `Stripe payment canceled (${intent.cancellation_reason})` : `Stripe payment ${intent.status}`),
      };
  }
}


/**
 * Stripe's answer refusing the request (a card, a parameter, the key, the account's permissions, a
 * reused idempotency key). Anything else (no connection, a timeout, a 5xx, rate limiting) is not
 * an answer about this payment and is thrown.
 */
async function refusal(error: unknown): Promise<Stripe.errors.StripeError | null> {
  const { StripeAuthenticationError, StripeCardError, StripeIdempotencyError, StripeInvalidRequestError, StripePermissionError } = (await loadStripe()).errors;
  const refused = [StripeCardError, StripeInvalidRequestError, StripeAuthenticationError, StripePermissionError, StripeIdempotencyError].some((type) => error instanceof type);
  return refused ? (error as Stripe.errors.StripeError) : null;
}

/** `message — decline_code|code`, as Stripe words it. */
function reason(e: Stripe.errors.StripeError): string {
  return [e.message || `Stripe answered ${e.statusCode ?? 'an error'}`, e.decline_code ?? e.code].filter(Boolean).join(' — ');
}

/** Gateway 1: Stripe PaymentIntents, refunds and signed webhooks, through Stripe's Node SDK. */
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
  // Every charge and refund carries an idempotency key made from Qhatu's id.
  idempotent: { charge: true, refund: true },

  async charge(ctx: GatewayContext, req: ChargeRequest): Promise<ChargeResult> {
    try {
      const intent = await (await stripeClient(ctx)).paymentIntents.create(
        {
          amount: req.amount,
          currency: req.currency.toLowerCase(),
          payment_method: String(req.fields.payment_method_id),
          confirm: true,
          // No redirect methods: the intent settles here or asks the browser for 3-D Secure.
          automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
          metadata: { qhatu_payment_id: req.paymentId, order_id: req.orderId, tenant_id: ctx.tenantId },
        },
        { idempotencyKey: `qhatu-payment-${req.paymentId}` },
      );
      return intentResult(intent);
    } catch (error) {
      const refused = await refusal(error);
      if (!refused) throw error;
      return { status: 'failed', providerPaymentId: refused.payment_intent?.id ?? null, failureReason: reason(refused) };
    }
  },

  async status(ctx: GatewayContext, providerPaymentId: string): Promise<ChargeResult> {
    return intentResult(await (await stripeClient(ctx)).paymentIntents.retrieve(providerPaymentId));
  },

  async cancel(ctx: GatewayContext, providerPaymentId: string): Promise<ChargeResult> {
    const stripe = await stripeClient(ctx);
    try {
      return intentResult(await stripe.paymentIntents.cancel(providerPaymentId, { cancellation_reason: 'abandoned' }, { idempotencyKey: `qhatu-cancel-${providerPaymentId}` }));
    } catch (error) {
      if (!(await refusal(error))) throw error;
      // Stripe refuses to cancel an intent that moved on (the shopper finished): its state is the answer.
      return intentResult(await stripe.paymentIntents.retrieve(providerPaymentId));
    }
  },

  async refundStatus(ctx: GatewayContext, providerRefundId: string): Promise<RefundResult> {
    return refundResult(await (await stripeClient(ctx)).refunds.retrieve(providerRefundId));
  },

  async refund(ctx: GatewayContext, req: RefundRequest): Promise<RefundResult> {
    try {
      const refund = await (await stripeClient(ctx)).refunds.create(
        {
          payment_intent: req.providerPaymentId,
          amount: req.amount,
          reason: req.reason && REFUND_REASONS.has(req.reason) ? (req.reason as Stripe.RefundCreateParams.Reason) : undefined,
          metadata: { qhatu_refund_id: req.refundId },
        },
        { idempotencyKey: `qhatu-refund-${req.refundId}` },
      );
      return refundResult(refund);
    } catch (error) {
      const refused = await refusal(error);
      if (!refused) throw error;
      return { status: 'failed', providerRefundId: null, failureReason: reason(refused) };
    }
  },

  verifyNotification(ctx: GatewayContext, n: InboundNotification): Promise<boolean> {
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
