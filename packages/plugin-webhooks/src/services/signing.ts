import { createHmac } from 'node:crypto';
import type { DomainEvent } from '@qhatu/core';

/** The CloudEvents 1.0 structured-mode body of an event. */
export function cloudEvent(event: DomainEvent): string {
  return JSON.stringify({
    specversion: '1.0',
    id: event.id,
    source: event.source,
    type: event.type,
    time: event.time.toISOString(),
    datacontenttype: 'application/json',
    tenantid: event.tenantId,
    data: event.data,
  });
}

/** Standard Webhooks: a `whsec_` secret is base64 after the prefix; any other is used as UTF-8 bytes. */
export function signingKey(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : Buffer.from(secret, 'utf8');
}

/** `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`. */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', signingKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

export function signedHeaders(delivery: { eventId: string; signedAt: number; signature: string }): Record<string, string> {
  return {
    'content-type': 'application/cloudevents+json',
    'webhook-id': delivery.eventId,
    'webhook-timestamp': String(delivery.signedAt),
    'webhook-signature': delivery.signature,
    'user-agent': 'Qhatu-Webhooks/1.0',
  };
}
