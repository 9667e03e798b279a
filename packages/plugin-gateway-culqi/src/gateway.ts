import { createHash } from 'node:crypto';
import { AppError } from '@qhatu/core';
import type {
  ChargeRequest,
  ChargeResult,
  ConfirmRequest,
  GatewayContext,
  InboundNotification,
  LookupRequest,
  ParsedNotification,
  PaymentGateway,
  RefundRequest,
  RefundResult,
} from '@qhatu/plugin-payments';
import { verifyBasicAuth } from './basic-auth.js';

/** Culqi charges in soles and dollars only; both have two decimals, so minor units are céntimos as is. */
export const CULQI_CURRENCIES = ['PEN', 'USD'] as const;

/** Qhatu's refund reasons in Culqi's words; Culqi requires one, `other` and none become the buyer's request. */
export const CULQI_REFUND_REASONS: Record<string, string> = {
  duplicate: 'duplicado',
  fraudulent: 'fraudulento',
  requested_by_customer: 'solicitud_comprador',
};

interface CulqiOutcome {
  type?: string | null;
  code?: string | null;
  merchant_message?: string | null;
  user_message?: string | null;
}

interface CulqiCharge {
  object: 'charge';
  id: string;
  outcome?: CulqiOutcome | null;
  source?: { object?: string; type?: string } | null;
  metadata?: Record<string, unknown> | null;
}

/** A page of Culqi's charge list: newest first, `paging.cursors.after` leading to the next (older) page. */
interface CulqiChargeList {
  data?: CulqiCharge[];
  paging?: { next?: string | null; cursors?: { after?: string | null } | null } | null;
}

/** Culqi's error object (card_error, invalid_request_error, authentication_error, parameter_error). */
interface CulqiError {
  object?: string;
  type?: string;
  charge_id?: string;
  code?: string;
  decline_code?: string;
  merchant_message?: string;
  user_message?: string;
  /** Culqi asks for 3-D Secure with action_code REVIEW on a 200 answer. */
  action_code?: string;
}

interface CulqiRefund {
  object: 'refund';
  id: string;
  charge_id?: string;
}

const TIMEOUT_MS = 20_000;
/** A look-up lists charges from this long before the payment was recorded (the two clocks may differ). */
const LOOKUP_SKEW_MS = 10 * 60_000;
/** Pages of 100 charges of one amount and currency searched before giving up (asked again later). */
const LOOKUP_PAGES = 20;

