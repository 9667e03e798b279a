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
import { verifySignature } from './signature.js';

/**
 * The currencies of Mercado Pago's sites (AR, BR, CL, CO, MX, PE, UY). The specification's
 * "and 18 more" names none, and Mercado Pago settles no others, so no others are claimed.
 */
export const MERCADOPAGO_CURRENCIES = ['PEN', 'ARS', 'BRL', 'CLP', 'COP', 'MXN', 'UYU'] as const;

/** ISO 4217 decimals; Qhatu's minor units become Mercado Pago's decimal major units. */
const DECIMALS: Record<string, number> = { CLP: 0 };

/** Minor units as the decimal number Mercado Pago's `transaction_amount` and refund `amount` take. */
export function toMajor(amount: number, currency: string): number {
  const decimals = DECIMALS[currency] ?? 2;
  return Number((amount / 10 ** decimals).toFixed(decimals));
}

interface MpPayment {
  id: number | string;
  status?: string;
  status_detail?: string | null;
  payment_method_id?: string | null;
  payment_type_id?: string | null;
}

interface MpError {
  message?: string;
  error?: string;
  status?: number;
  cause?: Array<{ code?: string | number; description?: string }> | null;
}

interface MpRefund {
  id: number | string;
  payment_id?: number | string;
  amount?: number;
  status?: string;
}

const TIMEOUT_MS = 20_000;

async function call<T>(ctx: GatewayContext, method: 'GET' | 'POST', path: string, options: { body?: unknown; idempotencyKey?: string } = {}): Promise<{ ok: boolean; status: number; json: Partial<T> & MpError }> {
  const headers: Record<string, string> = { authorization: `Bearer ${ctx.credentials.access_token}`, accept: 'application/json' };
  if (method === 'POST') headers['content-type'] = 'application/json';
  if (options.idempotencyKey) headers['x-idempotency-key'] = options.idempotencyKey;
  const res = await fetch(`${ctx.baseUrl}${path}`, {
    method, headers, body: method === 'POST' ? JSON.stringify(options.body ?? {}) : undefined, signal: AbortSignal.timeout(ctx.timeoutMs ?? TIMEOUT_MS),
  });
  const text = await res.text();
  let json: Partial<T> & MpError;
  try {
    json = JSON.parse(text) as Partial<T> & MpError;
  } catch {
    throw new Error(`Mercado Pago answered ${res.status} without JSON`);
  }
  if (json === null || typeof json !== 'object') throw new Error(`Mercado Pago answered ${res.status} without an object`);
  return { ok: res.ok, status: res.status, json };
}

function errorMessage(status: number, e: MpError): string {
  const causes = (Array.isArray(e.cause) ? e.cause : []).map((c) => [c.code, c.description].filter((x) => x !== undefined && x !== '').join(' ')).filter(Boolean);
  return [e.message ?? e.error ?? `Mercado Pago answered ${status}`, ...causes].join(' — ');
}

/**
 * A Mercado Pago payment as a charge result: approved/authorized → paid (money taken; a later
 * refunded or charged_back payment was paid too); pending/in_process/in_mediation → processing
 * (settled by a notification or polling); rejected/cancelled → failed with the status_detail.
 */
export function chargeResult(payment: MpPayment): ChargeResult {
  const base = { providerPaymentId: String(payment.id), method: payment.payment_type_id ?? payment.payment_method_id ?? null };
  switch (payment.status) {
    case 'approved':
    case 'authorized':
    case 'refunded':
    case 'charged_back':
      return { ...base, status: 'paid' };
    case 'rejected':
    case 'cancelled':
      return { ...base, status: 'failed', failureReason: `Mercado Pago ${payment.status} the payment: ${payment.status_detail ?? 'no detail'}` };
    default:
      return { ...base, status: 'processing' };
  }
}

function refundResult(res: { ok: boolean; status: number; json: Partial<MpRefund> & MpError }): RefundResult {
  if (!res.ok || res.json.id === undefined || res.json.id === null) return { status: 'failed', providerRefundId: null, failureReason: errorMessage(res.status, res.json) };
  const id = String(res.json.id);
  if (res.json.status === 'rejected' || res.json.status === 'cancelled') return { status: 'failed', providerRefundId: id, failureReason: `Mercado Pago ${res.json.status} the refund` };
  // Card refunds are answered `approved`; any other state is taken as still under way.
  return { status: res.json.status === 'approved' ? 'refunded' : 'processing', providerRefundId: id };
}

/** The notification body's `data.id` and `id`, whatever else it holds. */
function readBody(raw: Buffer): { dataId: string | null; id: string | null; type: string | null; action: string | null } | null {
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return null;
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const b = body as { id?: unknown; type?: unknown; topic?: unknown; action?: unknown; data?: { id?: unknown } | null };
  const scalar = (v: unknown) => (typeof v === 'string' && v ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : null);
  return {
    dataId: b.data && typeof b.data === 'object' ? scalar(b.data.id) : null,
    id: scalar(b.id),
    type: typeof b.type === 'string' ? b.type : typeof b.topic === 'string' ? b.topic : null,
    action: typeof b.action === 'string' ? b.action : null,
  };
}

