import type { IncomingHttpHeaders } from 'node:http';

/**
 * The gateway plugin API. A gateway package implements `PaymentGateway` and registers it with
 * `container.register(PAYMENT_GATEWAY, { useValue: gateway })`; the payments plugin finds every
 * registered gateway with `resolveAll`. Adding a gateway is one new package and nothing else.
 */
export const PAYMENT_GATEWAY = 'qhatu.payments.gateway';

/** A field the client sends with a payment, or a credential the tenant's admin stores. */
export interface PaymentField {
  name: string;
  type: 'string' | 'integer';
  /** Shown in GET /payments/gateways. */
  description: string;
  required: boolean;
  /** The longest string accepted (500 unless said; a provider's signed answer can be longer). */
  maxLength?: number;
}

export interface CredentialField {
  name: string;
  description: string;
  required: boolean;
  /** A secret is sealed at rest and never returned; a public one (a publishable key) is shown. */
  secret: boolean;
}

/** What a gateway call runs with: the tenant's credentials and the operator's base URL. */
export interface GatewayContext {
  credentials: Record<string, string>;
  baseUrl: string;
  tenantId: string;
  /** The operator's bound on one provider call (`QHATU_GATEWAY_TIMEOUT_MS`); absent, the gateway's own. */
  timeoutMs?: number;
}

export type ChargeStatus = 'pending' | 'processing' | 'paid' | 'failed';
export type RefundOutcome = 'processing' | 'refunded' | 'failed';

export interface ChargeRequest {
  paymentId: string;
  orderId: string;
  /** Minor units of `currency`; the adapter converts to its provider's format. */
  amount: number;
  currency: string;
  /** The gateway's payment fields, validated against `paymentFields`. */
  fields: Record<string, unknown>;
  /** The payment session this payment pays (see `sessionField`), or null. */
  session: StoredSession | null;
}

/**
 * A payment session: the server-side step some providers need before the browser can pay
 * (Niubiz's session key, Izipay's form token, a PayPal order, Pay-me's nonce). The client opens
 * one with `POST /api/v1/payments/sessions`, pays in the provider's browser form with `client`,
 * then pays the order with `POST /api/v1/payments` (or the provider's form posts back to
 * `callbackUrl`, see `parseCallback`).
 */
export interface SessionRequest {
  /** Qhatu's id of the session. */
  sessionId: string;
  /**
   * A number no other session of any store was given, seven digits or more, increasing: the
   * numeric purchase or operation number that some providers want unique per merchant.
   */
  number: number;
  orderId: string;
  /** Minor units of `currency`: what is still due on the order (its total, unless part of it is paid). */
  amount: number;
  currency: string;
  customerEmail: string | null;
  /** The shopper's address as the storefront reports it (antifraud data), when known. */
  clientIp: string | null;
  /**
   * The store's notification address for this session:
   * `<public url>/webhooks/<gateway>/<tenant id>?session=<session id>`.
   */
  callbackUrl: string;
}

export interface SessionResult {
  /** The provider's reference of the session (a session key, a form token, an order id, a nonce). */
  reference: string;
  /** What the browser needs to open the provider's form; returned to the client as is, never a secret. */
  client: Record<string, unknown>;
  /** Kept on the server and handed back to `charge` (a purchase number and the like). */
  data?: Record<string, unknown>;
  /** When the provider forgets the session; null when it does not say. */
  expiresAt?: Date | null;
}

/** A session as `charge` receives it. */
export interface StoredSession {
  id: string;
  reference: string;
  data: Record<string, unknown>;
  amount: number;
  currency: string;
}

/** What `parseCallback` reads from a provider's browser form post. */
export interface ParsedCallback {
  /** Qhatu's id of the session the post is for (from the callback URL's `session` parameter). */
  sessionId: string;
  /** Payment fields for `charge` (e.g. `transaction_token`); the session's own field is added. */
  fields: Record<string, unknown>;
}

/**
 * A look-up at the provider of the charge Qhatu asked for a payment, by the store's own reference
 * (the payment id in the charge's metadata, the session's purchase number): what `lookup` gets.
 */
export interface LookupRequest {
  paymentId: string;
  orderId: string;
  amount: number;
  currency: string;
  /** The payment session the payment paid, or null. */
  session: StoredSession | null;
  /** When the payment was recorded: the charge, if any, was made after it. */
  createdAt: Date;
}

export interface ChargeResult {
  status: ChargeStatus;
  providerPaymentId: string | null;
  /** The payment method as the provider names it (card, yape, ...). */
  method?: string | null;
  /** The provider's reason when `failed`. */
  failureReason?: string | null;
  /** What the client must do next (3-D Secure and the like), passed through as is. */
  nextAction?: Record<string, unknown> | null;
  /** What the gateway keeps, while the payment is pending, for `confirm` (never shown to anyone). */
  keep?: Record<string, unknown> | null;
}

/** `POST /api/v1/payments/:id/confirm`: the browser finished the provider's step (3-D Secure). */
export interface ConfirmRequest {
  paymentId: string;
  orderId: string;
  amount: number;
  currency: string;
  providerPaymentId: string | null;
  /** What `charge` kept (`ChargeResult.keep`). */
  kept: Record<string, unknown>;
  /** The body the client sent: the provider's authentication result, as the gateway documents it. */
  confirmation: Record<string, unknown>;
}