async function call<T>(ctx: GatewayContext, method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ ok: boolean; status: number; json: T & CulqiError }> {
  const headers: Record<string, string> = { authorization: `Bearer ${ctx.credentials.secret_key}`, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${ctx.baseUrl}${path}`, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(ctx.timeoutMs ?? TIMEOUT_MS),
  });
  const text = await res.text();
  let json: T & CulqiError;
  try {
    json = JSON.parse(text) as T & CulqiError;
  } catch {
    throw new Error(`Culqi answered ${res.status} without JSON`);
  }
  if (json === null || typeof json !== 'object') throw new Error(`Culqi answered ${res.status} without an object`);
  return { ok: res.ok, status: res.status, json };
}

function errorMessage(status: number, e: CulqiError): string {
  return [e.merchant_message ?? e.user_message ?? `Culqi answered ${status}`, e.decline_code ?? e.code].filter(Boolean).join(' — ');
}

/**
 * A Culqi charge as a charge result. `outcome.type == "venta_exitosa"` is a sale (paid); a charge
 * without any outcome verdict yet is processing (re-read on notification or polling); any other
 * verdict is failed with Culqi's merchant message.
 */
export function chargeResult(charge: CulqiCharge): ChargeResult {
  const base = { providerPaymentId: charge.id, method: charge.source?.type ?? 'card' };
  const outcome = charge.outcome ?? null;
  if (outcome?.type === 'venta_exitosa') return { ...base, status: 'paid' };
  if (!outcome?.type) return { ...base, status: 'processing' };
  return { ...base, status: 'failed', failureReason: errorMessage(200, { ...outcome, code: outcome.code ?? outcome.type } as CulqiError) };
}

function charged(status: number, json: CulqiCharge & CulqiError): ChargeResult {
  if (json.object !== 'charge' || typeof json.id !== 'string') throw new Error(`Culqi answered ${status} without a charge`);
  return chargeResult(json);
}

const AUTHENTICATION_FIELDS = ['eci', 'xid', 'cavv', 'protocolVersion', 'directoryServerTransactionId'] as const;

/** Culqi 3DS's result as the browser got it: five strings, each named in the error when missing. */
function readAuthentication(value: unknown): Record<(typeof AUTHENTICATION_FIELDS)[number], string> {
  const given = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  if (!given) throw AppError.validation('Culqi 3-D Secure needs authentication_3ds', [{ path: 'body.authentication_3ds', message: `must be the object Culqi 3DS gave the browser: ${AUTHENTICATION_FIELDS.join(', ')}` }]);
  const wrong = AUTHENTICATION_FIELDS.filter((f) => typeof given[f] !== 'string' || !given[f] || (given[f] as string).length > 200);
  if (wrong.length) throw AppError.validation('Culqi 3-D Secure needs every authentication field', wrong.map((f) => ({ path: `body.authentication_3ds.${f}`, message: 'must be a non-empty string' })));
  return Object.fromEntries(AUTHENTICATION_FIELDS.map((f) => [f, given[f] as string])) as Record<(typeof AUTHENTICATION_FIELDS)[number], string>;
}

/** Gateway 2: Culqi charges from a Culqi.js token, refunds, and Basic-auth webhooks, over plain fetch. */
export const culqiGateway: PaymentGateway = {
  id: 'culqi',
  name: 'Culqi',
  currencies: CULQI_CURRENCIES,
  paymentFields: [
    { name: 'token_id', type: 'string', required: true, description: 'The tkn_… token from Culqi.js / Culqi Checkout (sent to Culqi as source_id)' },
    { name: 'email', type: 'string', required: true, description: "The buyer's email, as Culqi requires for every charge" },
  ],
  credentialFields: [
    { name: 'secret_key', required: true, secret: true, description: 'sk_live_… or sk_test_… (the private key from CulqiPanel)' },
    { name: 'webhook_username', required: true, secret: true, description: 'The Basic auth username set on the webhook in CulqiPanel' },
    { name: 'webhook_password', required: true, secret: true, description: 'The Basic auth password set on the webhook in CulqiPanel' },
    { name: 'public_key', required: false, secret: false, description: 'pk_… for Culqi.js / Culqi Checkout in the storefront' },
  ],
  defaultBaseUrl: 'https://api.culqi.com',

  async charge(ctx: GatewayContext, req: ChargeRequest): Promise<ChargeResult> {
    const res = await call<CulqiCharge>(ctx, 'POST', '/v2/charges', {
      amount: req.amount,
      currency_code: req.currency,
      email: String(req.fields.email),
      source_id: String(req.fields.token_id),
      capture: true,
      description: `Qhatu order ${req.orderId}`.slice(0, 80),
      metadata: { qhatu_payment_id: req.paymentId, order_id: req.orderId, tenant_id: ctx.tenantId },
    });
    if (!res.ok) return { status: 'failed', providerPaymentId: res.json.charge_id ?? null, failureReason: errorMessage(res.status, res.json) };
    if (res.json.action_code === 'REVIEW') {
      // 3-D Secure: the browser authenticates with Culqi 3DS, then POST /payments/:id/confirm repeats the charge.
      return {
        status: 'pending',
        providerPaymentId: null,
        nextAction: { type: 'culqi_3ds', token_id: String(req.fields.token_id), email: String(req.fields.email), message: res.json.user_message ?? null },
        keep: { token_id: String(req.fields.token_id), email: String(req.fields.email) },
      };
    }
    return charged(res.status, res.json);
  },

  /** The charge repeated with the browser's Culqi 3DS result (`authentication_3ds`). */
  async confirm(ctx: GatewayContext, req: ConfirmRequest): Promise<ChargeResult> {
    const auth = readAuthentication(req.confirmation.authentication_3ds);
    const token = req.kept.token_id;
    const email = req.kept.email;
    if (typeof token !== 'string' || typeof email !== 'string') {
      throw AppError.conflict('This Culqi payment is not waiting for 3-D Secure', 'PAYMENT_NOT_PENDING');
    }
    const res = await call<CulqiCharge>(ctx, 'POST', '/v2/charges', {
      amount: req.amount,
      currency_code: req.currency,
      email,
      source_id: token,
      capture: true,
      description: `Qhatu order ${req.orderId}`.slice(0, 80),
      metadata: { qhatu_payment_id: req.paymentId, order_id: req.orderId, tenant_id: ctx.tenantId },
      authentication_3DS: auth,
    });
    if (!res.ok) return { status: 'failed', providerPaymentId: res.json.charge_id ?? null, failureReason: errorMessage(res.status, res.json) };
    if (res.json.action_code === 'REVIEW') return { status: 'failed', providerPaymentId: null, failureReason: `Culqi did not accept the 3-D Secure authentication: ${res.json.user_message ?? 'no message'}` };
    return charged(res.status, res.json);
  },

  async status(ctx: GatewayContext, providerPaymentId: string): Promise<ChargeResult> {
    const res = await call<CulqiCharge>(ctx, 'GET', `/v2/charges/${encodeURIComponent(providerPaymentId)}`);
    if (!res.ok || res.json.object !== 'charge') throw new Error(`Culqi answered ${res.status}: ${errorMessage(res.status, res.json)}`);
    return chargeResult(res.json);
  },

  /**
   * A charge whose answer was lost, found by the store's own reference: Culqi's charge list
   * (`GET /v2/charges`) of the payment's amount and currency since it was recorded, searched for
   * the charge whose metadata names the payment (a 3-D Secure charge repeated by confirm carries it
   * too). Culqi charges are not idempotent, so they are never repeated; null when Culqi has none.
   */
  async lookup(ctx: GatewayContext, req: LookupRequest): Promise<ChargeResult | null> {
    const query = new URLSearchParams({
      amount: String(req.amount), currency_code: req.currency, creation_date_from: String(req.createdAt.getTime() - LOOKUP_SKEW_MS), limit: '100',
    });
    for (let page = 0; page < LOOKUP_PAGES; page++) {
      const res = await call<CulqiChargeList>(ctx, 'GET', `/v2/charges?${query}`);
      if (!res.ok || !Array.isArray(res.json.data)) throw new Error(`Culqi answered ${res.status} to the charge list: ${errorMessage(res.status, res.json)}`);
      const found = res.json.data.find((c) => c?.object === 'charge' && c.metadata?.qhatu_payment_id === req.paymentId);
      if (found) return chargeResult(found);
      const after = res.json.paging?.cursors?.after;
      if (!after || !res.json.paging?.next) return null;
      query.set('after', after);
    }
    throw new Error(`Culqi lists over ${LOOKUP_PAGES * 100} charges of ${req.amount} ${req.currency} since the payment; asked again later`);
  },

  async refund(ctx: GatewayContext, req: RefundRequest): Promise<RefundResult> {
    const res = await call<CulqiRefund>(ctx, 'POST', '/v2/refunds', {
      amount: req.amount,
      charge_id: req.providerPaymentId,
      reason: (req.reason && CULQI_REFUND_REASONS[req.reason]) || 'solicitud_comprador',
    });
    if (!res.ok || res.json.object !== 'refund') return { status: 'failed', providerRefundId: null, failureReason: errorMessage(res.status, res.json) };
    // Culqi's refund object carries no pending state: a created refund is a refund.
    return { status: 'refunded', providerRefundId: res.json.id };
  },

  verifyNotification(ctx: GatewayContext, n: InboundNotification): boolean {
    const header = n.headers.authorization;
    return verifyBasicAuth(header, ctx.credentials.webhook_username ?? '', ctx.credentials.webhook_password ?? '');
  },

  parseNotification(n: InboundNotification): ParsedNotification | null {
    let event: { object?: unknown; id?: unknown; type?: unknown; data?: unknown };
    try {
      event = JSON.parse(n.rawBody.toString('utf8'));
    } catch {
      return null;
    }
    if (!event || typeof event !== 'object' || event.object !== 'event' || typeof event.type !== 'string') return null;
    // Culqi sends `data` as a JSON-encoded string; an object is taken as well.
    let data: unknown = event.data;
    if (typeof data === 'string') {
      try {
        data = JSON.parse(data);
      } catch {
        return null;
      }
    }
    // Without an event id, the body itself is the identity: the same delivery twice is one event.
    const eventId = typeof event.id === 'string' && event.id ? event.id : `sha256:${createHash('sha256').update(n.rawBody).digest('hex')}`;
    const object = data && typeof data === 'object' ? (data as { object?: unknown; id?: unknown; charge_id?: unknown }) : {};
    if (object.object === 'charge' && typeof object.id === 'string') return { eventId, providerPaymentId: object.id };
    // A refund settles when it is created (no refundStatus): its event re-reads the charge it belongs to.
    if (object.object === 'refund' && typeof object.charge_id === 'string') return { eventId, providerPaymentId: object.charge_id };
    return { eventId, providerPaymentId: null };
  },
};
