import type { GatewayContext, InboundNotification, ParsedNotification } from '@qhatu/plugin-payments';
import { paypal } from './client.js';

/** The headers PayPal signs a webhook delivery with. */
export const TRANSMISSION_HEADERS = {
  id: 'paypal-transmission-id',
  time: 'paypal-transmission-time',
  sig: 'paypal-transmission-sig',
  certUrl: 'paypal-cert-url',
  authAlgo: 'paypal-auth-algo',
} as const;

interface WebhookEvent {
  id?: unknown;
  event_type?: unknown;
  resource?: {
    id?: unknown;
    supplementary_data?: { related_ids?: { order_id?: unknown } | null } | null;
  } | null;
}

const header = (n: InboundNotification, name: string): string | undefined => {
  const v = n.headers[name];
  return typeof v === 'string' && v ? v : undefined;
};

/** The raw body as a JSON object, or null. */
function readEvent(raw: Buffer): WebhookEvent | null {
  try {
    const event: unknown = JSON.parse(raw.toString('utf8'));
    return event && typeof event === 'object' && !Array.isArray(event) ? (event as WebhookEvent) : null;
  } catch {
    return null;
  }
}

/** PayPal's certificates live on paypal.com over https; anything else is not PayPal's delivery. */
function paypalCertUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && (url.hostname === 'paypal.com' || url.hostname.endsWith('.paypal.com'));
  } catch {
    return false;
  }
}

/**
 * Asks PayPal whether it sent this delivery: `POST /v1/notifications/verify-webhook-signature` with
 * the transmission headers, the store's `webhook_id` and the event. The event goes back as the
 * exact bytes received (PayPal checks its signature over them, re-serialised JSON may differ).
 * True only for `verification_status: "SUCCESS"`; a store without `webhook_id`, a missing header,
 * a body that is not JSON, or any error is false.
 */
export async function verifyWebhook(ctx: GatewayContext, n: InboundNotification): Promise<boolean> {
  const webhookId = ctx.credentials.webhook_id;
  const id = header(n, TRANSMISSION_HEADERS.id);
  const time = header(n, TRANSMISSION_HEADERS.time);
  const sig = header(n, TRANSMISSION_HEADERS.sig);
  const certUrl = header(n, TRANSMISSION_HEADERS.certUrl);
  const authAlgo = header(n, TRANSMISSION_HEADERS.authAlgo);
  if (!webhookId || !id || !time || !sig || !certUrl || !authAlgo || !paypalCertUrl(certUrl)) return false;
  const raw = n.rawBody.toString('utf8');
  if (!readEvent(n.rawBody)) return false;
  const fields = { auth_algo: authAlgo, cert_url: certUrl, transmission_id: id, transmission_sig: sig, transmission_time: time, webhook_id: webhookId };
  const body = `${JSON.stringify(fields).slice(0, -1)},"webhook_event":${raw}}`;
  try {
    const res = await paypal<{ verification_status: string }>(ctx, 'POST', '/v1/notifications/verify-webhook-signature', { rawBody: body });
    return res.ok && res.json.verification_status === 'SUCCESS';
  } catch {
    return false;
  }
}

const REFUND_EVENTS = /^(PAYMENT\.CAPTURE\.REFUNDED|PAYMENT\.REFUND\.[A-Z_]+)$/;
const ORDER_EVENTS = new Set(['CHECKOUT.ORDER.APPROVED', 'CHECKOUT.ORDER.COMPLETED']);

const text = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

/**
 * A verified event: its `id` is the event id; order events name the order (`resource.id`), capture
 * events the order they belong to (`resource.supplementary_data.related_ids.order_id`), refund
 * events the refund (`resource.id`). Anything else is about nothing Qhatu tracks.
 */
export function parseWebhook(n: InboundNotification): ParsedNotification | null {
  const event = readEvent(n.rawBody);
  const eventId = text(event?.id);
  const type = text(event?.event_type);
  if (!event || !eventId || !type) return null;
  const resource = event.resource && typeof event.resource === 'object' ? event.resource : {};
  const relatedOrder = text(resource.supplementary_data?.related_ids?.order_id);
  if (REFUND_EVENTS.test(type)) return { eventId, providerPaymentId: relatedOrder, providerRefundId: text(resource.id) };
  if (ORDER_EVENTS.has(type)) return { eventId, providerPaymentId: text(resource.id) };
  if (type.startsWith('PAYMENT.CAPTURE.')) return { eventId, providerPaymentId: relatedOrder };
  return { eventId, providerPaymentId: null };
}