export interface RefundRequest {
  refundId: string;
  providerPaymentId: string;
  amount: number;
  currency: string;
  reason: string | null;
}

export interface RefundResult {
  status: RefundOutcome;
  providerRefundId: string | null;
  failureReason?: string | null;
}

export interface InboundNotification {
  rawBody: Buffer;
  headers: IncomingHttpHeaders;
  /** The notification URL's query string (some providers sign a value that travels there). */
  query: URLSearchParams;
  now: Date;
}

/** A verified notification as the gateway reads it. */
export interface ParsedNotification {
  /** The provider's event id: a second delivery of the same id changes nothing. */
  eventId: string;
  /** The provider's payment the event is about; null when it is about something else. */
  providerPaymentId: string | null;
  /** Set when the event is about a refund (its outcome arrives later than the refund call). */
  providerRefundId?: string | null;
}

export interface PaymentGateway {
  /** The `gateway` value of payments and the path of its notifications (`/webhooks/<id>/<tenant>`). */
  readonly id: string;
  readonly name: string;
  /** ISO 4217 codes the gateway accepts, in capitals. */
  readonly currencies: readonly string[];
  readonly paymentFields: readonly PaymentField[];
  readonly credentialFields: readonly CredentialField[];
  /** The provider's production API; the operator overrides it with QHATU_GATEWAY_<ID>_BASE_URL. */
  readonly defaultBaseUrl: string;

  /**
   * Which calls can be made again with the same request and never charge or refund twice: with
   * an idempotency key made from Qhatu's payment or refund id (Stripe's, Mercado Pago's and
   * PayPal's APIs take one), or because the call only reads back what the browser already did
   * (Izipay's and Pay-me's charges). A charge whose answer was lost (a timeout, a dropped
   * connection, a 5xx, the process killed) is repeated until the provider answers; a gateway whose
   * charge is not idempotent implements `lookup` instead. A refund of these whose answer was lost
   * is repeated too.
   */
  readonly idempotent?: { charge: boolean; refund: boolean };
  /** Creates and confirms the charge from the client's token; throws when the provider cannot be reached. */
  charge(ctx: GatewayContext, request: ChargeRequest): Promise<ChargeResult>;
  /**
   * Finishes a pending payment once the browser did what `nextAction` asked (a provider that wants
   * the charge repeated with the 3-D Secure result). Throws an `AppError` for a confirmation it
   * cannot read. Gateways whose provider settles by itself omit it: confirming re-reads the payment.
   */
  confirm?(ctx: GatewayContext, request: ConfirmRequest): Promise<ChargeResult>;
  /**
   * Voids a payment the shopper left halfway (3-D Secure never finished, or given up with `POST
   * /payments/:id/cancel`), so that it can no longer be completed, and answers its state
   * afterwards: failed, or what it became if the shopper finished first. Gateways whose provider
   * cannot void a pending payment omit it: the payment is re-read, and a cancel is refused while
   * the provider still holds it open.
   */
  cancel?(ctx: GatewayContext, providerPaymentId: string): Promise<ChargeResult>;
  /**
   * Finds, by the store's own reference, the charge Qhatu asked for a payment whose answer was
   * lost: its result, or null when the provider has no such charge (its word that nothing was
   * charged). Gateways whose charge is not idempotent implement it; throws when the provider
   * cannot be reached or cannot tell.
   */
  lookup?(ctx: GatewayContext, request: LookupRequest): Promise<ChargeResult | null>;
  /** Re-reads a payment from the provider (polling, and before a notification moves anything). */
  status(ctx: GatewayContext, providerPaymentId: string): Promise<ChargeResult>;
  /** Refunds on the original gateway; `amount` is always given (full refunds are worked out by payments). */
  refund(ctx: GatewayContext, request: RefundRequest): Promise<RefundResult>;
  /** Re-reads a refund the provider left processing; gateways whose refunds settle at once may omit it. */
  refundStatus?(ctx: GatewayContext, providerRefundId: string): Promise<RefundResult>;
  /**
   * The payment field that names a session (`session_key`, `paypal_order_id`). When a payment
   * names one, it must be a session of this store for the same order, amount and currency that
   * no other payment used; with `sessionRequired` a payment without one is refused.
   */
  readonly sessionField?: string;
  readonly sessionRequired?: boolean;
  /** Opens a payment session on the provider; gateways whose browser tokenises alone omit it. */
  createSession?(ctx: GatewayContext, request: SessionRequest): Promise<SessionResult>;
  /**
   * For providers whose browser form posts the outcome back instead of signing a notification
   * (Niubiz): reads the post; the charge then made with it on the provider is the proof, so
   * nothing is trusted from the post itself. Null when the post cannot be understood.
   */
  parseCallback?(notification: InboundNotification): ParsedCallback | null;

  /** Checks the notification's signature with the tenant's secret, in constant time. Reads nothing else. */
  verifyNotification(ctx: GatewayContext, notification: InboundNotification): boolean | Promise<boolean>;
  /**
   * Reads a notification; null when it cannot be understood. On the bare `/webhooks/<id>` path it is
   * also read before verification, only to find the store whose credentials then verify it.
   */
  parseNotification(notification: InboundNotification): ParsedNotification | null;
}