const header = (n: InboundNotification, name: string): string | undefined => {
  const v = n.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** Gateway 3: Mercado Pago payments from a MercadoPago.js / Card Payment Brick token, refunds, signed notifications. */
export const mercadoPagoGateway: PaymentGateway = {
  id: 'mercadopago',
  name: 'Mercado Pago',
  currencies: MERCADOPAGO_CURRENCIES,
  paymentFields: [
    { name: 'token', type: 'string', required: true, description: 'The card token from MercadoPago.js / the Card Payment Brick' },
    { name: 'installments', type: 'integer', required: true, description: 'Number of installments (cuotas) the buyer chose, 1 for none' },
    { name: 'payment_method_id', type: 'string', required: true, description: "Mercado Pago's payment method (visa, master, amex, ...)" },
    { name: 'email', type: 'string', required: false, description: "The payer's email (payer.email), which Mercado Pago asks for on card payments" },
    { name: 'issuer_id', type: 'string', required: false, description: 'The card issuer id the Brick returns, when it returns one' },
  ],
  credentialFields: [
    { name: 'access_token', required: true, secret: true, description: 'APP_USR-… or TEST-… access token (Tus integraciones → Credenciales)' },
    { name: 'webhook_secret', required: true, secret: true, description: 'The webhook "clave secreta" that signs x-signature (Tus integraciones → Webhooks)' },
    { name: 'public_key', required: false, secret: false, description: 'APP_USR-…/TEST-… public key for MercadoPago.js in the storefront' },
  ],
  defaultBaseUrl: 'https://api.mercadopago.com',
  // Every charge and refund carries an idempotency key made from Qhatu's id.
  idempotent: { charge: true, refund: true },

  async charge(ctx: GatewayContext, req: ChargeRequest): Promise<ChargeResult> {
    const body: Record<string, unknown> = {
      transaction_amount: toMajor(req.amount, req.currency),
      token: String(req.fields.token),
      installments: Number(req.fields.installments),
      payment_method_id: String(req.fields.payment_method_id),
      description: `Qhatu order ${req.orderId}`,
      external_reference: req.paymentId,
      capture: true,
      metadata: { qhatu_payment_id: req.paymentId, order_id: req.orderId, tenant_id: ctx.tenantId },
    };
    if (req.fields.issuer_id !== undefined) body.issuer_id = String(req.fields.issuer_id);
    if (req.fields.email !== undefined) body.payer = { email: String(req.fields.email) };
    // The Qhatu payment id: a retried call can never take the money twice.
    const res = await call<MpPayment>(ctx, 'POST', '/v1/payments', { body, idempotencyKey: req.paymentId });
    if (!res.ok) return { status: 'failed', providerPaymentId: null, failureReason: errorMessage(res.status, res.json) };
    if (res.json.id === undefined || res.json.id === null) throw new Error(`Mercado Pago answered ${res.status} without a payment`);
    return chargeResult(res.json as MpPayment);
  },

  async status(ctx: GatewayContext, providerPaymentId: string): Promise<ChargeResult> {
    const res = await call<MpPayment>(ctx, 'GET', `/v1/payments/${encodeURIComponent(providerPaymentId)}`);
    if (!res.ok || res.json.id === undefined) throw new Error(`Mercado Pago answered ${res.status}: ${errorMessage(res.status, res.json)}`);
    return chargeResult(res.json as MpPayment);
  },

  async refund(ctx: GatewayContext, req: RefundRequest): Promise<RefundResult> {
    // Payments always gives the amount (full refunds are worked out there), so it is always sent.
    const res = await call<MpRefund>(ctx, 'POST', `/v1/payments/${encodeURIComponent(req.providerPaymentId)}/refunds`, {
      body: { amount: toMajor(req.amount, req.currency) },
      idempotencyKey: req.refundId,
    });
    return refundResult(res);
  },

  verifyNotification(ctx: GatewayContext, n: InboundNotification): boolean {
    // The manifest's id is the query string's data.id (what Mercado Pago signs); the body's only
    // when the URL carries none.
    const body = readBody(n.rawBody);
    return verifySignature({
      header: header(n, 'x-signature'),
      requestId: header(n, 'x-request-id'),
      dataId: n.query.get('data.id') ?? body?.dataId ?? null,
      secret: ctx.credentials.webhook_secret ?? '',
      now: n.now,
    });
  },

  parseNotification(n: InboundNotification): ParsedNotification | null {
    const body = readBody(n.rawBody);
    if (!body || (!body.type && !body.action)) return null;
    const requestId = header(n, 'x-request-id');
    // Mercado Pago's notification id, else its request id: a second delivery of either is one event.
    const eventId = body.id ? `notification:${body.id}` : requestId ? `request:${requestId}` : null;
    if (!eventId) return null;
    const aboutPayment = body.type === 'payment' || (body.action ?? '').startsWith('payment.');
    return { eventId, providerPaymentId: aboutPayment ? body.dataId : null };
  },
};
